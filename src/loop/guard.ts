// Budgets enforced by force: one abort signal for the whole run that fires when time runs out, when the
// dollar budget is crossed while the agent runs, or when the caller cancels. Every process the loop
// starts gets this signal, so its whole tree is killed at once.
import type { CostMeter } from '../agents/cost-meter.js'
import type { Clock } from './types.js'

export type EnforcedStop = 'timeout' | 'budget_exhausted' | 'budget' | 'cancelled'

export interface Trip {
  cause: EnforcedStop
  /** Clock time of the crossing (the deadline itself for time, the meter update for cost). */
  at: number
  /** One line for people. */
  detail: string
}

const MAX_TIMER_MS = 2 ** 31 - 1

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS))
    return () => clearTimeout(timer)
  }
}

export interface GuardOptions {
  clock: Clock
  signal?: AbortSignal | undefined
  /** Clock time when the total time budget runs out; undefined: no time budget. */
  deadline?: number | undefined
  meter: CostMeter
  /** Undefined: no dollar budget. */
  maxCostUsd?: number | undefined
}

export class LoopGuard {
  private readonly controller = new AbortController()
  private readonly cleanups: (() => void)[] = []
  private watchingCost = false
  trip?: Trip

  constructor(private readonly options: GuardOptions) {
    const { clock, signal, deadline, meter } = options
    if (signal?.aborted) this.fire('cancelled', clock.now(), 'the run was cancelled')
    else if (signal) {
      const onAbort = (): void => this.fire('cancelled', clock.now(), 'the run was cancelled')
      signal.addEventListener('abort', onAbort, { once: true })
      this.cleanups.push(() => signal.removeEventListener('abort', onAbort))
    }
    if (deadline !== undefined)
      this.cleanups.push(
        clock.setTimeout(
          () => this.fire('timeout', deadline, 'the total time budget ran out'),
          deadline - clock.now()
        )
      )
    this.cleanups.push(meter.onChange(() => this.checkCost()))
  }

  /** Aborts when the run must stop now; pass it to every process the loop starts. */
  get signal(): AbortSignal {
    return this.controller.signal
  }

  /** Cost is enforced mid-run only while an agent runs (checks and commands cost nothing). */
  watchCost(on: boolean): void {
    this.watchingCost = on
    if (on) this.checkCost()
  }

  /** The dollar budget is already spent by finished runs, or a request's worst case no longer fits in it. */
  costSpent(): boolean {
    const max = this.options.maxCostUsd
    return (
      max !== undefined && (this.options.meter.spentUsd() >= max || !!this.options.meter.budgetRefusal?.())
    )
  }

  timeSpent(): boolean {
    const deadline = this.options.deadline
    return deadline !== undefined && this.options.clock.now() >= deadline
  }

  /** Waits `ms`, or less when the run must stop (or `also` fires). */
  sleep(ms: number, also?: AbortSignal): Promise<void> {
    const signals = [this.signal, ...(also ? [also] : [])]
    return new Promise(resolve => {
      if (signals.some(s => s.aborted) || ms <= 0) return resolve()
      const done = (): void => {
        cancel()
        for (const s of signals) s.removeEventListener('abort', done)
        resolve()
      }
      const cancel = this.options.clock.setTimeout(done, ms)
      for (const s of signals) s.addEventListener('abort', done, { once: true })
    })
  }

  /** Stops watching (timers, listeners); the signal keeps its state. */
  dispose(): void {
    for (const cleanup of this.cleanups.splice(0)) cleanup()
  }

  private checkCost(): void {
    const { maxCostUsd, meter, clock } = this.options
    if (!this.watchingCost) return
    // The repository's budget refused a request: it stops the run whether or not max-cost is given.
    const ledger = meter.ledgerRefusal?.()
    if (ledger) return this.fire('budget', clock.now(), ledger)
    if (maxCostUsd === undefined) return
    const refusal = meter.budgetRefusal?.()
    if (refusal) return this.fire('budget_exhausted', clock.now(), refusal)
    const total = meter.spentUsd() + meter.runningUsd()
    if (total >= maxCostUsd)
      this.fire(
        'budget_exhausted',
        clock.now(),
        `the cost ($${total.toFixed(4)}) reached the budget ($${maxCostUsd})`
      )
  }

  private fire(cause: EnforcedStop, at: number, detail: string): void {
    if (this.trip) return
    this.trip = { cause, at, detail }
    // A spent budget is killed at once: no grace in which the agent could spend more (or exit slowly, as
    // gemini does on SIGTERM, ~0.6-1.5 s). A time cap or a cancel keeps the usual SIGTERM grace.
    const reason = Object.assign(
      new Error(detail),
      cause === 'budget_exhausted' || cause === 'budget' ? { killGraceMs: 0 } : {}
    )
    this.controller.abort(reason)
  }
}
