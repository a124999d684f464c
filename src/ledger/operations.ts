// The ledger's operations, pure: each takes the ledger as read and answers the ledger to write, the lines
// that say what changed (the commit's message) and the result. A window's limit is the one the run is
// given; what counts against it is everything in the ledger: spend settled in the window, and every lease
// not settled (open, or expired: a run that never settled is counted in full) for what it drew in the window.
import { describeLimit, type BudgetLimits, type WindowLimits } from './budget.js'
import {
  emptyTotals,
  nameMap,
  type Draw,
  type LeaseRecord,
  type Ledger,
  type RunRef,
  type Settlement,
  type Totals
} from './format.js'
import { formatUsd, type Micros } from './money.js'
import {
  monthKey,
  resetPhrase,
  resetsAt,
  startOf,
  WINDOW_KINDS,
  windowKey,
  type WindowKind
} from './windows.js'

/** Whose budget a window is: the repository's, or one requester's. */
export type Scope = { kind: 'repository' } | { kind: 'requester'; login: string }

/** One window as the ledger has it now. */
export interface WindowState {
  scope: Scope
  kind: WindowKind
  key: string
  /** Undefined: the run was given no limit for this window. */
  limit?: Micros
  /** Settled spend. */
  spent: Micros
  /** Held by leases not settled (open or expired), for what they drew in this window. */
  held: Micros
  /** How many leases hold part of it. */
  holders: number
  /** limit − spent − held, never below 0; undefined without a limit. */
  left?: Micros
  resets: Date
}

/** Why the ledger grants nothing: one line saying which budget is spent and when it resets. */
export interface Refusal {
  line: string
  /** The window that refused (none when it was the run's own max-cost). */
  window?: WindowState
  /** What was asked for: one request's worth, or what a request needed. */
  needed: Micros
}

export interface Outcome<T> {
  ledger: Ledger
  /** What changed, one line each (`reserve lease=… usd=…`): the commit's message. Empty: nothing to write. */
  changes: string[]
  result: T
}

/** How long a settlement is remembered, so settling twice (main, then post) changes nothing. */
export const SETTLED_KEPT_MS = 2 * 24 * 3600 * 1000
export const MOST_SETTLED_KEPT = 2000
/** Days kept, for people reading the ledger (a day's limit needs only today). */
export const DAYS_KEPT = 31

const usd = (m: Micros): string => (m / 1e6).toFixed(6)

export const granted = (lease: Pick<LeaseRecord, 'draws'>): Micros =>
  lease.draws.reduce((sum, d) => sum + d.usd, 0)

function who(lease: Pick<LeaseRecord, 'id' | 'run' | 'ralph' | 'requester'>): string {
  const parts = [`lease=${lease.id}`, `run=${lease.run.id}`, `attempt=${lease.run.attempt}`]
  if (lease.run.job) parts.push(`job=${JSON.stringify(lease.run.job)}`)
  if (lease.ralph) parts.push(`ralph=${lease.ralph}`)
  if (lease.requester) parts.push(`requester=${lease.requester}`)
  return parts.join(' ')
}

const inScope = (lease: Pick<LeaseRecord, 'requester'>, scope: Scope): boolean =>
  scope.kind === 'repository' || lease.requester === scope.login

/** The window of `kind` that `now` falls in, for `scope`, measured against `limit`. */
export function windowState(
  ledger: Ledger,
  scope: Scope,
  kind: WindowKind,
  now: Date,
  limit?: Micros
): WindowState {
  const key = windowKey(kind, now)
  const totals = (kind === 'day' ? ledger.days : ledger.months)[key]
  const spent = !totals
    ? 0
    : scope.kind === 'repository'
      ? totals.spent
      : (totals.byRequester[scope.login] ?? 0)
  let held = 0
  let holders = 0
  for (const lease of ledger.leases) {
    if (!inScope(lease, scope)) continue
    const here = lease.draws
      .filter(d => windowKey(kind, new Date(d.at)) === key)
      .reduce((s, d) => s + d.usd, 0)
    if (here > 0) {
      held += here
      holders++
    }
  }
  const state: WindowState = { scope, kind, key, spent, held, holders, resets: resetsAt(kind, now) }
  if (limit !== undefined) {
    state.limit = limit
    state.left = Math.max(0, limit - spent - held)
  }
  return state
}

/** Every window with a limit that applies to a run of `requester` (the per-requester ones only with one). */
export function limitedWindows(
  ledger: Ledger,
  limits: BudgetLimits,
  requester: string | undefined,
  now: Date
): WindowState[] {
  const out: WindowState[] = []
  const add = (scope: Scope, given: WindowLimits): void => {
    for (const kind of WINDOW_KINDS)
      if (given[kind] !== undefined) out.push(windowState(ledger, scope, kind, now, given[kind]))
  }
  add({ kind: 'repository' }, limits.repository)
  if (requester !== undefined) add({ kind: 'requester', login: requester }, limits.perRequester)
  return out
}

