// The example that answers reviews and CI failures holds to the rules it teaches: the least permissions
// (actions: read for the logs, nothing more), the default branch checked out without a token, one round per
// branch at a time, the workflows it listens to named in ci-fix, and a push token so CI runs on its fixes.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parse } from 'yaml'

type Json = Record<string, unknown>
const FILE = path.resolve('examples/workflows/ralph-answers-reviews.yml')
const raw = readFileSync(FILE, 'utf8')
const wf = parse(raw) as Json
const job = (wf.jobs as Record<string, Json>).ralph
const steps = job.steps as Json[]
const action = steps.find(s => s.uses === 'org/ralph-action@v1') as Json
const given = action.with as Json

// The inputs issue 39 adds to action.yml for rounds.
const ROUND_INPUTS = ['ci-fix', 'max-fix-rounds', 'resolve-threads']

function actionInputs(): string[] {
  const text = readFileSync('action.yml', 'utf8')
  const block = /^inputs:\n([\s\S]*?)^\S/m.exec(text)?.[1] ?? ''
  return [...block.matchAll(/^ {2}([a-z][a-z0-9-]*):\s*$/gm)].map(m => m[1])
}

test('it starts on submitted reviews and on completed runs of the workflows ci-fix names', () => {
  const on = wf.on as Json
  expect(on.pull_request_review).toEqual({ types: ['submitted'] })
  const run = on.workflow_run as { workflows: string[]; types: string[] }
  expect(run.types).toEqual(['completed'])
  const ciFix = String(given['ci-fix'])
    .split(/[\n,]/)
    .map(s => s.trim())
    .filter(Boolean)
  expect(ciFix.length).toBeGreaterThan(0)
  expect(run.workflows).toEqual(ciFix)
})

test('it asks for the least permissions: contents and pull-requests write, actions read for the logs', () => {
  expect(wf.permissions).toEqual({ contents: 'write', 'pull-requests': 'write', actions: 'read' })
  expect(job.permissions).toBeUndefined()
})

test('it uses the action with inputs the action knows (the round inputs among them), installing its agent', () => {
  const known = new Set(actionInputs())
  for (const input of [...ROUND_INPUTS, ...Object.keys(given)]) expect(known).toContain(input)
  expect(given['install-agent']).toBe(true)
  expect(given['max-fix-rounds']).toBe(3)
  expect(given['resolve-threads']).toBe(false)
  // Without a push token, CI never runs on the round's fix.
  expect(String(given['push-token'])).toMatch(/^\$\{\{ secrets\.\w+ \}\}$/)
})

test('it checks out the default branch without leaving a token, and runs no expression in a shell', () => {
  const checkout = steps.find(s => String(s.uses).startsWith('actions/checkout@')) as Json
  expect(checkout.with).toEqual({
    ref: '${{ github.event.repository.default_branch }}',
    'persist-credentials': false
  })
  for (const step of steps) if (typeof step.run === 'string') expect(step.run).not.toContain('${{')
})

test('one round per branch at a time, never cancelled, never keyed on github.ref', () => {
  const group = job.concurrency as Json
  expect(group).toEqual({
    group: 'ralph-branch-${{ github.event.pull_request.head.ref || github.event.workflow_run.head_branch }}',
    'cancel-in-progress': false
  })
  expect(wf.concurrency).toBeUndefined()
})

test('its filter lets through what the action may take, and leaves approvals and green runs without a runner', () => {
  const filter = String(job.if)
  for (const part of [
    "github.event.review.state == 'changes_requested'",
    "startsWith(github.event.review.body, '/ralph')",
    "github.event.workflow_run.conclusion == 'failure'",
    "github.event.workflow_run.conclusion == 'timed_out'"
  ])
    expect(filter).toContain(part)
  expect(filter).not.toMatch(/approved|success/)
  // The job outlives max-time, so the action delivers and answers before it ends.
  expect(Number(job['timeout-minutes'])).toBeGreaterThan(Number(given['max-time']))
})
