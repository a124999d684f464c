// A failing CI run on the action's own pull request continues its loop: each decision tested by the table
// where it is made, then admitCiFailure against the OpenAPI-checked stand-in (jobs, and logs from the blob
// store the API redirects to), and the real loop given the task as the action gives it.
import path from 'node:path'
import type { TokenActor } from '../../src/github/own-work.js'
import type { OpenPullRequest } from '../../src/github/pulls.js'
import { PULL_REQUEST_MARKER } from '../../src/report/pr-body.js'
import { admitCiFailure, ciAsks, pullVerdict, watches } from '../../src/trigger/ci-round.js'
import { spentReply } from '../../src/action/budget.js'
import { parseTriggerEvent, type WorkflowRunTrigger } from '../../src/trigger/event.js'
import { capNotice, ciKey, roundMarker, type FixRoundSettings } from '../../src/trigger/fix-rounds.js'
import type { Admission, Run } from '../../src/trigger/types.js'
import type { WorkflowRunRecord } from '../support/github-api/index.js'
import { world, type World } from './world.js'

const BOT: TokenActor = { kind: 'app', login: 'github-actions[bot]' }
const SHA = 'c0ffee0000000000000000000000000000000001'

// --- the decisions, by the table ---

function trigger(fields: Partial<WorkflowRunTrigger['run']> & { action?: string } = {}): WorkflowRunTrigger {
  const { action = 'completed', ...run } = fields
  return {
    name: 'workflow_run',
    action,
    run: {
      id: 5,
      workflow: 'CI',
      path: '.github/workflows/ci.yml',
      event: 'pull_request',
      conclusion: 'failure',
      headBranch: 'ralph/issue-1',
      headSha: SHA,
      headRepo: 'acme/widgets',
      runNumber: 34,
      runAttempt: 1,
      url: 'https://github.com/acme/widgets/actions/runs/5',
      ...run
    },
    sender: 'github-actions[bot]'
  }
}

describe('watches: ci-fix names a workflow by its name, its file or its path', () => {
  const run = { workflow: 'CI', path: '.github/workflows/ci.yml' }
  test.each<[string[], boolean]>([
    [['CI'], true],
    [['ci'], true],
    [['ci.yml'], true],
    [['.github/workflows/ci.yml'], true],
    [['  CI  '], true],
    [['lint', 'CI'], true],
    [[], false],
    [[''], false],
    [['CI tests'], false],
    [['CI.yml'], false],
    [['workflows/ci.yml'], false],
    [['*'], false]
  ])('%j → %s', (ciFix, expected) => {
    expect(watches(ciFix, run)).toBe(expected)
  })
})

