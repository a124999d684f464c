// The ledger's faults through dist/index.js as the runner runs it (#38), against the GitHub stand-in's git server
// with the ledger a ref of its bare repository: a push race lost 20 times in a row, GitHub's 5xx on the ledger's
// push, and the ledger's ref deleted by hand. (A token without contents: write, a malformed commit and a
// killed job are budget.e2e.test.ts's.)
import { expect, test } from '@jest/globals'
import {
  LedgerStore,
  openLease,
  parseLedger,
  reserve,
  serializeLedger,
  type BudgetLimits
} from '../../src/ledger/index.js'
import { bareGit as bare, BILLED, budgetFiles, budgetStand, ledgerOf, settledUsd } from './budget-kit.js'
import { FAULT_TIMING } from './fixtures.js'
import { checkoutAgain, createProject, type Project } from './harness.js'

const { run, upstream } = budgetStand()

const REF = 'refs/ralph/ledger'
const A_DOLLAR_A_DAY: BudgetLimits = { repository: { day: 1_000_000 }, perRequester: {} }

/** Another run's reservation of $0.01, landing on the ledger's tip first (as its push would). */
function rivalReserves(p: Project, n: number): void {
  const tip = bare(p, ['rev-parse', REF])
  const now = new Date()
  const outcome = reserve(
    parseLedger(bare(p, ['cat-file', 'blob', `${tip}:ledger.json`])),
    {
      id: `rival${n}.1-000000`,
      run: { id: `rival${n}`, attempt: 1 },
      deadline: new Date(now.getTime() + 3600_000),
      limits: A_DOLLAR_A_DAY,
      chunk: 10_000,
      minimum: 10_000
    },
    now
  )
  const blob = bare(p, ['hash-object', '-w', '--stdin'], serializeLedger(outcome.ledger))
  const tree = bare(p, ['mktree'], `100644 blob ${blob}\tledger.json\n`)
  const commit = bare(p, ['commit-tree', tree, '-p', tip, '-m', `ledger: reserve\n\n${outcome.changes[0]}`])
  bare(p, ['update-ref', REF, commit, tip])
}

/** A ledger with a settled run in it, written as the action writes it. */
async function startLedger(p: Project): Promise<void> {
  const store = await LedgerStore.open({
    serverUrl: p.gitServer.url,
    repository: p.gitServer.repository,
    token: p.token
  })
  const opened = await openLease(store, {
    run: { id: '1', attempt: 1 },
    limits: A_DOLLAR_A_DAY,
    minimumUsd: 0.05,
    deadline: new Date(Date.now() + 3600_000)
  })
  if (!('lease' in opened)) throw new Error(opened.refused.line)
  await opened.lease.settle(0)
  await store.close()
}

test("a push race lost 20 times in a row: each time another run's write lands first, the run reads it, applies its reservation on top and wins the 21st; nobody's lease is lost", async () => {
  const p = await createProject(budgetFiles)
  try {
    await startLedger(p)
    // The action's first push is its reservation: the next 20 each find another run's reservation landed first.
    let lost = 0
    p.gitServer.onPush = () => {
      if (lost < 20) rivalReserves(p, ++lost)
    }
    const before = upstream().requests.length
    const r = await run(p, { budget: '1/day' }, 2)
    delete p.gitServer.onPush
    expect(lost).toBe(20)
    expect(r.main.exitCode).toBe(0)
    expect(r.outputs['stop-reason']).toBe('all_checks_passed')
    expect(upstream().requests.length - before).toBe(2)
    const { changes, json } = ledgerOf(p)
    // Its reservation landed once, after the twenty, and its settlement after it.
    const ours = changes.filter(c => / run=\d{6,} /.test(c)).map(c => c.split(' ')[0])
    expect(ours).toEqual(['reserve', 'settle'])
    const rivals = changes.map((c, i) => (/ run=rival/.test(c) ? i : -1)).filter(i => i >= 0)
    expect(rivals).toHaveLength(20)
    expect(changes.findIndex(c => c.startsWith('reserve ') && / run=\d{6,} /.test(c))).toBeGreaterThan(
      Math.max(...rivals)
    )
    // The twenty rivals' leases are all still held: each retry applied the change to the new tip.
    expect(json.leases.map(l => l.id).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `rival${i + 1}.1-000000`).sort()
    )
    expect(settledUsd(changes)).toBeCloseTo(2 * BILLED, 6)
    expect(r.outputs['budget-left']).toBe((1 - 20 * 0.01 - 2 * BILLED).toFixed(2))
  } finally {
    await p.cleanup()
  }
}, 300_000)

test("GitHub's 5xx on the ledger's push is tried again: the reservation lands once, the agent runs, the ledger adds up", async () => {
  const p = await createProject(budgetFiles)
  try {
    await startLedger(p)
    const faults = p.gitServer.faults
    faults.clear()
    // The run's first push is its reservation: its ref advertisement answers 502, then its pack 503.
    faults.add('receive-pack-refs', 1, '502').add('receive-pack', 1, '503')
    const before = upstream().requests.length
    const r = await run(p, { budget: '1/day' }, 2, { env: FAULT_TIMING })
    expect(faults.injected.map(f => `${f.route}:${f.kind}`)).toEqual([
      'receive-pack-refs:502',
      'receive-pack:503'
    ])
    expect(r.main.exitCode).toBe(0)
    expect(r.outputs['stop-reason']).toBe('all_checks_passed')
    expect(r.main.stdout).toMatch(/The push did not get through \(.*502.*\); trying again/)
    expect(r.main.stdout).toMatch(/The push did not get through \(.*503.*\); trying again/)
    expect(upstream().requests.length - before).toBe(2)
    const { changes, json } = ledgerOf(p)
    const ours = changes.filter(c => / run=\d{6,} /.test(c)).map(c => c.split(' ')[0])
    expect(ours).toEqual(['reserve', 'settle'])
    expect(json.leases).toEqual([])
    expect(settledUsd(changes)).toBeCloseTo(2 * BILLED, 6)
  } finally {
    await p.cleanup()
  }
}, 300_000)

test('the ledger ref deleted by hand: the next run starts it again empty, with a warning, and runs its agent', async () => {
  const p = await createProject(budgetFiles)
  const second = await checkoutAgain(p)
  try {
    // A first run spends $0.036 of the day's $0.05: with it counted, a second could not reserve a request's worth.
    const first = await run(p, { budget: '0.05/day' }, 2)
    expect(first.outputs['budget-left']).toBe('0.01')
    const old = bare(p, ['rev-parse', REF])
    bare(p, ['update-ref', '-d', REF])
    const r = await run(second, { budget: '0.05/day' }, 2)
    expect(r.main.exitCode).toBe(0)
    expect(r.outputs['stop-reason']).toBe('all_checks_passed')
    expect(r.main.stdout).toContain(
      `::warning::The budget ledger ${REF} on octo-org/octo-repo was not there: starting it empty. If runs spent before (the ref was deleted), that spend is no longer counted.`
    )
    // A new history: the first run's commits are not in it, only the second's reservation and settlement.
    expect(bare(p, ['rev-list', REF]).split('\n')).not.toContain(old)
    const { changes } = ledgerOf(p)
    expect(changes.map(c => c.split(' ')[0])).toEqual(['reserve', 'settle'])
    expect(settledUsd(changes)).toBeCloseTo(2 * BILLED, 6)
    expect(r.outputs['budget-left']).toBe('0.01')
  } finally {
    await second.cleanup()
    await p.cleanup()
  }
}, 300_000)
