// What the action and the model proxy call: a run opens a lease before its first agent run, the proxy spends
// against it (topping it up a chunk at a time, so the ledger is written a few times a run, not once a
// request), and the run settles it at the end: the lease becomes the metered spend, the rest goes back.
import { randomBytes } from 'node:crypto'
import { type BudgetLimits } from './budget.js'
import {
  LEDGER_NAME,
  readBudgetLimits,
  readLease,
  type LeaseRecord,
  type Ledger,
  type RunRef
} from './format.js'
import { formatUsd, microsOf, usdOf, type Micros } from './money.js'
import {
  granted,
  leftOf,
  limitedWindows,
  reserve,
  settle,
  topUp,
  type Refusal,
  type SettleRequest,
  type WindowState
} from './operations.js'
import { LedgerError, type LedgerStore } from './store.js'

export interface LeaseRequest {
  run: RunRef
  ralph?: string
  /** The login of who started the run through `/ralph`, a label or a pull request (none for a schedule). */
  requester?: string
  limits: BudgetLimits
  /** The run's own max-cost: the lease never grows past it. */
  maxCostUsd?: number
  /** One request's worth (a request's worst case at the proxy): with less left, the run runs no agent. */
  minimumUsd: number
  /** Taken at once, and at each top-up (default: chunkFor). */
  chunkUsd?: number
  /** The job's deadline: after it an unsettled lease is expired (and still counted in full). */
  deadline: Date
}

/** What the run's windows have left, after the lease's last change: for the summary and `budget-left`. */
export interface BudgetStatus {
  /** Every window with a limit that applies to the run: the repository's, and its requester's. */
  windows: WindowState[]
  /** The least any of them has left, in dollars; undefined when none is limited. */
  leftUsd?: number
}

export type Opened = { lease: Lease } | { refused: Refusal; status: BudgetStatus }

/** A lease as it moves between steps and jobs: the post step, or a two-job workflow's later jobs. */
export interface LeaseState {
  version: 1
  ref: string
  lease: LeaseRecord
  limits: BudgetLimits
  chunk: Micros
}

export interface Settled {
  spentUsd: number
  grantedUsd: number
  returnedUsd: number
  status: BudgetStatus
  /** Set when nothing was written: already settled (by the main step, by hand), or no longer in the ledger. */
  note?: string
}

/** What the model proxy spends against: a lease, or (in a two-job workflow's agent job) a fixed one. */
export interface SpendingCap {
  /** Dollars granted so far: what the run may spend. Only grows. */
  grantedUsd(): number
  /**
   * Makes sure `totalUsd` is granted in all (what the run spent, what its requests in flight hold, and the
   * worst case of the next one), topping up through the ledger by at least a chunk. False: the ledger
   * cannot grant it, and `refusal()` says why in one line; the request must not go up.
   */
  cover(totalUsd: number): Promise<boolean>
  /** Why the last `cover` failed (which budget is spent and when it resets), if it did. */
  refusal(): Refusal | undefined
}

export interface Lease extends SpendingCap {
  readonly id: string
  /** The lease becomes `spentUsd` (the metered spend); the rest goes back. Settling again changes nothing. */
  settle(spentUsd: number): Promise<Settled>
  /** The lease as JSON-able state (for `saveState`, or a job output). */
  state(): LeaseState
  /** What the run's windows have left, as of the lease's last change. */
  status(): BudgetStatus
}

/** The chunk: a tenth of the tightest limit, at least two requests' worth, at most $5. */
export function chunkFor(limits: BudgetLimits, minimumUsd: number): number {
  const all = [...Object.values(limits.repository), ...Object.values(limits.perRequester)]
  const tightest = Math.min(...all.map(usdOf), Infinity)
  return Math.max(minimumUsd * 2, Math.min(tightest / 10, 5))
}

