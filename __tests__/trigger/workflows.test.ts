// The example workflows hold to the rules they teach: minimal permissions, untrusted text through env:
// only, concurrency keyed on ralph, issue or branch (never github.ref), no token left for the agent.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parse } from 'yaml'

type Json = Record<string, unknown>
const DIR = path.resolve('examples/workflows')
// Every example: one added later is held to the same rules.
const FILES = readdirSync(DIR)
  .filter(f => f.endsWith('.yml'))
  .sort()
const load = (file: string): Json => parse(readFileSync(path.join(DIR, file), 'utf8')) as Json
const jobs = (wf: Json) => Object.entries(wf.jobs as Record<string, Json>)
const steps = (job: Json) => (job.steps as Json[] | undefined) ?? []

/** The most jobs a job's ralph-action step lets its loop span (continue-jobs; 1 when not given). */
const continueJobs = (job: Json): number =>
  Math.max(
    1,
    ...steps(job)
      .filter(s => s.uses === 'org/ralph-action@v1')
      .map(s => Number((s.with as Json | undefined)?.['continue-jobs'] ?? 1))
  )

// Inputs issue 6 adds to action.yml (the trigger and hunt settings), besides those it declares today.
const TRIGGER_INPUTS = ['mode', 'allowed-bots', 'max-open-prs', 'report-issue']

/** The input names action.yml declares (read by indentation, so a YAML slip elsewhere in it does not matter). */
function actionInputs(): string[] {
  const text = readFileSync('action.yml', 'utf8')
  const block = /^inputs:\n([\s\S]*?)^\S/m.exec(text)?.[1] ?? ''
  return [...block.matchAll(/^ {2}([a-z][a-z0-9-]*):\s*$/gm)].map(m => m[1])
}

