// The ledger's operations, in-process: a table of what reserve, top-up, settle, expire and compact do, the
// refusal line of each kind of spent budget, and a randomised check that no interleaving of many runs'
// reserves, top-ups and settles (each run deciding on the ledger as it read it, and writing only if nobody
// wrote since: the compare-and-swap of the store) ever lets a window's grants pass its limit.
import { describe, expect, test } from '@jest/globals'
import {
  compact,
  emptyLedger,
  expire,
  granted,
  limitedWindows,
  parseLedger,
  reserve,
  serializeLedger,
  settle,
  topUp,
  type BudgetLimits,
  type LeaseRecord,
  type Ledger
} from '../../src/ledger/index.js'
import type { ReserveRequest } from '../../src/ledger/operations.js'
import { seededRandom } from '../support/faults.js'

const $ = (usd: number): number => Math.round(usd * 1_000_000)
const T = (iso: string): Date => new Date(iso)
const NOW = T('2026-12-01T10:00:00.000Z')

const limits = (
  repository: BudgetLimits['repository'],
  perRequester: BudgetLimits['perRequester'] = {}
): BudgetLimits => ({
  repository,
  perRequester
})

let ids = 0
function request(over: Partial<ReserveRequest> = {}): ReserveRequest {
  ids++
  return {
    id: `${ids}.1-aaaaaa`,
    run: { id: String(ids), attempt: 1 },
    ralph: 'hunt',
    deadline: new Date(NOW.getTime() + 6 * 3600_000),
    limits: limits({ day: $(1) }),
    chunk: $(0.2),
    minimum: $(0.1),
    ...over
  }
}

/** A ledger where `spent` was settled today (at NOW) by a run of `ralph`/`requester`. */
function spentAt(
  ledger: Ledger,
  at: Date,
  spent: number,
  who: { ralph?: string; requester?: string } = {}
): Ledger {
  const r = reserve(ledger, request({ ...who, chunk: spent, minimum: 0, limits: limits({}) }), at)
  if (!('lease' in r.result)) throw new Error('could not reserve')
  return settle(r.ledger, { id: r.result.lease.id, spent, source: 'run' }, at).ledger
}

function open(
  ledger: Ledger,
  at: Date,
  over: Partial<ReserveRequest> = {}
): { ledger: Ledger; lease: LeaseRecord } {
  const r = reserve(ledger, request(over), at)
  if (!('lease' in r.result)) throw new Error(`refused: ${r.result.refusal.line}`)
  return { ledger: r.ledger, lease: r.result.lease }
}

