// Rounds (issue #39) whose loop runs as more than one job, through dist as the workflow runs it: a review or CI
// round in two jobs (the agent job writes nothing; the deliver job pushes, replies and counts the round once), a
// round that runs out of max-time in a chained workflow (never handed on: unverified work is not pushed onto the
// pull request between jobs), and a review of a pull request a chain of jobs opened.
import { expect, test } from '@jest/globals'
import { chain, chainFiles, slowAgent } from './chain.js'
import { agentScript, DONE, FIX, projectFiles } from './fixtures.js'
import { AGENT_JOB_TOKEN, GITHUB_TOKEN, runAction, type Project } from './harness.js'
import { e2eSuite } from './suite.js'
import { twoJobs } from './two-jobs.js'
import type { ReviewCommentSeed } from '../support/github-api/index.js'
import { actionsPull, OWN_BRANCH } from '../support/pull-requests.js'

const e2e = e2eSuite()
const { project, expectClean } = e2e
const { newRunId, agentJob, deliverJob } = twoJobs(e2e, 7_700_000_000)
const { firstJob, dispatched, resumedJob } = chain(e2e, 7_800_000_000)

const fixing = agentScript({ 1: `${FIX}\n${DONE}` })

/** The summary comments that count rounds on pull request `number`. */
const roundComments = (p: Project, number: number) =>
  p.api.state.comments.filter(c => c.issueNumber === number && c.body.includes('ralph-action:fix-round'))

/** alice, a writer, requests changes on the action's pull request: it, its branch's tip before, and the review. */
function changesRequested(p: Project, fields: { body?: string; comments: ReviewCommentSeed[] }) {
  p.api.state.addUser('alice', { role: 'write' })
  const pull = actionsPull(p)
  const tip = p.remoteGit('rev-parse', OWN_BRANCH).trim()
  const review = p.api.state.addReview(pull.number, { user: 'alice', state: 'CHANGES_REQUESTED', ...fields })
  return { pull, tip, review }
}

test("a writer's review in two jobs: the agent job writes nothing; the deliver job pushes onto the pull request's branch, replies in each thread and counts the round once", async () => {
  const p = await project(projectFiles(fixing), { token: AGENT_JOB_TOKEN })
  const { pull, tip, review } = changesRequested(p, {
    body: 'Make it add.',
    comments: [
      { path: 'calc.js', line: 2, body: 'This subtracts.' },
      { path: 'calc.test.js', line: 5, body: 'Keep this test.' }
    ]
  })
  const trigger = { eventName: 'pull_request_review', event: p.api.events.pullRequestReview(review.id) }
  const runId = newRunId()

  const agent = await agentJob(p, runId, trigger)
  expect(agent.main.exitCode).toBe(0)
  expect(agent.outputs).toMatchObject({ success: 'true', 'pr-operation': 'none' })
  expect(agent.outputs.delivery).toBe(`ralph-delivery-fix-tests-${runId}-1`)
  expect(p.api.writesBy(AGENT_JOB_TOKEN)).toEqual([])
  expect(p.gitServer.pushAttemptsBy(AGENT_JOB_TOKEN)).toEqual([])
  expect(p.remoteGit('rev-parse', OWN_BRANCH).trim()).toBe(tip)
  expect(p.api.state.comments).toEqual([])

  const deliver = await deliverJob(p, runId, agent.outputs.delivery, trigger)
  expect(deliver.main.exitCode).toBe(0)
  const commit = p.remoteGit('rev-parse', OWN_BRANCH).trim()
  expect(commit).toBe(agent.outputs.commit)
  expect(p.remoteGit('rev-parse', `${commit}~1`).trim()).toBe(tip)
  expect(deliver.outputs).toMatchObject({
    branch: OWN_BRANCH,
    commit,
    verified: 'true',
    'pr-operation': 'updated',
    'pr-number': String(pull.number)
  })
  expect(p.api.state.pulls).toHaveLength(1)
  const replies = p.api.state.reviewComments.filter(c => c.inReplyToId !== undefined)
  expect(replies.map(r => r.inReplyToId).sort()).toEqual(review.comments.map(c => c.id).sort())
  for (const reply of replies) expect(reply.body).toContain(commit.slice(0, 12))
  const summaries = roundComments(p, pull.number)
  expect(summaries).toHaveLength(1)
  expect(summaries[0].body).toContain(`key=review-${review.id}`)
  expect(summaries[0].user).toBe('github-actions[bot]')

  // The workflow re-run: both jobs again. The review was answered, so neither runs anything.
  const again = newRunId()
  const agentAgain = await agentJob(p, again, trigger)
  expect(agentAgain.main.exitCode).toBe(0)
  expect(agentAgain.outputs.delivery ?? '').toBe('')
  const deliverAgain = await deliverJob(p, again, '', trigger)
  expect(deliverAgain.main.exitCode).toBe(0)
  expect(p.remoteGit('rev-parse', OWN_BRANCH).trim()).toBe(commit)
  expect(roundComments(p, pull.number)).toHaveLength(1)
  expectClean(p)
})