describe('ciAsks: what the event alone says', () => {
  const settings = { owner: 'acme', repo: 'widgets', ciFix: ['CI'] }
  test.each<[string, Parameters<typeof trigger>[0], Partial<typeof settings>, RegExp | undefined]>([
    ['a failure of a watched workflow on a branch here', {}, {}, undefined],
    ['a time-out', { conclusion: 'timed_out' }, {}, undefined],
    ["this repository's name in another case", { headRepo: 'Acme/Widgets' }, {}, undefined],
    ['a run that is only requested', { action: 'requested' }, {}, /is requested; only a completed run/],
    ['a run in progress', { action: 'in_progress' }, {}, /is in_progress/],
    ['a success', { conclusion: 'success' }, {}, /ended in success; only a failure or a time-out/],
    ['a cancelled run', { conclusion: 'cancelled' }, {}, /ended in cancelled/],
    ['a startup failure', { conclusion: 'startup_failure' }, {}, /ended in startup_failure/],
    ['no ci-fix (the default)', {}, { ciFix: [] }, /^ci-fix names no workflow/],
    [
      'a workflow ci-fix does not name',
      { workflow: 'Lint', path: '.github/workflows/lint.yml' },
      {},
      /ci-fix does not name the workflow "Lint"/
    ],
    ["a fork's commit", { headRepo: 'mallory/widgets' }, {}, /ran on a fork's commit \(mallory\/widgets\)/],
    ['a deleted head repository', { headRepo: '' }, {}, /a deleted repository/],
    ['no branch (a tag)', { headBranch: '' }, {}, /ran on no branch/]
  ])('%s', (_what, fields, overrides, reason) => {
    const asked = ciAsks(trigger(fields), { ...settings, ...overrides })
    if (reason === undefined) expect(asked).toBeUndefined()
    else expect(asked).toEqual({ kind: 'skip', reason: expect.stringMatching(reason) })
  })
})

describe("pullVerdict: the action's open pull request, still at the commit that failed", () => {
  const pull: OpenPullRequest = {
    number: 7,
    url: 'u',
    nodeId: 'n',
    title: 't',
    body: PULL_REQUEST_MARKER,
    head: 'ralph/issue-1',
    headSha: SHA,
    base: 'main',
    draft: false,
    user: { login: 'github-actions[bot]', type: 'Bot' }
  }
  const facts = { ours: true, headBranch: 'ralph/issue-1', headSha: SHA }
  test.each<[string, OpenPullRequest | undefined, Partial<typeof facts>, RegExp | undefined]>([
    ["the action's, at the commit", pull, {}, undefined],
    ['the commit in upper case', pull, { headSha: SHA.toUpperCase() }, undefined],
    ['no open pull request', undefined, {}, /no open pull request of this repository has ralph\/issue-1/],
    [
      "a person's",
      { ...pull, user: { login: 'alice' } },
      { ours: false },
      /is not the action's own \(it is alice's\)/
    ],
    [
      'moved on since',
      { ...pull, headSha: 'f'.repeat(40) },
      {},
      /has moved on to ffffffffffff since this run's commit c0ffee000000/
    ]
  ])('%s', (_what, given, overrides, reason) => {
    const verdict = pullVerdict(given, { ...facts, ...overrides })
    if (reason === undefined) expect(verdict).toBe(given)
    else expect(verdict).toEqual({ kind: 'skip', reason: expect.stringMatching(reason) })
  })
})

// --- admitCiFailure against the stand-in ---

let w: World
let settings: FixRoundSettings

beforeEach(async () => {
  w = await world()
  w.api.state.addUser('alice', { role: 'write' })
  w.api.state.addWorkflow({ path: '.github/workflows/ci.yml', name: 'CI' })
  settings = {
    ...w.settings,
    defaultRalph: path.join(w.repo.dir, '.agents/ralphs/fix-tests'),
    delivery: {
      actor: async () => BOT,
      committerEmail: '41898282+github-actions[bot]@users.noreply.github.com'
    },
    commenter: async () => BOT,
    maxFixRounds: 3,
    ciFix: ['CI']
  }
})
afterEach(async () => {
  w.expectClean()
  await w.close()
})

const T = '2026-01-05T10:00:00.1234567Z '
const LOG = [
  '##[group]Run npm test',
  'npm test',
  '##[endgroup]',
  '  ✗ parses the last row',
  '    expected 3 rows, got 2',
  '##[error]Process completed with exit code 1.',
  'Post job cleanup.',
  '[command]/usr/bin/git version'
]
  .map(line => T + line)
  .join('\n')

function ourPull(fields: { user?: string; head?: string } = {}) {
  const head = fields.head ?? 'ralph/issue-1'
  w.api.state.branches.set(head, SHA)
  return w.api.state.addPull({
    title: 'ralph: fix the parser',
    head,
    user: fields.user ?? 'github-actions[bot]',
    body: `${PULL_REQUEST_MARKER}\nWhat the loop did.`
  })
}

function failedRun(fields: Partial<WorkflowRunRecord> = {}) {
  const run = w.api.state.addRun({
    workflowPath: '.github/workflows/ci.yml',
    headBranch: 'ralph/issue-1',
    headSha: SHA,
    event: 'pull_request',
    status: 'completed',
    conclusion: 'failure',
    ...fields
  })
  w.api.state.addJob(run.id, {
    name: 'test (ubuntu-latest, 20)',
    steps: [
      { name: 'Set up job', conclusion: 'success' },
      { name: 'Run npm test', conclusion: 'failure' }
    ],
    log: LOG
  })
  w.api.state.addJob(run.id, { name: 'lint', conclusion: 'success', log: 'fine' })
  return run
}