describe('reserve', () => {
  test('takes a chunk when there is room, and says so in one change', () => {
    const r = reserve(emptyLedger(NOW), request({ requester: 'octocat' }), NOW)
    expect(r.result).toMatchObject({ granted: $(0.2) })
    expect(r.changes).toEqual([
      `reserve lease=${ids}.1-aaaaaa run=${ids} attempt=1 ralph=hunt requester=octocat usd=0.200000`
    ])
    expect(r.ledger.limits).toEqual({ ...limits({ day: $(1) }), at: NOW.toISOString() })
  })

  test.each<[string, Partial<ReserveRequest>, number, number]>([
    ['what is left, when less than a chunk', {}, 0.85, 0.15],
    ["the run's max-cost, when less", { maxCost: $(0.12) }, 0, 0.12],
    ['a chunk, with no limit at all', { limits: limits({}) }, 0.95, 0.2],
    ["a chunk: a per-requester limit is not a schedule's", { limits: limits({}, { day: $(0.05) }) }, 0, 0.2]
  ])('grants %s', (_what, over, spentBefore, expected) => {
    const ledger = spentBefore ? spentAt(emptyLedger(NOW), NOW, $(spentBefore)) : emptyLedger(NOW)
    expect(reserve(ledger, request(over), NOW).result).toMatchObject({ granted: $(expected) })
  })

  test.each<[string, (l: Ledger) => Ledger, Partial<ReserveRequest>, string]>([
    [
      "the repository's day, spent to the cent",
      l => spentAt(l, NOW, $(20)),
      { limits: limits({ day: $(20) }) },
      "the repository's budget of $20/day is spent ($20.00 of $20.00); it resets at 00:00 UTC"
    ],
    [
      'less left than a request',
      l => spentAt(l, NOW, $(0.95)),
      {},
      "the repository's budget of $1/day is spent ($0.95 of $1.00; a request may cost up to $0.10); it resets at 00:00 UTC"
    ],
    [
      'held by runs in flight',
      l => open(open(open(spentAt(l, NOW, $(0.4)), NOW).ledger, NOW).ledger, NOW, { chunk: $(0.2) }).ledger,
      {},
      "the repository's budget of $1/day is spent or held ($0.40 spent and $0.60 held by 3 unsettled runs, of $1.00); it resets at 00:00 UTC"
    ],
    [
      "the month's, named over the day's when both are spent",
      l => spentAt(l, NOW, $(300)),
      { limits: limits({ day: $(20), month: $(300) }) },
      "the repository's budget of $300/month is spent ($300.00 of $300.00); it resets on 2027-01-01 at 00:00 UTC"
    ],
    [
      "a requester's day",
      l => spentAt(l, NOW, $(5), { requester: 'octocat' }),
      { requester: 'octocat', limits: limits({ day: $(20) }, { day: $(5) }) },
      "octocat's budget of $5/day is spent ($5.00 of $5.00); it resets at 00:00 UTC"
    ],
    [
      "the month's, spent yesterday",
      l =>
        spentAt(l, T('2026-11-30T23:59:00.000Z'), $(0)) && spentAt(l, T('2026-12-01T00:30:00.000Z'), $(10)),
      { limits: limits({ month: $(10) }) },
      "the repository's budget of $10/month is spent ($10.00 of $10.00); it resets on 2027-01-01 at 00:00 UTC"
    ]
  ])('refuses when %s, in one line with the reset', (_what, before, over, line) => {
    const ledger = before(emptyLedger(NOW))
    const r = reserve(ledger, request(over), NOW)
    expect(r.result).toEqual({ refusal: expect.objectContaining({ line }) })
    expect(r.changes).toEqual([])
    expect(r.ledger).toBe(ledger)
  })

  test("another requester's spend, yesterday's and last month's do not count", () => {
    let ledger = spentAt(emptyLedger(NOW), NOW, $(5), { requester: 'hubot' })
    ledger = spentAt(ledger, T('2026-11-30T12:00:00.000Z'), $(1))
    const r = reserve(
      ledger,
      request({ requester: 'octocat', limits: limits({ day: $(6) }, { day: $(0.2) }) }),
      NOW
    )
    expect(r.result).toMatchObject({ granted: $(0.2) })
  })

  test("a lease drawn yesterday holds yesterday's day and this month", () => {
    const { ledger } = open(emptyLedger(NOW), T('2026-12-01T23:50:00.000Z'), { chunk: $(0.9) })
    const next = T('2026-12-02T00:10:00.000Z')
    const windows = limitedWindows(ledger, limits({ day: $(1), month: $(1) }), undefined, next)
    expect(windows.map(w => [w.kind, w.key, w.held, w.left])).toEqual([
      ['day', '2026-12-02', 0, $(1)],
      ['month', '2026-12', $(0.9), $(0.1)]
    ])
  })

  test('the same lease id twice is the lease already there, and changes nothing', () => {
    const first = open(emptyLedger(NOW), NOW, { id: 'same' })
    const again = reserve(first.ledger, request({ id: 'same' }), NOW)
    expect(again.changes).toEqual([])
    expect(again.result).toMatchObject({ granted: $(0.2) })
  })
})

