// Rounds on the action's own pull request, run as the runner runs the action: a writer's review, or a failing
// run of a workflow ci-fix names, continues the loop on that pull request's branch, the review (or the failing
// job's log tail) fenced as data in the prompt; verified work is pushed onto the same branch, each line comment
// gets a reply naming the commit, and one summary comment counts the round. Everything else runs nothing.
import { expect, test } from '@jest/globals'
import { DONE, projectFiles } from './fixtures.js'
import { runAction } from './harness.js'
import { rounds } from './rounds.js'
import { e2eSuite } from './suite.js'
import {
  OWN_BRANCH as BRANCH,
  OWN_MARKER as MARKER,
  actionsPull,
  nothingToDo as said,
  personsPull
} from '../support/pull-requests.js'

const e2e = e2eSuite()
const { project, expectClean } = e2e

const { promptKeeper, failedRun, onReview } = rounds(e2e)

test("a writer's review with two line comments: both in the prompt with file and line, the fix pushed onto the same branch, two replies naming the commit, one pull request", async () => {
  const agent = promptKeeper()
  const p = await project(projectFiles(agent.script))
  p.api.state.addUser('alice', { role: 'write' })
  const pull = actionsPull(p)
  const { review, run } = await onReview(p, pull.number, {
    user: 'alice',
    state: 'CHANGES_REQUESTED',
    body: 'Two things before this merges.',
    comments: [
      { path: 'calc.js', line: 2, body: 'This subtracts: make it add.' },
      { path: 'calc.test.js', startLine: 5, line: 7, body: 'Keep this test as it is.' }
    ]
  })
  expect(run.main.exitCode).toBe(0)

  const prompt = agent.prompt()
  expect(prompt).toContain('This subtracts: make it add.')
  expect(prompt).toMatch(/calc\.js[^\n]*line 2 of the new code/)
  expect(prompt).toContain('Keep this test as it is.')
  expect(prompt).toMatch(/calc\.test\.js[^\n]*lines 5–7 of the new code/)
  // Fenced as data, as an issue's task is.
  expect(prompt).toMatch(/<<<TASK [0-9a-f]+>>>[\s\S]*This subtracts[\s\S]*<<<END TASK [0-9a-f]+>>>/)

  const commit = p.remoteGit('rev-parse', BRANCH).trim()
  expect(p.remoteGit('show', `${BRANCH}:calc.js`)).toContain('a + b')
  expect(run.outputs).toMatchObject({
    branch: BRANCH,
    commit,
    verified: 'true',
    'pr-operation': 'updated',
    'pr-number': String(pull.number)
  })
  expect(p.api.state.pulls).toHaveLength(1)

  const [first, second] = review.comments
  const replies = p.api.state.reviewComments.filter(c => c.inReplyToId !== undefined)
  expect(replies.map(r => r.inReplyToId).sort()).toEqual([first.id, second.id].sort())
  for (const reply of replies) expect(reply.body).toContain(commit.slice(0, 12))
  // Nothing is resolved unless resolve-threads says so.
  expect(p.api.state.reviewThreads.filter(t => t.resolved)).toEqual([])

  const summaries = p.api.state.comments.filter(
    c => c.issueNumber === pull.number && c.body.includes('ralph-action:fix-round')
  )
  expect(summaries).toHaveLength(1)
  expect(summaries[0].body).toContain(`key=review-${review.id}`)
  expect(summaries[0].body).toContain(commit.slice(0, 12))

  // Delivered again (GitHub re-sends, or a re-run): the review was answered, so nothing runs.
  const again = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    eventName: 'pull_request_review',
    event: p.api.events.pullRequestReview(review.id)
  })
  expect(again.main.exitCode).toBe(0)
  expect(said(again)).toEqual([expect.stringMatching(/was answered already/)])
  expect(p.remoteGit('rev-parse', BRANCH).trim()).toBe(commit)
  expectClean(p)
})

test("resolve-threads: true resolves the review's threads once the fix is pushed", async () => {
  const agent = promptKeeper()
  const p = await project(projectFiles(agent.script))
  p.api.state.addUser('alice', { role: 'write' })
  const pull = actionsPull(p)
  const { run } = await onReview(
    p,
    pull.number,
    {
      user: 'alice',
      state: 'COMMENTED',
      body: '/ralph fix-tests',
      comments: [{ path: 'calc.js', line: 2, body: 'Make it add.' }]
    },
    { 'resolve-threads': 'true' }
  )
  expect(run.main.exitCode).toBe(0)
  expect(p.api.state.reviewThreads.map(t => t.resolved)).toEqual([true])
  expectClean(p)
})