describe.each(FILES)('%s', file => {
  const wf = load(file)

  test('uses org/ralph-action@v1 with inputs the action knows', () => {
    expect(actionInputs()).toEqual(expect.arrayContaining(['ralph', 'max-iterations', 'github-token']))
    const known = new Set([...actionInputs(), ...TRIGGER_INPUTS])
    const uses = jobs(wf).flatMap(([, job]) => steps(job).filter(s => s.uses === 'org/ralph-action@v1'))
    expect(uses.length).toBeGreaterThan(0)
    for (const step of uses)
      for (const input of Object.keys((step.with as Json) ?? {})) expect(known).toContain(input)
  })

  test('asks for the least permissions: contents, pull-requests and issues (actions: write only to continue a loop); nothing for a list', () => {
    for (const [name, job] of jobs(wf)) {
      const permissions = (job.permissions ?? wf.permissions) as Json | string | undefined
      expect(typeof permissions).toBe('object')
      for (const [scope, level] of Object.entries(permissions as Json)) {
        // actions: write dispatches the next run of a loop that continues, and is for nothing else.
        // actions: read lets a workflow_run round read the failing run's jobs and logs.
        if (scope === 'actions' && level === 'read') {
          expect(Object.keys(wf.on as Json)).toContain('workflow_run')
          continue
        }
        if (scope === 'actions') {
          expect(level).toBe('write')
          expect(continueJobs(job)).toBeGreaterThan(1)
          continue
        }
        expect(['contents', 'pull-requests', 'issues']).toContain(scope)
        expect(['read', 'write']).toContain(level)
      }
      if (name === 'list') expect(permissions).toEqual({ contents: 'read' })
    }
  })

  test('a job that sets labels or assignees may write issues (GitHub sets both through the Issues API)', () => {
    for (const [, job] of jobs(wf)) {
      const permissions = (job.permissions ?? wf.permissions) as Json
      for (const step of steps(job).filter(s => s.uses === 'org/ralph-action@v1')) {
        const given = (step.with as Json) ?? {}
        // mode: agent writes nothing to GitHub: its deliver job sets them.
        if (given.mode !== 'agent' && ('labels' in given || 'assignees' in given))
          expect(permissions.issues).toBe('write')
      }
    }
  })

  test('untrusted text reaches steps through env: only, never pasted into a run: script', () => {
    for (const [, job] of jobs(wf))
      for (const step of steps(job)) if (typeof step.run === 'string') expect(step.run).not.toContain('${{')
    const raw = readFileSync(path.join(DIR, file), 'utf8')
    for (const m of raw.matchAll(
      /\$\{\{[^}]*github\.event\.(comment|issue|pull_request)\.(body|title)[^}]*\}\}/g
    )) {
      const line = raw.slice(raw.lastIndexOf('\n', m.index) + 1, raw.indexOf('\n', m.index))
      // Only as an env value, or inside an expression guarded by the event's name (an `if:`, a concurrency
      // group; not a shell).
      expect(line).toMatch(/^\s+[A-Z_]+: \$\{\{|^\s+(\$\{\{ \()?\(github\.event_name/)
    }
  })

  test('concurrency is keyed on the ralph, the issue or the branch, never on github.ref, and never cancels a loop', () => {
    const groups = [wf.concurrency, ...jobs(wf).map(([, job]) => job.concurrency)].filter(Boolean) as Json[]
    expect(groups.length).toBeGreaterThan(0)
    // On push alone the pushed branch is the work's own (one fix per branch); on any other event github.ref is
    // the default branch, which every loop would share.
    const pushOnly = Object.keys(wf.on as Json).join() === 'push'
    for (const group of groups) {
      const key = String(group.group).replace(pushOnly ? /\$\{\{ github\.ref_name \}\}/ : /^$/, 'BRANCH')
      expect(key).not.toMatch(/github\.ref|head_ref/)
      expect(key).toMatch(/issue\.number|matrix\.ralph|inputs\.ralph|ralph-bug-hunter|ralph-branch-|BRANCH/)
      expect(group['cancel-in-progress']).toBe(false)
    }
  })

  test('checkout leaves no token in .git/config for the agent', () => {
    for (const [, job] of jobs(wf))
      for (const step of steps(job).filter(s => String(s.uses).startsWith('actions/checkout@')))
        expect(step.with).toMatchObject({ 'persist-credentials': false })
  })
})

test('comments start runs only when created, and labels only when applied', () => {
  expect(load('ralph-on-comment.yml').on).toEqual({
    issue_comment: { types: ['created'] },
    issues: { types: ['labeled'] }
  })
})

test('the fan-out takes its matrix from the list job and skips an empty one', () => {
  const hunt = (load('matrix-fan-out.yml').jobs as Record<string, Json>).hunt
  expect(hunt.needs).toBe('list')
  expect(hunt.if).toBe("needs.list.outputs.count != '0'")
  expect(hunt.strategy).toMatchObject({
    'fail-fast': false,
    matrix: '${{ fromJSON(needs.list.outputs.matrix) }}'
  })
})

test('the nightly hunt runs the bug-hunter example with a cap and a failure report', () => {
  const step = steps((load('nightly-bug-hunt.yml').jobs as Record<string, Json>).hunt).find(
    s => s.uses === 'org/ralph-action@v1'
  )
  expect(step?.with).toMatchObject({ ralph: 'bug-hunter', 'max-open-prs': 3, 'report-issue': true })
})

test('the comment workflow shows both forms: a ralph-less loop (agent, prompt, checks) and a default ralph', () => {
  const raw = readFileSync(path.join(DIR, 'ralph-on-comment.yml'), 'utf8')
  const step = steps((load('ralph-on-comment.yml').jobs as Record<string, Json>).ralph).find(
    s => s.uses === 'org/ralph-action@v1'
  )
  expect(step?.with).toMatchObject({
    agent: expect.any(String),
    prompt: expect.any(String),
    checks: expect.any(String)
  })
  expect(step?.with).not.toHaveProperty('ralph')
  expect(raw).toMatch(
    /^\s+# - with a default ralph: replace agent, prompt and checks with `ralph: fix-tests`/m
  )
})

test('the comment workflow queues only requests: its concurrency group is on the job that filters them', () => {
  const wf = load('ralph-on-comment.yml')
  expect(wf.concurrency).toBeUndefined()
  for (const [, job] of jobs(wf)) {
    expect(String(job.if)).toContain("startsWith(github.event.comment.body, '/ralph')")
    expect(job.concurrency).toMatchObject({ group: 'ralph-issue-${{ github.event.issue.number }}' })
  }
})

test('the two-job comment workflow queues only requests, both jobs of each: other comments get a group of their own', () => {
  const wf = load('ralph-on-comment-two-jobs.yml')
  for (const [, job] of jobs(wf)) expect(job.concurrency).toBeUndefined()
  const group = String((wf.concurrency as Json).group)
  expect(group).toMatch(
    /^\$\{\{ \(\(github\.event_name == 'issue_comment' && startsWith\(github\.event\.comment\.body, '\/ralph'\)\) \|\|/
  )
  expect(group).toMatch(
    /&& format\('ralph-issue-\{0\}', github\.event\.issue\.number\) \|\| format\('[a-z-]+-\{0\}', github\.run_id\) \}\}$/
  )
  // The same filter as the agent job's `if:`, so a request and its group agree.
  const agentIf = String((wf.jobs as Record<string, Json>).agent.if)
  expect(group.replace(/\s+/g, ' ')).toContain(`\${{ (${agentIf.replace(/\s+/g, ' ')}) &&`)
})

test('the long loop goes on in runs of its own: resume from its dispatch input, one group per branch, a job for max-time', () => {
  const wf = load('long-loop.yml')
  expect(wf.on).toEqual({
    workflow_dispatch: {
      inputs: { resume: { description: expect.any(String), required: false, default: '' } }
    }
  })
  expect(wf.permissions).toEqual({ contents: 'write', 'pull-requests': 'write', actions: 'write' })
  const job = (wf.jobs as Record<string, Json>).ralph
  const step = steps(job).find(s => s.uses === 'org/ralph-action@v1')
  const given = step?.with as Json
  expect(given).toMatchObject({ 'continue-jobs': 4, resume: '${{ inputs.resume }}' })
  for (const cap of ['max-time', 'max-iterations', 'max-cost']) expect(given).toHaveProperty(cap)
  // Continuation is one job's (mode run) and hands over through the record.
  expect(given.mode ?? 'run').toBe('run')
  expect(given['upload-artifacts'] ?? true).not.toBe(false)
  // The group is the loop's branch, so the run it dispatches waits for it instead of racing it.
  expect((wf.concurrency as Json).group).toBe(`ralph-branch-${String(given.branch)}`)
  // The job outlives max-time (its delivery and hand-over are inside it) by the steps before the action.
  expect(given['max-time']).toBe('5h')
  expect(job['timeout-minutes']).toBeGreaterThan(5 * 60)
  expect(job['timeout-minutes']).toBeLessThanOrEqual(360)
})

test('only the long loop asks for actions: write, the one example whose loop continues', () => {
  const continuing = FILES.filter(file => jobs(load(file)).some(([, job]) => continueJobs(job) > 1))
  const dispatching = FILES.filter(file => {
    const wf = load(file)
    return jobs(wf).some(([, job]) => ((job.permissions ?? wf.permissions) as Json).actions === 'write')
  })
  expect(continuing).toEqual(['long-loop.yml'])
  expect(dispatching).toEqual(['long-loop.yml'])
})
