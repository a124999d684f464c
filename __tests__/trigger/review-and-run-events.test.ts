// The two events rounds start from, parsed from the stand-in's payloads (each checked against GitHub's
// webhook schema): a review submitted on a pull request, and a workflow run that completed.
import { admitEvent } from '../../src/trigger/admission.js'
import { parseTriggerEvent } from '../../src/trigger/event.js'
import type { TokenActor } from '../../src/github/own-work.js'
import { checkEventPayload } from '../support/github-api/index.js'
import { useWorld } from './world.js'

const w = useWorld(world => world.api.state.addUser('alice', { role: 'write' }))

test('a submitted review: its id, body (none is empty), state as the webhook spells it, author, commit, and its pull request', () => {
  const pull = w.api.state.addPull({
    title: 'ralph: fix',
    head: 'ralph/issue-1',
    user: 'github-actions[bot]',
    body: 'b'
  })
  const review = w.api.state.addReview(pull.number, { user: 'alice', state: 'CHANGES_REQUESTED' })
  const payload = w.api.events.pullRequestReview(review.id)
  expect(checkEventPayload('pull-request-review-submitted', payload)).toEqual([])
  expect(parseTriggerEvent('pull_request_review', payload)).toEqual({
    name: 'pull_request_review',
    action: 'submitted',
    from: { login: 'alice', type: 'User' },
    review: {
      id: review.id,
      body: '',
      state: 'changes_requested',
      author: 'alice',
      authorType: 'User',
      commitId: pull.headSha
    },
    pull: {
      number: pull.number,
      title: 'ralph: fix',
      body: 'b',
      author: 'github-actions[bot]',
      authorType: 'Bot',
      head: { ref: 'ralph/issue-1', sha: pull.headSha, repo: 'acme/widgets' },
      base: { ref: 'main' }
    },
    sender: 'alice'
  })
})

test('a completed workflow run: its workflow by name and file, conclusion, head branch, commit and repository', () => {
  const run = w.api.state.addRun({
    workflowPath: '.github/workflows/ci.yml',
    headBranch: 'ralph/issue-1',
    event: 'pull_request',
    status: 'completed',
    conclusion: 'timed_out',
    headRepository: 'mallory/widgets',
    runAttempt: 2
  })
  const payload = w.api.events.workflowRun(run.id)
  expect(checkEventPayload('workflow-run-completed', payload)).toEqual([])
  expect(parseTriggerEvent('workflow_run', payload)).toEqual({
    name: 'workflow_run',
    action: 'completed',
    from: { login: 'github-actions[bot]', type: 'Bot' },
    run: {
      id: run.id,
      workflow: 'ci.yml',
      path: '.github/workflows/ci.yml',
      event: 'pull_request',
      conclusion: 'timed_out',
      headBranch: 'ralph/issue-1',
      headSha: run.headSha,
      headRepo: 'mallory/widgets',
      runNumber: 1,
      runAttempt: 2,
      url: `https://github.com/acme/widgets/actions/runs/${run.id}`
    },
    sender: 'github-actions[bot]'
  })
})

test('a payload without what the kind needs is unsupported; a pull_request event parses as before', () => {
  expect(parseTriggerEvent('pull_request_review', { action: 'submitted', review: {} })).toEqual({
    name: 'unsupported',
    eventName: 'pull_request_review'
  })
  expect(parseTriggerEvent('workflow_run', { action: 'completed' })).toEqual({
    name: 'unsupported',
    eventName: 'workflow_run'
  })
  const pull = w.api.state.addPull({ title: 'PR', head: 'feature' })
  expect(parseTriggerEvent('pull_request', w.api.events.pullRequest(pull.number, 'opened'))).toMatchObject({
    name: 'pull_request',
    number: pull.number,
    head: { ref: 'feature', repo: 'acme/widgets' },
    base: { ref: 'main' },
    sender: 'acme'
  })
})

test('admitEvent hands both events to their own rules, before the bot rule that skips a bot-sent event', async () => {
  const pull = w.api.state.addPull({ title: 'PR', head: 'feature' })
  const review = w.api.state.addReview(pull.number, { user: 'alice', state: 'CHANGES_REQUESTED' })
  const commenter = (): Promise<TokenActor> => Promise.resolve({ kind: 'app', login: 'github-actions[bot]' })
  const rounds = { ...w.settings, defaultRalph: 'fix-tests', commenter }
  expect(
    await admitEvent(
      { eventName: 'pull_request_review', payload: w.api.events.pullRequestReview(review.id) },
      rounds,
      w.octokit
    )
  ).toMatchObject({
    kind: 'skip',
    reason: expect.stringMatching(/^pull request #\d+ is not the action's own/)
  })
  const run = w.api.state.addRun({
    workflowPath: '.github/workflows/ci.yml',
    status: 'completed',
    conclusion: 'failure'
  })
  // The stand-in's workflow_run is sent by github-actions[bot]: the CI rule decides it, not the bot rule.
  const payload = w.api.events.workflowRun(run.id)
  expect(await admitEvent({ eventName: 'workflow_run', payload }, rounds, w.octokit)).toMatchObject({
    kind: 'skip',
    reason: expect.stringMatching(/^ci-fix names no workflow/)
  })
  expect(
    await admitEvent({ eventName: 'workflow_run', payload }, { ...rounds, ciFix: ['ci.yml'] }, w.octokit)
  ).toMatchObject({
    kind: 'skip',
    reason: expect.stringMatching(/^no open pull request of this repository has main as its branch/)
  })
  // Without an account to comment as, no round can be counted: refused, never run.
  expect(await admitEvent({ eventName: 'workflow_run', payload }, w.settings, w.octokit)).toMatchObject({
    kind: 'refuse',
    reason: expect.stringMatching(/needs the account the action comments as/)
  })
})