/** A lease's id: the run, its attempt and a random part (a matrix's jobs share the run and the attempt). */
export function leaseId(run: RunRef): string {
  const id = `${run.id}.${run.attempt}-${randomBytes(3).toString('hex')}`
  if (!LEDGER_NAME.test(id))
    throw new Error(`a run id of letters, digits and _.- is needed, got ${JSON.stringify(run.id)}`)
  return id
}

function statusOf(
  ledger: Ledger,
  limits: BudgetLimits,
  requester: string | undefined,
  now: Date
): BudgetStatus {
  const windows = limitedWindows(ledger, limits, requester, now)
  const left = leftOf(windows)
  return { windows, ...(Number.isFinite(left) ? { leftUsd: usdOf(left) } : {}) }
}

/**
 * Reserves the run's lease before its first agent run: the least of what every window has left, its
 * max-cost and a chunk. Refused (no agent runs) when that is less than one request's worth.
 */
export async function openLease(store: LedgerStore, request: LeaseRequest): Promise<Opened> {
  const minimum = microsOf(request.minimumUsd, 'up')
  const chunk = Math.max(
    minimum,
    microsOf(request.chunkUsd ?? chunkFor(request.limits, request.minimumUsd), 'down')
  )
  const applied = await store.apply((ledger, now) =>
    reserve(
      ledger,
      {
        id: leaseId(request.run),
        run: request.run,
        ...(request.ralph !== undefined ? { ralph: request.ralph } : {}),
        ...(request.requester !== undefined ? { requester: request.requester } : {}),
        deadline: request.deadline,
        limits: request.limits,
        ...(request.maxCostUsd !== undefined ? { maxCost: microsOf(request.maxCostUsd, 'down') } : {}),
        chunk,
        minimum
      },
      now
    )
  )
  const status = statusOf(applied.ledger, request.limits, request.requester, store.now())
  if ('refusal' in applied.result) return { refused: applied.result.refusal, status }
  const state: LeaseState = {
    version: 1,
    ref: store.ref,
    lease: applied.result.lease,
    limits: request.limits,
    chunk
  }
  return { lease: new LedgerLease(store, state, status) }
}

/** A lease opened earlier (by the main step, or by another job), to top up or settle. */
export function resumeLease(store: LedgerStore, state: LeaseState): Lease {
  if (state.ref !== store.ref)
    throw new LedgerError(
      `The lease ${state.lease.id} is in ${state.ref}, not in ${store.ref}: give the same ledger-ref to every job.`
    )
  return new LedgerLease(store, state, { windows: [] })
}

/**
 * A lease another job reserved, as a fixed cap: a two-job workflow's agent job has no token to write the
 * ledger, so it spends what the reserve job granted and no more.
 */
export function fixedCap(state: LeaseState): SpendingCap {
  const cap = granted(state.lease)
  let last: Refusal | undefined
  return {
    grantedUsd: () => usdOf(cap),
    cover: async totalUsd => {
      const total = microsOf(totalUsd, 'up')
      if (total <= cap) return true
      last = {
        line: `the lease the reserve job took (${formatUsd(cap)}, lease ${state.lease.id}) is spent: this job cannot top it up`,
        needed: total - cap
      }
      return false
    },
    refusal: () => last
  }
}

/** Settles a lease from its state alone (the deliver job, the post step, or by hand from the run's record). */
export async function settleLease(
  store: LedgerStore,
  state: LeaseState,
  spentUsd: number,
  source: SettleRequest['source'] = 'run'
): Promise<Settled> {
  return new LedgerLease(store, state, { windows: [] }).settleAs(spentUsd, source)
}