test("a reader's review, a bot's, one on a stranger's pull request and one on a fork's: nothing runs, one line each", async () => {
  const agent = promptKeeper()
  const p = await project(projectFiles(agent.script))
  p.api.state.addUser('alice', { role: 'write' })
  p.api.state.addUser('rob', { role: 'read' })
  p.api.state.addUser('carol', { role: 'write' })
  p.api.state.addUser('coder-app[bot]', { type: 'Bot', role: 'write' })
  const ours = actionsPull(p)
  const strangers = personsPull(p, { head: 'carol-feature', user: 'carol' })
  const forks = p.api.state.addPull({
    title: 'From a fork',
    body: `${MARKER}\nforged`,
    head: 'main',
    headOwner: 'mallory',
    headRepo: 'octo-repo',
    user: 'github-actions[bot]'
  })
  const tips = () => p.remoteGit('for-each-ref', '--format=%(refname) %(objectname)')
  const before = tips()
  const cases: [number, string, RegExp][] = [
    [ours.number, 'rob', /rob/],
    [ours.number, 'coder-app[bot]', /coder-app\[bot\]/],
    [strangers.number, 'alice', /is not the action's own/],
    [forks.number, 'alice', /comes from a fork/]
  ]
  for (const [number, user, why] of cases) {
    const { run } = await onReview(p, number, {
      user,
      state: 'CHANGES_REQUESTED',
      comments: [{ path: 'calc.js', line: 2, body: 'Make it add.' }]
    })
    expect(run.main.exitCode).toBe(0)
    expect(said(run)).toEqual([expect.stringMatching(why)])
  }
  expect(() => agent.prompt()).toThrow()
  expect(tips()).toBe(before)
  expect(p.api.state.comments).toEqual([])
  expect(p.api.state.reviewComments.filter(c => c.inReplyToId !== undefined)).toEqual([])
  expectClean(p)
})

test("a failing CI run on the action's pull request: the failing job's log tail is in the prompt, the fix is pushed, the record names the run", async () => {
  const agent = promptKeeper()
  const p = await project(projectFiles(agent.script))
  const pull = actionsPull(p)
  const ci = failedRun(p, BRANCH, 'AssertionError: expected 3, got -1 (calc.test.js:6)')
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'ci-fix': 'ci.yml' },
    eventName: 'workflow_run',
    event: p.api.events.workflowRun(ci.id)
  })
  expect(run.main.exitCode).toBe(0)
  const prompt = agent.prompt()
  expect(prompt).toContain('test (ubuntu-latest)')
  expect(prompt).toContain('AssertionError: expected 3, got -1 (calc.test.js:6)')
  // Timestamps and workflow commands are stripped from the tail.
  expect(prompt).not.toContain('2026-11-28T10:00:01')
  expect(prompt).not.toContain('##[error]')

  const commit = p.remoteGit('rev-parse', BRANCH).trim()
  expect(p.remoteGit('show', `${BRANCH}:calc.js`)).toContain('a + b')
  expect(run.outputs).toMatchObject({ commit, 'pr-operation': 'updated', 'pr-number': String(pull.number) })
  expect(p.api.state.pulls).toHaveLength(1)
  const summaries = p.api.state.comments.filter(c => c.issueNumber === pull.number)
  expect(summaries).toHaveLength(1)
  expect(summaries[0].body).toContain(`key=ci-${ci.headSha}`)

  const record = await e2e.recordOf(run)
  const round = JSON.parse(record.get('round.json')?.toString('utf8') ?? '{}') as Record<string, unknown>
  expect(round).toMatchObject({ kind: 'ci', run: ci.id, commit: ci.headSha, pushed: commit })
  expectClean(p)
})