describe('top-up', () => {
  const grow = (
    ledger: Ledger,
    lease: LeaseRecord,
    need: number,
    over: Partial<{ chunk: number; limits: BudgetLimits }> = {},
    at = NOW
  ) =>
    topUp(
      ledger,
      {
        id: lease.id,
        need,
        chunk: over.chunk ?? $(0.2),
        limits: over.limits ?? limits({ day: $(1) }),
        known: lease
      },
      at
    )

  test('adds a chunk, or the need when larger, and names the total', () => {
    const { ledger, lease } = open(emptyLedger(NOW), NOW)
    const small = grow(ledger, lease, $(0.05))
    expect(small.result).toMatchObject({ added: $(0.2) })
    const large = grow(ledger, lease, $(0.35))
    expect(large.result).toMatchObject({ added: $(0.35) })
    expect(large.changes[0]).toBe(
      `top-up lease=${lease.id} run=${lease.run.id} attempt=1 ralph=hunt usd=0.350000 granted=0.550000`
    )
  })

  test('grants what is left when it covers the need, and nothing when it does not', () => {
    const { ledger, lease } = open(spentAt(emptyLedger(NOW), NOW, $(0.7)), NOW)
    expect(grow(ledger, lease, $(0.05)).result).toMatchObject({ added: $(0.1) })
    const refused = grow(ledger, lease, $(0.15))
    expect(refused.result).toEqual({
      refusal: expect.objectContaining({
        line: "the repository's budget of $1/day is spent or held ($0.70 spent and $0.20 held by 1 unsettled run, of $1.00; a request may cost up to $0.15); it resets at 00:00 UTC"
      })
    })
    expect(refused.changes).toEqual([])
  })

  test("stops at the run's max-cost", () => {
    const { ledger, lease } = open(emptyLedger(NOW), NOW, { maxCost: $(0.3) })
    expect(grow(ledger, lease, $(0.05)).result).toMatchObject({ added: $(0.1) })
    expect(grow(ledger, lease, $(0.15)).result).toEqual({
      refusal: expect.objectContaining({ line: "this run's max-cost of $0.30 is granted in full" })
    })
  })

  test('an expired lease is not topped up, nor a settled one', () => {
    const { ledger, lease } = open(emptyLedger(NOW), NOW)
    const late = new Date(NOW.getTime() + 7 * 3600_000)
    expect(grow(ledger, lease, $(0.05), {}, late).result).toEqual({
      closed: `lease ${lease.id} expired at ${lease.deadline} (its deadline passed)`
    })
    const done = settle(ledger, { id: lease.id, spent: 0, source: 'run' }, NOW).ledger
    expect(grow(done, lease, $(0.05)).result).toEqual({
      closed: `lease ${lease.id} was settled at ${NOW.toISOString()}`
    })
  })

  test('a lease opened before the ledger started again is counted again, then topped up', () => {
    const { lease } = open(emptyLedger(NOW), NOW)
    const restarted = emptyLedger(new Date(NOW.getTime() + 60_000))
    const r = grow(restarted, lease, $(0.05), {}, new Date(NOW.getTime() + 120_000))
    expect(r.result).toMatchObject({ added: $(0.2) })
    expect(r.changes[1]).toMatch(/^restore lease=.* held=0\.200000 \(opened before this ledger started\)$/)
    expect(granted(r.ledger.leases[0])).toBe($(0.4))
  })
})

describe('settle', () => {
  test('keeps the spend, returns the rest, and adds it by ralph and requester', () => {
    const { ledger, lease } = open(emptyLedger(NOW), NOW, { requester: 'octocat' })
    const r = settle(ledger, { id: lease.id, spent: $(0.12), source: 'run' }, NOW)
    expect(r.result).toEqual({ settled: $(0.12), granted: $(0.2), returned: $(0.08) })
    expect(r.ledger.leases).toEqual([])
    const totals = { spent: $(0.12), byRalph: { hunt: $(0.12) }, byRequester: { octocat: $(0.12) } }
    expect(r.ledger.days['2026-12-01']).toEqual(totals)
    expect(r.ledger.months['2026-12']).toEqual(totals)
    expect(r.changes[0]).toBe(
      `settle lease=${lease.id} run=${lease.run.id} attempt=1 ralph=hunt requester=octocat spent=0.120000 granted=0.200000 returned=0.080000`
    )
  })

  test("spreads the spend over the draws' days in order, and what passed the lease onto the last", () => {
    const { ledger: opened, lease } = open(emptyLedger(NOW), T('2026-12-01T23:50:00.000Z'), {
      deadline: T('2026-12-02T06:00:00.000Z')
    })
    const r = topUp(
      opened,
      { id: lease.id, need: $(0.2), chunk: $(0.2), limits: limits({ day: $(1) }), known: lease },
      T('2026-12-02T00:10:00.000Z')
    )
    const s = settle(r.ledger, { id: lease.id, spent: $(0.5), source: 'run' }, T('2026-12-02T00:20:00.000Z'))
    expect(s.ledger.days['2026-12-01'].spent).toBe($(0.2))
    expect(s.ledger.days['2026-12-02'].spent).toBe($(0.3))
    expect(s.ledger.months['2026-12'].spent).toBe($(0.5))
    expect(s.result).toMatchObject({ returned: 0 })
  })

  test('settling twice changes nothing the second time', () => {
    const { ledger, lease } = open(emptyLedger(NOW), NOW)
    const once = settle(ledger, { id: lease.id, spent: $(0.1), source: 'run' }, NOW)
    const twice = settle(once.ledger, { id: lease.id, spent: $(0.2), known: lease, source: 'run' }, NOW)
    expect(twice.changes).toEqual([])
    expect(twice.result).toEqual({ already: { id: lease.id, at: NOW.toISOString(), spent: $(0.1) } })
  })

  test('a lease not in the ledger (released by hand) is not counted twice; one from before a restart is', () => {
    const { lease } = open(emptyLedger(NOW), NOW)
    const later = new Date(NOW.getTime() + 60_000)
    const unknown = settle(
      emptyLedger(NOW),
      { id: lease.id, spent: $(0.1), known: lease, source: 'run' },
      later
    )
    expect(unknown.result).toEqual({
      unknown: `lease ${lease.id} is not in the ledger (released by hand, or settled long ago)`
    })
    const restarted = settle(
      emptyLedger(later),
      { id: lease.id, spent: $(0.1), known: lease, source: 'run' },
      later
    )
    expect(restarted.result).toMatchObject({ settled: $(0.1) })
    expect(restarted.ledger.days['2026-12-01'].spent).toBe($(0.1))
  })
})