class LedgerLease implements Lease {
  private record: LeaseRecord
  private last: Refusal | undefined
  private settled: Settled | undefined
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly store: LedgerStore,
    private readonly initial: LeaseState,
    private current: BudgetStatus
  ) {
    this.record = initial.lease
  }

  get id(): string {
    return this.record.id
  }

  grantedUsd(): number {
    return usdOf(granted(this.record))
  }

  refusal(): Refusal | undefined {
    return this.last
  }

  status(): BudgetStatus {
    return this.current
  }

  state(): LeaseState {
    return { ...this.initial, lease: this.record }
  }

  /** One ledger write at a time: a second request waiting on a top-up finds it done. */
  private serial<T>(step: () => Promise<T>): Promise<T> {
    const next = this.queue.then(step, step)
    this.queue = next.catch(() => undefined)
    return next
  }

  cover(totalUsd: number): Promise<boolean> {
    // NaN or infinite (a meter's bug) rounds up to more than any budget: refused, never waved through.
    const total = microsOf(totalUsd, 'up')
    if (total <= granted(this.record)) return Promise.resolve(true)
    return this.serial(async () => {
      const have = granted(this.record)
      if (total <= have) return true
      if (this.settled) {
        this.last = { line: `lease ${this.id} is settled`, needed: total - have }
        return false
      }
      try {
        const applied = await this.store.apply((ledger, now) =>
          topUp(
            ledger,
            {
              id: this.id,
              need: total - have,
              chunk: this.initial.chunk,
              limits: this.initial.limits,
              known: this.record
            },
            now
          )
        )
        this.current = statusOf(applied.ledger, this.initial.limits, this.record.requester, this.store.now())
        const result = applied.result
        if ('lease' in result) {
          this.record = result.lease
          this.last = undefined
          return true
        }
        this.last = 'refusal' in result ? result.refusal : { line: result.closed, needed: total - have }
      } catch (error) {
        // Fail closed: what the ledger cannot grant is not spent.
        if (!(error instanceof LedgerError)) throw error
        this.last = { line: error.message, needed: total - have }
      }
      return false
    })
  }

  settle(spentUsd: number): Promise<Settled> {
    return this.settleAs(spentUsd, 'run')
  }

  settleAs(spentUsd: number, source: SettleRequest['source']): Promise<Settled> {
    return this.serial(async () => {
      if (this.settled) return this.settled
      // A spend no meter could give (NaN, infinite) settles the lease in full.
      const spent = Number.isFinite(spentUsd) ? microsOf(spentUsd, 'up') : granted(this.record)
      const applied = await this.store.apply((ledger, now) =>
        settle(ledger, { id: this.id, spent, known: this.record, source }, now)
      )
      this.current = statusOf(applied.ledger, this.initial.limits, this.record.requester, this.store.now())
      const result = applied.result
      const total = granted(this.record)
      const settled: Settled =
        'settled' in result
          ? {
              spentUsd: usdOf(result.settled),
              grantedUsd: usdOf(result.granted),
              returnedUsd: usdOf(result.returned),
              status: this.current
            }
          : {
              spentUsd: usdOf('already' in result ? result.already.spent : spent),
              grantedUsd: usdOf(total),
              returnedUsd: 0,
              status: this.current,
              note:
                'already' in result
                  ? `lease ${this.id} was already settled at ${result.already.at}`
                  : result.unknown
            }
      this.settled = settled
      return settled
    })
  }
}

/** A lease handed from one job to another, as a job output: JSON, read strictly, one line when it is wrong. */
export function parseLeaseState(text: string, input = 'lease'): LeaseState | { problem: string } {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { problem: `Input '${input}' is not a lease: give the reserve job's output \`lease\` as it is.` }
  }
  const value = json as Partial<LeaseState> | null
  try {
    if (typeof value !== 'object' || value === null || value.version !== 1 || typeof value.ref !== 'string')
      throw new Error('it is not a lease of version 1')
    const chunk = value.chunk
    if (typeof chunk !== 'number' || !Number.isSafeInteger(chunk) || chunk <= 0)
      throw new Error('its chunk is not an amount')
    const limits = readBudgetLimits(value.limits, 'limits')
    return { version: 1, ref: value.ref, lease: readLease(value.lease, 'lease'), limits, chunk }
  } catch (error) {
    return {
      problem: `Input '${input}' is not a lease (${(error as Error).message}): give the reserve job's output \`lease\` as it is.`
    }
  }
}