test("a failing CI run on a person's branch, and one of a workflow ci-fix does not name: nothing runs", async () => {
  const agent = promptKeeper()
  const p = await project(projectFiles(agent.script))
  p.api.state.addUser('alice', { role: 'write' })
  personsPull(p, { head: 'alice-feature', user: 'alice' })
  const persons = failedRun(p, 'alice-feature', 'AssertionError')
  const onPerson = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'ci-fix': 'ci.yml' },
    eventName: 'workflow_run',
    event: p.api.events.workflowRun(persons.id)
  })
  expect(onPerson.main.exitCode).toBe(0)
  expect(said(onPerson)).toEqual([expect.stringMatching(/is not the action's own/)])

  actionsPull(p)
  const unwatched = failedRun(p, BRANCH, 'AssertionError')
  const notNamed = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    eventName: 'workflow_run',
    event: p.api.events.workflowRun(unwatched.id)
  })
  expect(notNamed.main.exitCode).toBe(0)
  expect(said(notNamed)).toEqual([expect.stringMatching(/ci-fix names no workflow/)])
  expect(() => agent.prompt()).toThrow()
  expect(p.api.state.comments).toEqual([])
  expectClean(p)
})

test('the fourth CI round on one pull request is refused with one comment; the fifth quietly', async () => {
  const agent = promptKeeper()
  const p = await project(projectFiles(agent.script))
  const pull = actionsPull(p)
  // Three rounds answered: their summaries, written by the account the action comments as.
  for (const sha of ['a', 'b', 'c'])
    p.api.state.addComment(pull.number, {
      body: `<!-- ralph-action:fix-round key=ci-${sha.repeat(40)} -->\nround`,
      user: 'github-actions[bot]'
    })
  // A marker anyone else writes counts for nothing.
  p.api.state.addUser('mallory', { role: 'read' })
  p.api.state.addComment(pull.number, {
    body: `<!-- ralph-action:fix-round key=ci-${'d'.repeat(40)} -->`,
    user: 'mallory'
  })
  const before = p.api.state.comments.length
  const fourth = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'ci-fix': 'ci.yml' },
    eventName: 'workflow_run',
    event: p.api.events.workflowRun(failedRun(p, BRANCH, 'AssertionError').id)
  })
  expect(fourth.main.exitCode).toBe(0)
  const added = p.api.state.comments.slice(before)
  expect(added).toHaveLength(1)
  expect(added[0].body).toMatch(/it has had 3 and max-fix-rounds is 3/)

  p.pushToRemote(BRANCH, { 'README.md': 'a person was here\n' }, 'a person moves the branch on')
  p.api.state.pull(pull.number)!.headSha = p.remoteGit('rev-parse', BRANCH).trim()
  const fifth = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'ci-fix': 'ci.yml' },
    eventName: 'workflow_run',
    event: p.api.events.workflowRun(failedRun(p, BRANCH, 'AssertionError').id)
  })
  expect(fifth.main.exitCode).toBe(0)
  expect(said(fifth)).toEqual([expect.stringMatching(/said on the pull request already/)])
  expect(p.api.state.comments.slice(before)).toHaveLength(1)
  expect(() => agent.prompt()).toThrow()
  expectClean(p)
})

test('a CI round whose agent edits the protected test to turn it green is refused as in one run: nothing pushed, the summary says so', async () => {
  const cheat =
    "fs.writeFileSync('calc.test.js', fs.readFileSync('calc.test.js', 'utf8').replace('add(1, 2), 3', 'add(1, 2), -1'))\n" +
    DONE
  const agent = promptKeeper(cheat)
  const p = await project(projectFiles(agent.script))
  const pull = actionsPull(p)
  const tip = p.remoteGit('rev-parse', BRANCH).trim()
  const ci = failedRun(p, BRANCH, 'AssertionError: expected 3, got -1')
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'ci-fix': 'ci.yml', 'max-iterations': '2', 'on-failure': 'push' },
    eventName: 'workflow_run',
    event: p.api.events.workflowRun(ci.id)
  })
  expect(run.main.exitCode).not.toBe(0)
  expect(agent.prompt()).toContain('AssertionError: expected 3, got -1')
  expect(p.remoteGit('rev-parse', BRANCH).trim()).toBe(tip)
  expect(run.outputs['pr-operation']).toBe('none')
  const [summary] = p.api.state.comments.filter(
    c => c.issueNumber === pull.number && c.body.includes('ralph-action:fix-round')
  )
  expect(summary.body).toMatch(/Nothing was pushed onto this pull request's branch/)
  expect(p.api.state.reviewComments).toEqual([])
  expectClean(p)
})
