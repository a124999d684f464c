// The repository's budget across people and steps, through dist/index.js as the runner runs it (#38): a
// per-requester budget spent by one person leaves another's runs going; a cancelled run (SIGINT, then the
// post step) leaves the ledger with what it really spent and its lease released; and a two-job `/ralph`
// that finds the budget spent is answered once.
import { expect, test } from '@jest/globals'
import { parse } from 'yaml'
import { readPage } from '../docs/markdown.js'
import { BILLED, budgetFiles, budgetStand, ledgerOf, settledUsd } from './budget-kit.js'
import { AGENT_JOB_TOKEN, checkoutAgain, createProject, GITHUB_TOKEN, type Project } from './harness.js'

const { run, upstream } = budgetStand()

/** The jobs of docs/budget.md's two-job workflow. */
function twoJobsWorkflow(): Record<string, { if?: string }> {
  const block = readPage('docs/budget.md').blocks.find(b => b.heading === 'Two jobs' && b.lang === 'yaml')
  if (!block) throw new Error('docs/budget.md shows no two-job workflow')
  return (parse(block.text) as { jobs: Record<string, { if?: string }> }).jobs
}

/** `/ralph spend` by `login` (a writer) on a new issue: the run's event, and the issue to read replies from. */
function ralphComment(p: Project, login: string) {
  p.api.state.addUser(login, { role: 'write' })
  const issue = p.api.state.addIssue({ title: 'Bug', body: 'b', user: login })
  const comment = p.api.state.addComment(issue.number, { body: '/ralph spend', user: login })
  return {
    more: { eventName: 'issue_comment', event: p.api.events.issueComment(comment.id) },
    /** What was said on the issue after the request. */
    replies: () => p.api.state.comments.filter(c => c.issueNumber === issue.number && c.id !== comment.id)
  }
}

test("budget-per-requester: one person's spent budget refuses their next /ralph (one reply), while another's runs", async () => {
  const p = await createProject(budgetFiles)
  const later = await Promise.all([checkoutAgain(p), checkoutAgain(p)])
  const inputs = { budget: '1/day', 'budget-per-requester': '0.10/day' }
  try {
    // alice's agent would spend $0.45: her $0.10 a day stops it after five requests.
    const alice = ralphComment(p, 'alice')
    const first = await run(p, inputs, 25, alice.more)
    expect(first.outputs['stop-reason']).toBe('budget')
    expect(ledgerOf(p).changes.filter(c => c.startsWith('settle '))).toEqual([
      expect.stringMatching(/ requester=alice spent=0\.090000 /)
    ])
    // bob's /ralph runs: the repository's budget has room, and his own is untouched.
    const bob = ralphComment(p, 'bob')
    const before = upstream().requests.length
    const second = await run(later[0], inputs, 2, bob.more)
    expect(second.outputs['stop-reason']).toBe('all_checks_passed')
    expect(upstream().requests.length - before).toBe(2)
    // alice again: refused before any agent runs, told so once on her issue, green.
    const again = ralphComment(later[1], 'alice')
    const third = await run(later[1], inputs, 2, again.more)
    expect(third.main.exitCode).toBe(0)
    expect(third.outputs).toMatchObject({ 'stop-reason': 'budget', iterations: '0' })
    expect(upstream().requests.length - before).toBe(2)
    expect(again.replies().map(c => c.body)).toEqual([
      expect.stringMatching(
        /^alice's budget of \$0\.10\/day is spent \(\$0\.09 of \$0\.10; a request may cost up to \$0\.05\); it resets at 00:00 UTC\. No agent ran\.\n/
      )
    ])
    const { changes } = ledgerOf(p)
    expect(changes.filter(c => c.startsWith('settle ')).map(c => /requester=(\w+)/.exec(c)?.[1])).toEqual([
      'alice',
      'bob'
    ])
    expect(settledUsd(changes)).toBeCloseTo(7 * BILLED, 6)
  } finally {
    for (const q of later) await q.cleanup()
    await p.cleanup()
  }
}, 400_000)

/**
 * The action with a budget, its agent three requests in (of a thousand, 300 ms apart) when main gets `signal`;
 * then the post step. What the upstream billed, and the ledger after it.
 */
