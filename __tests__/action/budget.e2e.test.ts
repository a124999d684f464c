// One budget for the whole repository (#38), through dist/index.js as the runner runs it, against the GitHub
// stand-in, its git server (the ledger is a ref of the repository there) and a model server that bills each
// request a fixed amount: runs at once never spend past `budget`, a run that finds it spent runs no agent and
// says so in one line, the ledger's commits add up to what the upstream billed, and the ledger's faults
// (a killed job, a malformed commit, a token without contents: write) each end in one line.
import { expect, test } from '@jest/globals'
import {
  bareGit,
  BILLED,
  budgetFiles as files,
  budgetStand,
  ledgerLog,
  ledgerOf,
  settledUsd,
  spendTheDay
} from './budget-kit.js'
import { AGENT_JOB_TOKEN, checkoutAgain, GITHUB_TOKEN, createProject, type Project } from './harness.js'

const { run, upstream: upstreamOf } = budgetStand()

const sayNoAgent =
  /The repository's budget of \$[\d.]+\/day is spent[^\n]*; it resets at 00:00 UTC\. No agent ran\./

test('eight runs at once against one repository with budget: 1/day never take what the upstream billed past $1, those that found it spent ran no agent and said so, and the ledger adds up to the bill', async () => {
  const project = await createProject(files)
  const jobs = [project, ...(await Promise.all(Array.from({ length: 7 }, () => checkoutAgain(project))))]
  const before = upstreamOf().requests.length
  try {
    // Each agent would spend $0.45 (25 requests): eight would spend $3.60.
    const runs = await Promise.all(jobs.map(p => run(p, { budget: '1/day' }, 25)))
    const billed = (upstreamOf().requests.length - before) * BILLED
    expect(billed).toBeLessThanOrEqual(1 + 1e-9)
    // The budget was used, not left idle: at most one request's worth ($0.05) of it went unspent per run.
    expect(billed).toBeGreaterThan(0.5)
    for (const r of runs) {
      const said = `${r.main.stdout}\n${r.main.stderr}`
      if (r.outputs.iterations === '0') {
        expect(r.outputs['stop-reason']).toBe('budget')
        expect(said).toMatch(sayNoAgent)
        expect(r.main.exitCode).toBe(0)
        expect(r.summary).toMatch(sayNoAgent)
      } else {
        // It ran until the ledger could grant no more (or its 25 requests were done), and said what it spent.
        expect(['budget', 'all_checks_passed']).toContain(r.outputs['stop-reason'])
        expect(r.summary).toMatch(/💸 The repository's budget: this run reserved \$[\d.]+, spent \$[\d.]+/)
        expect(r.outputs['budget-left']).toMatch(/^\d+\.\d\d$/)
      }
    }
    expect(runs.filter(r => r.outputs['stop-reason'] === 'budget').length).toBeGreaterThan(0)
    const { changes, json } = ledgerOf(project)
    expect(settledUsd(changes)).toBeCloseTo(billed, 6)
    // Every lease was settled: none is left open.
    expect(json.leases).toEqual([])
  } finally {
    for (const p of jobs.reverse()) await p.cleanup()
  }
}, 600_000)

test("two jobs: the reserve job takes the lease, the agent job (no write token) spends no more than it, and the deliver job settles it at the agent job's metered spend", async () => {
  const project = await createProject(files, { token: AGENT_JOB_TOKEN })
  const deliverCheckout = await checkoutAgain(project)
  const before = upstreamOf().requests.length
  const runId = String(8_100_000_000 + process.pid)
  const artifacts = { 'upload-artifacts': 'true' }
  try {
    const reserve = await run(project, { budget: '0.20/day', mode: 'reserve' }, 0, {
      runId,
      job: 'reserve',
      token: GITHUB_TOKEN
    })
    expect(reserve.main.exitCode).toBe(0)
    const { lease } = reserve.outputs
    // A chunk of the $0.20 a day: a tenth of it, at least two requests' worth ($0.10).
    expect((JSON.parse(lease) as { lease: { draws: Array<{ usd: number }> } }).lease.draws).toEqual([
      expect.objectContaining({ usd: 100_000 })
    ])
    const agent = await run(project, { mode: 'agent', lease, ...artifacts }, 25, {
      runId,
      job: 'agent',
      token: AGENT_JOB_TOKEN
    })
    expect(agent.outputs['stop-reason']).toBe('budget')
    expect(`${agent.main.stdout}`).toMatch(/the lease the reserve job took \(\$0\.10, lease [^)]+\) is spent/)
    // The agent job wrote nothing: not the ledger either.
    expect(project.gitServer.pushAttemptsBy(AGENT_JOB_TOKEN)).toEqual([])
    const billed = (upstreamOf().requests.length - before) * BILLED
    expect(billed).toBeCloseTo(5 * BILLED, 9)
    const deliver = await run(
      deliverCheckout,
      { mode: 'deliver', lease, delivery: agent.outputs.delivery, ...artifacts },
      0,
      { runId, job: 'deliver', token: GITHUB_TOKEN }
    )
    const { changes, json } = ledgerOf(project)
    expect(settledUsd(changes)).toBeCloseTo(billed, 6)
    expect(json.leases).toEqual([])
    expect(deliver.outputs['budget-left']).toBe((0.2 - billed).toFixed(2))
  } finally {
    await deliverCheckout.cleanup()
    await project.cleanup()
  }
}, 300_000)