/** What the ledger can still grant across `windows`: the least left; Infinity when none is limited. */
export function leftOf(windows: WindowState[]): number {
  return windows.reduce((least, w) => Math.min(least, w.left ?? Infinity), Infinity)
}

/**
 * The refusal for `needed` when some window has less left: the window named is the one that frees up last
 * (a spent month outlasts a spent day), the repository's before a requester's.
 */
export function refusalFor(windows: WindowState[], needed: Micros): Refusal | undefined {
  const short = windows.filter(w => (w.left ?? Infinity) < needed)
  if (short.length === 0) return undefined
  const rank = (w: WindowState): number => w.resets.getTime() * 2 + (w.scope.kind === 'repository' ? 1 : 0)
  const window = short.reduce((a, b) => (rank(b) > rank(a) ? b : a))
  return { line: refusalLine(window, needed), window, needed }
}

/**
 * `the repository's budget of $20/day is spent ($20.00 of $20.00); it resets at 00:00 UTC`, and so on for
 * a requester's, a month's, what runs not settled hold, and what is left when it is less than a request.
 */
export function refusalLine(w: WindowState, needed: Micros): string {
  const limit = w.limit ?? 0
  const whose = w.scope.kind === 'repository' ? "the repository's" : `${w.scope.login}'s`
  const used =
    w.held > 0
      ? `${formatUsd(w.spent)} spent and ${formatUsd(w.held)} held by ${w.holders} unsettled run${w.holders === 1 ? '' : 's'}, of ${formatUsd(limit)}`
      : `${formatUsd(w.spent)} of ${formatUsd(limit)}`
  const tail = (w.left ?? 0) > 0 ? `; a request may cost up to ${formatUsd(needed)}` : ''
  return `${whose} budget of ${describeLimit(w.kind, limit)} is ${w.held > 0 ? 'spent or held' : 'spent'} (${used}${tail}); it resets ${resetPhrase(w.kind, new Date(w.resets.getTime() - 1))}`
}

/** Expires the open leases whose deadline has passed: their runs are over and never settled. */
export function expire(ledger: Ledger, now: Date): Outcome<string[]> {
  const changes: string[] = []
  const expired: string[] = []
  const leases = ledger.leases.map(lease => {
    if (lease.state !== 'open' || Date.parse(lease.deadline) > now.getTime()) return lease
    expired.push(lease.id)
    changes.push(`expire ${who(lease)} held=${usd(granted(lease))} (its run never settled: counted in full)`)
    return { ...lease, state: 'expired' as const }
  })
  return { ledger: expired.length ? { ...ledger, leases } : ledger, changes, result: expired }
}

/**
 * Keeps the file small: the last 31 days, the months of the last year, the settlements of the last two days;
 * an expired lease that drew only in months gone by is folded into their totals, in full.
 */
export function compact(ledger: Ledger, now: Date): Outcome<void> {
  const thisMonth = monthKey(now)
  const firstDay = windowKey(
    'day',
    new Date(startOf('day', now).getTime() - (DAYS_KEPT - 1) * 24 * 3600 * 1000)
  )
  const firstMonth = monthKey(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 12, 1)))
  let next: Ledger = ledger
  const folded = ledger.leases.filter(
    l => l.state === 'expired' && l.draws.every(d => monthKey(new Date(d.at)) < thisMonth)
  )
  if (folded.length > 0) {
    next = {
      ...next,
      days: { ...next.days },
      months: { ...next.months },
      leases: next.leases.filter(l => !folded.includes(l))
    }
    for (const lease of folded)
      addSpend(
        next,
        lease,
        lease.draws.map(d => ({ draw: d, spent: d.usd }))
      )
  }
  const days = Object.keys(next.days).filter(k => k < firstDay)
  const months = Object.keys(next.months).filter(k => k < firstMonth)
  const keptSince = now.getTime() - SETTLED_KEPT_MS
  const settled = next.settled.filter(s => Date.parse(s.at) >= keptSince).slice(-MOST_SETTLED_KEPT)
  if (
    days.length === 0 &&
    months.length === 0 &&
    folded.length === 0 &&
    settled.length === next.settled.length
  )
    return { ledger, changes: [], result: undefined }
  const drop = <T>(map: Record<string, T>, keys: string[]): Record<string, T> =>
    Object.fromEntries(Object.entries(map).filter(([k]) => !keys.includes(k)))
  next = { ...next, days: drop(next.days, days), months: drop(next.months, months), settled }
  const parts = ['compact']
  if (days.length) parts.push(`days-before=${firstDay}`)
  if (months.length) parts.push(`months-before=${firstMonth}`)
  if (folded.length)
    parts.push(`folded=${folded.map(l => l.id).join(',')} (expired in months gone by: counted in full)`)
  if (settled.length !== ledger.settled.length)
    parts.push(`forgot-settlements=${ledger.settled.length - settled.length}`)
  return { ledger: next, changes: [parts.join(' ')], result: undefined }
}

