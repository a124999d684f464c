// Rounds (issue #39) and the repository's budget (#38), through dist/index.js: a review or CI round is a run like
// any other, metered by the model proxy against `budget` (its spend settled in the ledger), and a round that finds
// the budget spent runs no agent and says so on the pull request, a CI round once per pull request.
import { expect, test } from '@jest/globals'
import { BILLED, budgetFiles as files, budgetStand, ledgerOf, settledUsd, spendTheDay } from './budget-kit.js'
import { createProject, type ActionRun, type Project } from './harness.js'
import { failedRun } from './rounds.js'
import { actionsPull, OWN_BRANCH } from '../support/pull-requests.js'

/** A round's run: its pushes go onto the pull request's branch (open-pr true), CI failures of ci.yml start one. */
const ROUND_INPUTS = { 'open-pr': 'true', 'ci-fix': 'ci.yml', budget: '1/day' }

const { run: runWith, upstream } = budgetStand()

const run = (p: Project, more: Parameters<typeof runWith>[3], asks: number): Promise<ActionRun> =>
  runWith(p, ROUND_INPUTS, asks, more)

const roundComments = (p: Project, number: number) =>
  p.api.state.comments.filter(c => c.issueNumber === number && c.body.includes('ralph-action:fix-round'))

test("a review round is metered against the repository's budget: what the upstream billed is settled in the ledger", async () => {
  const p = await createProject(files)
  try {
    p.api.state.addUser('alice', { role: 'write' })
    const pull = actionsPull(p)
    const review = p.api.state.addReview(pull.number, {
      user: 'alice',
      state: 'CHANGES_REQUESTED',
      body: 'Work.'
    })
    const before = upstream().requests.length
    const r = await run(
      p,
      { eventName: 'pull_request_review', event: p.api.events.pullRequestReview(review.id) },
      2
    )
    expect(r.main.exitCode).toBe(0)
    const billed = (upstream().requests.length - before) * BILLED
    expect(billed).toBeCloseTo(2 * BILLED, 9)
    expect(settledUsd(ledgerOf(p).changes)).toBeCloseTo(billed, 6)
    expect(r.outputs['budget-left']).toBe((1 - billed).toFixed(2))
    expect(roundComments(p, pull.number)).toHaveLength(1)
  } finally {
    await p.cleanup()
  }
}, 300_000)

test('a CI round that finds the budget spent runs no agent and says so on the pull request; it is not counted as a round', async () => {
  const p = await createProject(files)
  try {
    await spendTheDay(p, 1)
    const pull = actionsPull(p)
    const tip = p.remoteGit('rev-parse', OWN_BRANCH).trim()
    const ci = failedRun(p, OWN_BRANCH, 'AssertionError')
    const before = upstream().requests.length
    const r = await run(p, { eventName: 'workflow_run', event: p.api.events.workflowRun(ci.id) }, 2)
    expect(r.main.exitCode).toBe(0)
    expect(upstream().requests.length).toBe(before)
    expect(r.outputs).toMatchObject({ 'stop-reason': 'budget', iterations: '0', 'budget-left': '0.00' })
    expect(p.remoteGit('rev-parse', OWN_BRANCH).trim()).toBe(tip)
    const said = p.api.state.comments.filter(c => c.issueNumber === pull.number)
    expect(said).toHaveLength(1)
    expect(said[0].body).toMatch(/The repository's budget of \$1\/day is spent[^\n]*No agent ran\./)
    expect(roundComments(p, pull.number)).toEqual([])
  } finally {
    await p.cleanup()
  }
}, 300_000)

test('a CI round says the budget is spent once per pull request: a second failure on the commit and a failure on a later one run no agent and say nothing more; a review round still tells its reviewer', async () => {
  const p = await createProject(files)
  try {
    await spendTheDay(p, 1)
    p.api.state.addUser('alice', { role: 'write' })
    const pull = actionsPull(p)
    const said = () => p.api.state.comments.filter(c => c.issueNumber === pull.number)
    const onCi = () =>
      run(
        p,
        {
          eventName: 'workflow_run',
          event: p.api.events.workflowRun(failedRun(p, OWN_BRANCH, 'AssertionError').id)
        },
        2
      )
    const before = upstream().requests.length

    expect((await onCi()).outputs['stop-reason']).toBe('budget')
    expect(said()).toHaveLength(1)
    expect(said()[0].body).toMatch(/The repository's budget of \$1\/day is spent[^\n]*No agent ran\./)

    // No round ran, so none answered the commit: its next failing run is admitted, and finds the budget spent.
    const again = await onCi()
    expect(again.main.exitCode).toBe(0)
    expect(again.outputs['stop-reason']).toBe('budget')
    expect(again.main.stdout).toContain(`Pull request #${pull.number} says already that the budget is spent`)
    p.pushToRemote(OWN_BRANCH, { 'README.md': 'a person was here\n' }, 'a person moves the branch on')
    p.api.state.pull(pull.number)!.headSha = p.remoteGit('rev-parse', OWN_BRANCH).trim()
    expect((await onCi()).outputs['stop-reason']).toBe('budget')
    expect(said()).toHaveLength(1)

    const review = p.api.state.addReview(pull.number, {
      user: 'alice',
      state: 'CHANGES_REQUESTED',
      body: 'Work.'
    })
    const asked = await run(
      p,
      { eventName: 'pull_request_review', event: p.api.events.pullRequestReview(review.id) },
      2
    )
    expect(asked.outputs['stop-reason']).toBe('budget')
    expect(said()).toHaveLength(2)
    expect(said()[1].body).toMatch(/The repository's budget of \$1\/day is spent[^\n]*No agent ran\./)
    expect(upstream().requests.length).toBe(before)
    expect(roundComments(p, pull.number)).toEqual([])
  } finally {
    await p.cleanup()
  }
}, 600_000)