describe('a run that never settled', () => {
  test('counts in full until its deadline, and after it (expired), until its record settles it', () => {
    const limit = limits({ day: $(1) })
    const { ledger, lease } = open(emptyLedger(NOW), NOW, { chunk: $(0.9) })
    const left = (l: Ledger, at: Date) => limitedWindows(l, limit, undefined, at)[0].left
    expect(left(ledger, NOW)).toBe($(0.1))
    const late = new Date(Date.parse(lease.deadline) + 1)
    const expired = expire(ledger, late)
    expect(expired.result).toEqual([lease.id])
    expect(expired.changes[0]).toMatch(
      /^expire lease=.* held=0\.900000 \(its run never settled: counted in full\)$/
    )
    expect(left(expired.ledger, late)).toBe($(0.1))
    // Another run's reservation writes the expiry with it, and is refused its chunk.
    const other = reserve(ledger, request({ minimum: $(0.2) }), late)
    expect(other.result).toMatchObject({ refusal: expect.anything() })
    const fromRecord = settle(expired.ledger, { id: lease.id, spent: $(0.3), source: 'record' }, late)
    expect(fromRecord.changes[0]).toMatch(
      /spent=0\.300000 granted=0\.900000 returned=0\.600000 source=record$/
    )
    expect(left(fromRecord.ledger, late)).toBe($(0.7))
  })
})

describe('compact', () => {
  test('over a simulated year of nightly runs the file stays small, and this month is exact', () => {
    let ledger = emptyLedger(T('2026-01-01T00:00:00.000Z'))
    let spentThisMonth = 0
    let biggest = 0
    const random = seededRandom(7)
    for (let day = 0; day < 365; day++) {
      for (let run = 0; run < 20; run++) {
        const at = new Date(Date.UTC(2026, 0, 1 + day, 1, run))
        if (at.getUTCDate() === 1 && run === 0) spentThisMonth = 0
        const o = reserve(
          ledger,
          request({
            ralph: `ralph-${run % 8}`,
            requester: `user-${run % 5}`,
            limits: limits({}),
            deadline: new Date(at.getTime() + 6 * 3600_000)
          }),
          at
        )
        if (!('lease' in o.result)) throw new Error('refused')
        ledger = o.ledger
        // One run in fifty is killed and never settles.
        if (random() < 0.02) continue
        const spent = Math.floor(random() * $(0.2))
        ledger = settle(ledger, { id: o.result.lease.id, spent, source: 'run' }, at).ledger
        spentThisMonth += spent
      }
      biggest = Math.max(biggest, serializeLedger(ledger).length)
    }
    const end = T('2026-12-31T23:00:00.000Z')
    ledger = compact(expire(ledger, end).ledger, end).ledger
    // 620 runs a month, 8 ralphs, 5 requesters, one run in fifty killed: about 19 KB at the most.
    expect(biggest).toBeLessThan(32 * 1024)
    expect(Object.keys(ledger.days)).toHaveLength(31)
    expect(Object.keys(ledger.months)).toHaveLength(12)
    expect(ledger.leases.every(l => l.draws.every(d => d.at >= '2026-12'))).toBe(true)
    const killed = ledger.leases.reduce((s, l) => s + granted(l), 0)
    expect(limitedWindows(ledger, limits({ month: $(1000) }), undefined, end)[0]).toMatchObject({
      spent: spentThisMonth,
      held: killed
    })
    expect(parseLedger(serializeLedger(ledger))).toEqual(ledger)
  })
})