/** Adds spend to the totals of the windows of each draw (mutates `ledger`'s maps, which the caller copied). */
function addSpend(
  ledger: Ledger,
  lease: Pick<LeaseRecord, 'ralph' | 'requester'>,
  parts: Array<{ draw: Draw; spent: Micros }>
): void {
  for (const { draw, spent } of parts) {
    if (spent <= 0) continue
    const at = new Date(draw.at)
    for (const [map, key] of [
      [ledger.days, windowKey('day', at)],
      [ledger.months, windowKey('month', at)]
    ] as const) {
      const was = map[key]
      const t: Totals = was
        ? { spent: was.spent, byRalph: nameMap(was.byRalph), byRequester: nameMap(was.byRequester) }
        : emptyTotals()
      t.spent += spent
      if (lease.ralph) t.byRalph[lease.ralph] = (t.byRalph[lease.ralph] ?? 0) + spent
      if (lease.requester) t.byRequester[lease.requester] = (t.byRequester[lease.requester] ?? 0) + spent
      map[key] = t
    }
  }
}

/** Expire, then compact: done before every change that is written. */
function housekeep(ledger: Ledger, now: Date): { ledger: Ledger; changes: string[] } {
  const expired = expire(ledger, now)
  const compacted = compact(expired.ledger, now)
  return { ledger: compacted.ledger, changes: [...expired.changes, ...compacted.changes] }
}

export interface ReserveRequest {
  /** The lease's id (lease.ts makes one per run: `<run>.<attempt>-<random>`). */
  id: string
  run: RunRef
  ralph?: string
  requester?: string
  /** The job's deadline: after it the lease expires (still counted in full). */
  deadline: Date
  limits: BudgetLimits
  /** The run's own max-cost: the lease never grows past it. */
  maxCost?: Micros
  /** How much to take at once (a few writes a run, not one a request). */
  chunk: Micros
  /** One request's worth: with less left than this, nothing is granted. */
  minimum: Micros
}

export type ReserveResult = { lease: LeaseRecord; granted: Micros } | { refusal: Refusal }

/** Opens a lease: the least of what every window has left, the run's max-cost and the chunk. */
export function reserve(ledger: Ledger, request: ReserveRequest, now: Date): Outcome<ReserveResult> {
  const existing = ledger.leases.find(l => l.id === request.id)
  if (existing) return { ledger, changes: [], result: { lease: existing, granted: granted(existing) } }
  const kept = housekeep(ledger, now)
  const windows = limitedWindows(kept.ledger, request.limits, request.requester, now)
  const refusal = refusalFor(windows, request.minimum)
  if (refusal) return { ledger, changes: [], result: { refusal } }
  const amount = Math.min(leftOf(windows), request.chunk, request.maxCost ?? Infinity)
  const lease: LeaseRecord = {
    id: request.id,
    state: 'open',
    run: request.run,
    ...(request.ralph !== undefined ? { ralph: request.ralph } : {}),
    ...(request.requester !== undefined ? { requester: request.requester } : {}),
    opened: now.toISOString(),
    deadline: request.deadline.toISOString(),
    ...(request.maxCost !== undefined ? { maxCost: request.maxCost } : {}),
    draws: [{ at: now.toISOString(), usd: amount }]
  }
  const next: Ledger = { ...kept.ledger, leases: [...kept.ledger.leases, lease] }
  const limits = { repository: request.limits.repository, perRequester: request.limits.perRequester }
  if (
    JSON.stringify(limits) !==
    JSON.stringify({ repository: next.limits?.repository, perRequester: next.limits?.perRequester })
  )
    next.limits = { ...limits, at: now.toISOString() }
  return {
    ledger: next,
    changes: [`reserve ${who(lease)} usd=${usd(amount)}`, ...kept.changes],
    result: { lease, granted: amount }
  }
}

export interface TopUpRequest {
  id: string
  /** What the run needs on top of what it was granted (a request's worst case beyond the lease). */
  need: Micros
  chunk: Micros
  limits: BudgetLimits
  /** The lease as the run knows it: put back if the ledger started again empty since it was opened. */
  known: LeaseRecord
}

export type TopUpResult = { lease: LeaseRecord; added: Micros } | { refusal: Refusal } | { closed: string }