test('a run that finds the budget spent runs no agent: the /ralph requester gets the line as a reply, and the step ends green', async () => {
  const project = await createProject(files)
  try {
    await spendTheDay(project, 1)

    project.api.state.addUser('maintainer', { role: 'write' })
    const issue = project.api.state.addIssue({ title: 'Bug', body: 'b', user: 'maintainer' })
    const comment = project.api.state.addComment(issue.number, { body: '/ralph spend', user: 'maintainer' })
    const before = upstreamOf().requests.length
    const r = await run(project, { budget: '1/day' }, 5, {
      eventName: 'issue_comment',
      event: project.api.events.issueComment(comment.id)
    })
    expect(r.main.exitCode).toBe(0)
    expect(upstreamOf().requests.length).toBe(before)
    expect(r.outputs).toMatchObject({ 'stop-reason': 'budget', iterations: '0', 'budget-left': '0.00' })
    const reply = project.api.state.comments.filter(
      c => c.issueNumber === issue.number && c.id !== comment.id
    )
    expect(reply).toHaveLength(1)
    expect(reply[0].body).toMatch(
      /^The repository's budget of \$1\/day is spent \(\$1\.00 of \$1\.00\); it resets at 00:00 UTC\. No agent ran\.$/m
    )
    // Nothing was prepared: no branch was pushed, no tracking comment was opened.
    expect(project.remoteGit('branch', '--list', 'ralph/*').trim()).toBe('')
  } finally {
    await project.cleanup()
  }
}, 300_000)

test('a killed job (no post step): its lease counts in full, and the next run finds the budget held', async () => {
  const project = await createProject(files)
  const second = await checkoutAgain(project)
  try {
    const killed = await run(project, { budget: '0.10/day' }, 1000, {
      noPost: true,
      duringMain: async child => {
        // Killed once its lease is in the ledger, with its agent at work.
        while (upstreamOf().requests.length === 0 || !/reserve /.test(ledgerLog(project)))
          await new Promise(resolve => setTimeout(resolve, 50))
        child.kill('SIGKILL')
      }
    })
    expect(killed.main.signal).toBe('SIGKILL')
    const { json } = ledgerOf(project)
    expect(json.leases).toHaveLength(1)
    const r = await run(second, { budget: '0.10/day' }, 5)
    expect(r.main.exitCode).toBe(0)
    expect(`${r.main.stdout}`).toMatch(
      /The repository's budget of \$0\.10\/day is spent or held \(\$0\.00 spent and \$0\.\d+ held by 1 unsettled run, of \$0\.10[^)]*\); it resets at 00:00 UTC\. No agent ran\./
    )
  } finally {
    await second.cleanup()
    await project.cleanup()
  }
}, 300_000)

test('a malformed ledger commit: no agent runs, one line naming the commit and the fix', async () => {
  const project = await createProject(files)
  try {
    makeBadLedger(project)
    const before = upstreamOf().requests.length
    const r = await run(project, { budget: '1/day' }, 5)
    expect(r.main.exitCode).toBe(1)
    expect(upstreamOf().requests.length).toBe(before)
    const errors = r.main.errors.map(e => e.message)
    expect(errors).toEqual([
      expect.stringMatching(
        /^The budget ledger refs\/ralph\/ledger on octo-org\/octo-repo is malformed at [0-9a-f]{7} \(.*\): no agent runs until it is fixed; delete the ref to start again empty \(git push origin :refs\/ralph\/ledger\)\. No agent ran\.$/
      )
    ])
  } finally {
    await project.cleanup()
  }
}, 300_000)

/** A commit on refs/ralph/ledger whose ledger.json is not a ledger, as a hand edit would push it. */
function makeBadLedger(p: Project): void {
  const git = (args: string[], input?: string): string => bareGit(p, args, input)
  const blob = git(['hash-object', '-w', '--stdin'], '{"version": 1, "oops": true}\n')
  const tree = git(['mktree'], `100644 blob ${blob}\tledger.json\n`)
  const commit = git(['commit-tree', tree, '-m', 'ledger: by hand'])
  git(['update-ref', 'refs/ralph/ledger', commit])
}

test('a token without contents: write: one line naming contents: write, and no agent runs', async () => {
  const project = await createProject(files)
  try {
    const before = upstreamOf().requests.length
    const r = await run(project, { budget: '1/day', 'github-token': AGENT_JOB_TOKEN }, 5)
    expect(r.main.exitCode).toBe(1)
    expect(upstreamOf().requests.length).toBe(before)
    const errors = r.main.errors.map(e => e.message)
    expect(errors).toEqual([
      expect.stringMatching(
        /^The budget ledger refs\/ralph\/ledger on octo-org\/octo-repo cannot be written: the token may not push to octo-org\/octo-repo\. Give the job that keeps the ledger `permissions: contents: write`.*No agent ran\.$/
      )
    ])
  } finally {
    await project.cleanup()
  }
}, 300_000)