const admit = (runId: number, overrides: Partial<FixRoundSettings> = {}): Promise<Admission> =>
  admitCiFailure(
    parseTriggerEvent('workflow_run', w.api.events.workflowRun(runId)) as WorkflowRunTrigger,
    { ...settings, ...overrides },
    w.octokit
  )

const comments = (number: number) => w.api.state.comments.filter(c => c.issueNumber === number)

test("a failing run on the action's pull request: a round on its branch; the failing job's log tail is in the prompt", async () => {
  const pull = ourPull()
  const run = failedRun()
  const plan = await admit(run.id)
  expect(plan).toMatchObject({
    kind: 'run',
    event: 'workflow_run',
    ralphName: 'fix-tests',
    args: {},
    branch: 'ralph/issue-1',
    continueBranch: true,
    issueNumber: pull.number,
    pr: { number: pull.number, headRef: 'ralph/issue-1', headSha: SHA, baseRef: 'main', sameRepo: true },
    taskSource: `CI run ${run.id} on pull request #${pull.number}`,
    round: {
      kind: 'ci',
      key: ciKey(SHA),
      number: 1,
      max: 3,
      pullNumber: pull.number,
      runId: run.id,
      workflow: 'CI',
      conclusion: 'failure',
      headSha: SHA,
      failedJobs: [{ name: 'test (ubuntu-latest, 20)' }]
    }
  })
  expect(plan).not.toHaveProperty('actor')
  await w.execute(plan)
  const [prompt] = w.prompts()
  expect(prompt).toContain('Fix the tests.')
  expect(prompt).toContain('## CI failed on pull request #')
  expect(prompt).toContain(
    '### Job `test (ubuntu-latest, 20)`: failed\n\nFailed step: `Run npm test` (step 2)'
  )
  expect(prompt).toContain(
    '```text\nRun npm test\nnpm test\n  ✗ parses the last row\n    expected 3 rows, got 2\nError: Process completed with exit code 1.\n```'
  )
  expect(prompt).not.toMatch(/##\[|2026-01-05T|Post job cleanup|lint/)
  // The log came from the blob store, without the token.
  expect(w.api.state.logDownloads).toEqual([expect.objectContaining({ authorization: false, status: 200 })])
  expect(comments(pull.number)).toEqual([])
})

test.each<[string, string[], Partial<WorkflowRunRecord>]>([
  ['by its file name', ['ci.yml'], {}],
  ['by its path', ['.github/workflows/ci.yml'], {}],
  ['a time-out', ['CI'], { conclusion: 'timed_out' }]
])('a watched workflow (%s) starts a round', async (_what, ciFix, fields) => {
  ourPull()
  expect((await admit(failedRun(fields).id, { ciFix })).kind).toBe('run')
})

test("a failing run on a person's branch, on a branch with no pull request, on a fork, or of an unwatched workflow: nothing", async () => {
  ourPull({ user: 'alice' })
  expect(await admit(failedRun().id)).toMatchObject({
    kind: 'skip',
    reason: expect.stringMatching(/not the action's own \(it is alice's\)/)
  })
  expect(await admit(failedRun({ headBranch: 'feature/x' }).id)).toMatchObject({
    kind: 'skip',
    reason: expect.stringMatching(/no open pull request of this repository has feature\/x/)
  })
  expect(await admit(failedRun({ headRepository: 'mallory/widgets' }).id)).toMatchObject({
    kind: 'skip',
    reason: expect.stringMatching(/fork's commit/)
  })
  expect(await admit(failedRun().id, { ciFix: [] })).toMatchObject({
    kind: 'skip',
    reason: expect.stringMatching(/^ci-fix names no workflow/)
  })
  expect(await admit(failedRun({ conclusion: 'success' }).id)).toMatchObject({ kind: 'skip' })
  expect(w.agentRan()).toBe(false)
  expect(w.api.state.comments).toEqual([])
})

test("a marker copied into a person's pull request body does not make it the action's", async () => {
  w.api.state.branches.set('feature/y', SHA)
  w.api.state.addPull({ title: 'mine', head: 'feature/y', user: 'alice', body: PULL_REQUEST_MARKER })
  expect((await admit(failedRun({ headBranch: 'feature/y' }).id)).kind).toBe('skip')
})

test('a pull request that moved on since the failing commit is left to its next CI run', async () => {
  ourPull()
  const run = failedRun({ headSha: 'b'.repeat(40) })
  expect(await admit(run.id)).toMatchObject({
    kind: 'skip',
    reason: expect.stringMatching(/has moved on to c0ffee000000/)
  })
})

test('a CI failure counts once per commit: a second workflow, or a re-run, failing on it starts nothing', async () => {
  const pull = ourPull()
  expect((await admit(failedRun().id)).kind).toBe('run')
  // The round posted its summary: the commit is answered.
  w.api.state.addComment(pull.number, {
    body: `${roundMarker({ key: ciKey(SHA) })}\nCI round 1`,
    user: 'github-actions[bot]'
  })
  w.api.state.addWorkflow({ path: '.github/workflows/lint.yml', name: 'Lint' })
  const lint = failedRun({ runAttempt: 2 })
  expect(await admit(lint.id, { ciFix: ['CI', 'Lint'] })).toMatchObject({
    kind: 'skip',
    reason: expect.stringMatching(/^the CI failure on commit c0ffee000000 was answered already/)
  })
})

test('the fourth CI round on one pull request: refused, with one comment; the fifth is quiet', async () => {
  const pull = ourPull()
  for (const key of ['ci-aa', 'ci-bb', 'review-3'])
    w.api.state.addComment(pull.number, { body: roundMarker({ key }), user: 'github-actions[bot]' })
  const fourth = await admit(failedRun().id)
  expect(fourth).toMatchObject({ kind: 'refuse', issueNumber: pull.number, reply: capNotice(3, 3) })
  await w.execute(fourth)
  const fifth = await admit(failedRun().id)
  expect(fifth).toMatchObject({ kind: 'skip' })
  await w.execute(fifth)
  expect(
    comments(pull.number).filter(c => c.body.includes('<!-- ralph-action:fix-rounds-cap -->'))
  ).toHaveLength(1)
  expect(w.agentRan()).toBe(false)
})

test("the budget spent is said once on the pull request: the next CI round reads the action's line back and says nothing; a person's copy of it does not count", async () => {
  const pull = ourPull()
  const line = "The repository's budget of $1/day is spent. No agent ran."
  w.api.state.addComment(pull.number, {
    body: `<!-- ralph-action:budget-spent -->\n${line}`,
    user: 'mallory'
  })
  const first = (await admit(failedRun().id)) as Run
  expect(first.round).toMatchObject({ kind: 'ci', said: [] })
  const reply = spentReply(line, first)
  expect(reply).toContain(line)
  // No agent ran, so no round's summary: the same commit's next failing workflow is admitted again.
  w.api.state.addComment(pull.number, { body: reply ?? '', user: 'github-actions[bot]' })
  const second = (await admit(failedRun().id)) as Run
  expect(second.round).toMatchObject({ kind: 'ci', number: 1, said: ['budget'] })
  expect(spentReply(line, second)).toBeUndefined()
})

test('a log that cannot be read is said in the task; jobs that cannot be listed (no actions: read) fail the step, saying why', async () => {
  ourPull()
  const run = failedRun()
  w.api.state.jobs[0].log = undefined
  const plan = (await admit(run.id)) as Run
  expect(plan.kind).toBe('run')
  expect(plan.task).toContain('(Its log could not be read: HTTP 404.)')
  w.api.state.actionsPermission.set('ghs_actions_token', 'none')
  expect(await admit(failedRun().id)).toEqual({
    kind: 'refuse',
    reason: expect.stringMatching(
      /the jobs of run \d+ could not be read \(HTTP 403: the job token needs `actions: read`\)/
    ),
    unchecked: true
  })
})