test("a failing CI run in two jobs: the deliver job pushes the fix onto the action's pull request and names the run in its summary", async () => {
  const p = await project(projectFiles(fixing), { token: AGENT_JOB_TOKEN })
  const pull = actionsPull(p)
  const ci = p.api.state.addRun({
    workflowPath: '.github/workflows/ci.yml',
    headBranch: OWN_BRANCH,
    headSha: p.remoteGit('rev-parse', OWN_BRANCH).trim(),
    event: 'pull_request',
    status: 'completed',
    conclusion: 'failure'
  })
  p.api.state.addJob(ci.id, {
    name: 'test',
    steps: [{ name: 'Run npm test', conclusion: 'failure' }],
    log: 'not ok 1 - add returns the sum\n##[error]Process completed with exit code 1.'
  })
  const trigger = {
    eventName: 'workflow_run',
    event: p.api.events.workflowRun(ci.id),
    inputs: { 'ci-fix': 'ci.yml' }
  }
  const runId = newRunId()
  const agent = await agentJob(p, runId, trigger)
  expect(agent.main.exitCode).toBe(0)
  expect(p.api.writesBy(AGENT_JOB_TOKEN)).toEqual([])
  const deliver = await deliverJob(p, runId, agent.outputs.delivery, trigger)
  expect(deliver.main.exitCode).toBe(0)
  const commit = p.remoteGit('rev-parse', OWN_BRANCH).trim()
  expect(deliver.outputs).toMatchObject({
    commit,
    'pr-operation': 'updated',
    'pr-number': String(pull.number)
  })
  const summaries = roundComments(p, pull.number)
  expect(summaries).toHaveLength(1)
  expect(summaries[0].body).toContain(`key=ci-${ci.headSha}`)
  expect(summaries[0].body).toContain(commit.slice(0, 12))
  expectClean(p)
})

test('a review round that runs out of max-time in a chained workflow is not handed on: no dispatch, nothing pushed onto the pull request, the summary says so', async () => {
  const agent = slowAgent(e2e.scratch(), 'round-timeout', 'always')
  const p = await project(chainFiles(agent.script, 2))
  const { pull, tip, review } = changesRequested(p, {
    comments: [{ path: 'check.mjs', line: 2, body: 'Fix both.' }]
  })
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'continue-jobs': '3', 'max-time': '20s', 'completion-tag': 'none' },
    eventName: 'pull_request_review',
    event: p.api.events.pullRequestReview(review.id)
  })
  expect(run.outputs).toMatchObject({ 'stop-reason': 'timeout', continued: 'false', 'pr-operation': 'none' })
  expect(agent.saw().map(s => s.did)).toEqual(['fixed-1', 'slept'])
  expect(p.api.state.dispatches).toEqual([])
  expect(p.remoteGit('rev-parse', OWN_BRANCH).trim()).toBe(tip)
  expect(run.main.stdout).toMatch(
    /The loop does not go on in another run: a loop on a pull request's branch does not go on in another run/
  )
  const [summary] = roundComments(p, pull.number)
  expect(summary.body).toMatch(/Nothing was pushed onto this pull request's branch/)
  expect(p.api.state.reviewComments.filter(c => c.inReplyToId !== undefined)).toEqual([])
  expectClean(p)
})

test('a review of a pull request a chain of jobs opened: the round runs on its branch and updates it, one pull request', async () => {
  const agent = slowAgent(e2e.scratch(), 'chain-then-review', 'once')
  const p = await e2e.project(chainFiles(agent.script, 2), { api: { artifacts: e2e.stand().artifacts } })
  const chained = { 'continue-jobs': '3', 'max-time': '20s', 'completion-tag': 'none' }
  const { job: first } = await firstJob(p, { inputs: chained })
  expect(first.outputs.continued).toBe('true')
  const { dispatch, run: b } = dispatched(p)
  const { job: second } = await resumedJob(p, b, dispatch.inputs, {
    inputs: { ...chained, 'max-time': '3m' }
  })
  expect(second.outputs['pr-operation']).toBe('created')
  const [pull] = p.api.state.pulls
  const opened = p.remoteGit('rev-parse', pull.head).trim()

  p.api.state.addUser('alice', { role: 'write' })
  const review = p.api.state.addReview(pull.number, {
    user: 'alice',
    state: 'CHANGES_REQUESTED',
    body: 'One more fix, please.',
    comments: [{ path: 'check.mjs', line: 2, body: 'And a third.' }]
  })
  const round = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', ...chained, 'max-time': '3m' },
    eventName: 'pull_request_review',
    event: p.api.events.pullRequestReview(review.id)
  })
  expect(round.main.exitCode).toBe(0)
  const commit = p.remoteGit('rev-parse', pull.head).trim()
  expect(round.outputs).toMatchObject({
    branch: pull.head,
    commit,
    'pr-operation': 'updated',
    'pr-number': String(pull.number),
    continued: 'false'
  })
  p.remoteGit('merge-base', '--is-ancestor', opened, commit)
  expect(agent.saw().at(-1)).toMatchObject({ seen: ['fixed-1', 'fixed-2'], did: 'fixed-3' })
  expect(p.api.state.pulls).toHaveLength(1)
  expect(p.api.state.dispatches).toHaveLength(1)
  const [reply] = p.api.state.reviewComments.filter(c => c.inReplyToId !== undefined)
  expect(reply.body).toContain(commit.slice(0, 12))
  expect(roundComments(p, pull.number)).toHaveLength(1)
  expect(p.gitServer.pushAttemptsBy(GITHUB_TOKEN).length).toBeGreaterThan(0)
  expectClean(p)
})