/** Grows an open lease by at least `need` (a chunk when there is room), or grants nothing. */
export function topUp(ledger: Ledger, request: TopUpRequest, now: Date): Outcome<TopUpResult> {
  const kept = housekeep(ledger, now)
  let base = kept.ledger
  const changes: string[] = []
  let lease = base.leases.find(l => l.id === request.id)
  if (!lease) {
    const reason = missing(ledger, request.id, request.known)
    if (reason) return { ledger, changes: [], result: { closed: reason } }
    // The ledger was deleted and started again while this run held a lease: it is counted again.
    lease = { ...request.known, state: 'open' }
    base = { ...base, leases: [...base.leases, lease] }
    changes.push(`restore ${who(lease)} held=${usd(granted(lease))} (opened before this ledger started)`)
  }
  if (lease.state !== 'open')
    return {
      ledger,
      changes: [],
      result: { closed: `lease ${lease.id} expired at ${lease.deadline} (its deadline passed)` }
    }
  const windows = limitedWindows(base, request.limits, lease.requester, now)
  const room = Math.min(leftOf(windows), (lease.maxCost ?? Infinity) - granted(lease))
  const refusal =
    refusalFor(windows, request.need) ??
    (room < request.need
      ? {
          line: `this run's max-cost of ${formatUsd(lease.maxCost ?? 0)} is granted in full`,
          needed: request.need
        }
      : undefined)
  if (refusal) return { ledger, changes: [], result: { refusal } }
  const added = Math.min(Math.max(request.need, request.chunk), room)
  const grown: LeaseRecord = { ...lease, draws: [...lease.draws, { at: now.toISOString(), usd: added }] }
  return {
    ledger: { ...base, leases: base.leases.map(l => (l.id === grown.id ? grown : l)) },
    changes: [
      `top-up ${who(grown)} usd=${usd(added)} granted=${usd(granted(grown))}`,
      ...changes,
      ...kept.changes
    ],
    result: { lease: grown, added }
  }
}

/**
 * Why a lease is not in the ledger, or undefined when it should be put back: it was opened before this
 * ledger started (the ref was deleted and begun again), so its money was never counted here.
 */
function missing(ledger: Ledger, id: string, known: LeaseRecord | undefined): string | undefined {
  const settled = ledger.settled.find(s => s.id === id)
  if (settled) return `lease ${id} was settled at ${settled.at}`
  if (known && Date.parse(known.opened) < Date.parse(ledger.since)) return undefined
  return `lease ${id} is not in the ledger (released by hand, or settled long ago)`
}

export interface SettleRequest {
  id: string
  /** What the run spent, as metered. */
  spent: Micros
  /** The lease as the run knows it: its spend is recorded even if the ledger started again since. */
  known?: LeaseRecord
  /** Who settles: the run itself, a later look at its record, or a person. */
  source: 'run' | 'record' | 'hand'
}

export type SettleResult =
  { settled: Micros; granted: Micros; returned: Micros } | { already: Settlement } | { unknown: string }

/** Turns a lease into its spend: each draw keeps what was spent of it, the rest goes back. */
export function settle(ledger: Ledger, request: SettleRequest, now: Date): Outcome<SettleResult> {
  const already = ledger.settled.find(s => s.id === request.id)
  if (already) return { ledger, changes: [], result: { already } }
  const kept = housekeep(ledger, now)
  const found = kept.ledger.leases.find(l => l.id === request.id)
  const lease =
    found ?? (missing(ledger, request.id, request.known) === undefined ? request.known : undefined)
  if (!lease)
    return { ledger, changes: [], result: { unknown: missing(ledger, request.id, request.known) as string } }
  const total = granted(lease)
  // Spend past the lease (a meter that cannot pre-authorise) is recorded too, in the last draw's windows.
  let rest = request.spent
  const parts = lease.draws.map((draw, i) => {
    const spent = i === lease.draws.length - 1 ? rest : Math.min(draw.usd, rest)
    rest -= spent
    return { draw, spent }
  })
  const next: Ledger = {
    ...kept.ledger,
    days: { ...kept.ledger.days },
    months: { ...kept.ledger.months },
    leases: kept.ledger.leases.filter(l => l.id !== request.id),
    settled: [...kept.ledger.settled, { id: request.id, at: now.toISOString(), spent: request.spent }]
  }
  addSpend(next, lease, parts)
  const returned = Math.max(0, total - request.spent)
  const note = found ? '' : ' (opened before this ledger started)'
  const source = request.source === 'run' ? '' : ` source=${request.source}`
  return {
    ledger: next,
    changes: [
      `settle ${who(lease)} spent=${usd(request.spent)} granted=${usd(total)} returned=${usd(returned)}${source}${note}`,
      ...kept.changes
    ],
    result: { settled: request.spent, granted: total, returned }
  }
}