async function stoppedMidAgent(p: Project, signal: NodeJS.Signals) {
  const before = upstream().requests.length
  const r = await run(p, { budget: '1/day' }, 1000, {
    env: { ASK_PAUSE_MS: '300' },
    duringMain: async child => {
      while (upstream().requests.length - before < 3) await new Promise(resolve => setTimeout(resolve, 50))
      child.kill(signal)
    }
  })
  const billed = (upstream().requests.length - before) * BILLED
  const { changes, json } = ledgerOf(p)
  return { r, billed, settles: changes.filter(c => c.startsWith('settle ')), leases: json.leases }
}

/** The line a step logs when it settled the lease. */
const SETTLED = /The repository's budget: (lease \S+ )?reserved \$[\d.]+, spent \$[\d.]+/

test('cancelled mid-agent (SIGINT, then the post step): main settles at what the upstream billed, once, and the lease is released', async () => {
  const p = await createProject(budgetFiles)
  try {
    const { r, billed, settles, leases } = await stoppedMidAgent(p, 'SIGINT')
    expect(r.outputs['stop-reason']).toBe('cancelled')
    expect(r.post?.exitCode).toBe(0)
    // Main stops the agent and settles on its way out; post finds the lease settled and leaves it.
    expect(r.main.stdout).toMatch(SETTLED)
    expect(r.post?.stdout).not.toMatch(SETTLED)
    expect(settles).toHaveLength(1)
    expect(settledUsd(settles)).toBeCloseTo(billed, 6)
    expect(leases).toEqual([])
  } finally {
    await p.cleanup()
  }
}, 300_000)

test('main killed mid-agent (no chance to settle), then the post step: post settles, never below what the upstream billed and at most one request above it', async () => {
  const p = await createProject(budgetFiles)
  try {
    const { r, billed, settles, leases } = await stoppedMidAgent(p, 'SIGKILL')
    expect(r.main.signal).toBe('SIGKILL')
    expect(r.post?.exitCode).toBe(0)
    expect(r.post?.stdout).toMatch(SETTLED)
    expect(settles).toHaveLength(1)
    // The most the proxy had covered: what was billed, and the worst case of the request it was about to send.
    expect(settledUsd(settles)).toBeGreaterThanOrEqual(billed - 1e-9)
    expect(settledUsd(settles)).toBeLessThanOrEqual(billed + 0.02)
    expect(leases).toEqual([])
  } finally {
    await p.cleanup()
  }
}, 300_000)

test('two jobs, /ralph with the budget spent: the reserve job replies once; the deliver job after it adds no second reply', async () => {
  const p = await createProject(budgetFiles, { token: AGENT_JOB_TOKEN })
  const deliverCheckout = await checkoutAgain(p)
  const runId = String(8_200_000_000 + process.pid)
  try {
    // The day's $0.05 is spent by an earlier run.
    const spent = await run(p, { budget: '0.05/day' }, 25, { token: GITHUB_TOKEN })
    expect(spent.outputs['stop-reason']).toBe('budget')
    const asked = ralphComment(p, 'maintainer')
    const reserve = await run(p, { budget: '0.05/day', mode: 'reserve' }, 0, {
      ...asked.more,
      runId,
      job: 'reserve',
      token: GITHUB_TOKEN
    })
    expect(reserve.main.exitCode).toBe(0)
    expect(reserve.outputs).toMatchObject({ lease: '', 'stop-reason': 'budget' })
    // The documented workflow skips both later jobs on an empty lease.
    const jobs = twoJobsWorkflow()
    expect(jobs.agent.if).toContain("needs.reserve.outputs.lease != ''")
    expect(jobs.deliver.if).toContain("needs.reserve.outputs.lease != ''")
    // A workflow that runs the deliver job anyway: it fails for want of a delivery, and says nothing on the issue.
    const deliver = await run(
      deliverCheckout,
      { mode: 'deliver', lease: '', delivery: '', 'upload-artifacts': 'true' },
      0,
      { ...asked.more, runId, job: 'deliver', token: GITHUB_TOKEN }
    )
    expect(asked.replies().map(c => c.body)).toEqual([
      expect.stringMatching(/^The repository's budget of \$0\.05\/day is spent .*No agent ran\.\n/)
    ])
    expect(deliver.main.exitCode).toBe(1)
    expect(deliver.main.errors.map(e => e.message)).toEqual([
      expect.stringMatching(/^There is no delivery to deliver/)
    ])
  } finally {
    await deliverCheckout.cleanup()
    await p.cleanup()
  }
}, 300_000)