describe('no interleaving ever grants past a limit', () => {
  interface Run {
    id: string
    requester: string
    lease?: LeaseRecord
    /** Metered so far (what the upstream billed it). */
    spent: number
    /** A write computed and not yet landed or lost: a run does one thing at a time. */
    busy: boolean
    done: boolean
  }
  const budget = limits({ day: $(1), month: $(3) }, { day: $(0.45) })

  /** Every window the ledger holds anything in, checked against its limit: the repository's and each requester's. */
  function assertWithinLimits(l: Ledger, requesters: string[]): void {
    const keys = (kind: 'day' | 'month') =>
      new Set([
        ...Object.keys(kind === 'day' ? l.days : l.months),
        ...l.leases.flatMap(x => x.draws.map(d => d.at.slice(0, kind === 'day' ? 10 : 7)))
      ])
    for (const kind of ['day', 'month'] as const)
      for (const key of keys(kind)) {
        const at = new Date(kind === 'day' ? `${key}T12:00:00.000Z` : `${key}-15T12:00:00.000Z`)
        for (const w of limitedWindows(l, budget, undefined, at).concat(
          requesters.flatMap(who => limitedWindows(l, limits({}, budget.perRequester), who, at))
        ))
          if (w.kind === kind) expect(w.spent + w.held).toBeLessThanOrEqual(w.limit as number)
      }
  }

  test.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'seed %i: 12 runs reserve, top up, spend and settle in any order, across midnights',
    seed => {
      const random = seededRandom(seed)
      // The remote: a ledger and its version; a write lands only if nobody wrote since it was read (the lease push).
      let remote = { version: 0, ledger: emptyLedger(T('2026-12-30T20:00:00.000Z')) }
      const runs: Run[] = []
      const requesters = ['user-0', 'user-1', 'user-2']
      let clock = Date.parse('2026-12-30T20:00:00.000Z')
      let billed = 0
      let refusals = 0
      const pending: Array<{ run: Run; version: number; outcome: { ledger: Ledger; result: unknown } }> = []
      for (let step = 0; step < 800; step++) {
        clock += Math.floor(random() * 6 * 60_000)
        const now = new Date(clock)
        if (runs.length < 12 && (random() < 0.1 || runs.length === 0)) {
          runs.push({
            id: `r${runs.length}`,
            requester: requesters[Math.floor(random() * 3)],
            spent: 0,
            busy: false,
            done: false
          })
          continue
        }
        if (random() < 0.45 && pending.length > 0) {
          // One write reaches the remote: it lands if the ledger is as that run read it, else the run lost the race.
          const [write] = pending.splice(Math.floor(random() * pending.length), 1)
          write.run.busy = false
          if (write.version !== remote.version) continue
          remote = { version: remote.version + 1, ledger: write.outcome.ledger }
          const r = write.outcome.result as Record<string, unknown>
          if ('lease' in r) write.run.lease = r.lease as LeaseRecord
          if ('settled' in r) write.run.done = true
        } else {
          const run = runs[Math.floor(random() * runs.length)]
          if (run.done || run.busy) continue
          const ledger = remote.ledger
          let outcome
          if (!run.lease) {
            outcome = reserve(
              ledger,
              {
                ...request({
                  id: run.id,
                  requester: run.requester,
                  limits: budget,
                  chunk: $(0.15),
                  minimum: $(0.05)
                }),
                deadline: new Date(clock + 3 * 3600_000)
              },
              now
            )
          } else if (random() < 0.7) {
            // The proxy spends only what is granted; then it asks for more.
            const spend = Math.floor(random() * (granted(run.lease) - run.spent + 1))
            run.spent += spend
            billed += spend
            outcome = topUp(
              ledger,
              {
                id: run.id,
                need: Math.floor(random() * $(0.1)) + 1,
                chunk: $(0.15),
                limits: budget,
                known: run.lease
              },
              now
            )
          } else {
            outcome = settle(ledger, { id: run.id, spent: run.spent, known: run.lease, source: 'run' }, now)
          }
          if (outcome.changes.length === 0) refusals++
          else {
            run.busy = true
            pending.push({ run, version: remote.version, outcome })
          }
        }
        assertWithinLimits(remote.ledger, requesters)
      }
      // Every run's metered spend is in the ledger: settled, or held by its lease (which holds at least as much).
      const l = remote.ledger
      const settledSpend = Object.values(l.months).reduce((s, t) => s + t.spent, 0)
      const held = runs.filter(r => r.lease && !r.done)
      expect(settledSpend).toBe(runs.filter(r => r.done).reduce((s, r) => s + r.spent, 0))
      for (const r of held)
        expect(granted(l.leases.find(x => x.id === r.id) as LeaseRecord)).toBeGreaterThanOrEqual(r.spent)
      expect(settledSpend + held.reduce((s, r) => s + r.spent, 0)).toBe(billed)
      // The run was a contest: some settled, some were refused.
      expect(runs.filter(r => r.done).length).toBeGreaterThan(3)
      expect(refusals).toBeGreaterThan(0)
    }
  )
})
