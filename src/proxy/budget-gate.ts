// The proxy's dollar gate: a model call goes up only when its worst case fits in what is left of the budget
// beyond what the requests in flight have reserved; one that does not waits while others may free theirs, and
// once the cap is crossed every request in flight is cut and none held goes up.
import type { MeteredRequest, ModelProxyOptions } from './types.js'

/** A request forwarded and not yet ended: what it reserved, and how to cut it. */
export interface InFlight {
  record: MeteredRequest
  reservedUsd: number
  cut(): void
}

/** A model call read and priced at its worst case, not yet forwarded. */
export interface Pending {
  worstUsd: number
  start(): void
  refuse(): void
}

export class BudgetGate {
  private readonly inFlight = new Set<InFlight>()
  private readonly waiting: Pending[] = []

  constructor(private readonly options: Pick<ModelProxyOptions, 'budgetLeft' | 'overBudget'>) {}

  /** Dollars reserved by the requests in flight beyond what each has cost so far. */
  private reservedAhead(): number {
    return [...this.inFlight].reduce(
      (sum, f) => sum + Math.max(0, f.reservedUsd - (f.record.costUsd ?? 0)),
      0
    )
  }

  /** Starts a request whose worst case fits; holds it while others in flight may free their reservations. */
  decide(pending: Pending): void {
    const left = this.options.budgetLeft?.()
    if (left === undefined || pending.worstUsd <= left - this.reservedAhead()) return pending.start()
    if (this.inFlight.size === 0) return pending.refuse()
    this.waiting.push(pending)
  }

  /** The agent hung up while its request was held: it is no longer waiting. */
  withdraw(pending: Pending): void {
    const at = this.waiting.indexOf(pending)
    if (at >= 0) this.waiting.splice(at, 1)
  }

  /** A request went up: it is in flight until it ends. */
  started(flight: InFlight): void {
    this.inFlight.add(flight)
  }

  ended(flight: InFlight): void {
    this.inFlight.delete(flight)
  }

  /** A request ended: those held may fit now. */
  admitWaiting(): void {
    for (const pending of this.waiting.splice(0)) this.decide(pending)
  }

  /** After every usage change: once the cap is crossed, every request in flight is cut, and none held goes up. */
  check(): void {
    if ((this.inFlight.size > 0 || this.waiting.length > 0) && this.options.overBudget?.()) this.cutAll()
  }

  private cutAll(): void {
    for (const flight of [...this.inFlight]) flight.cut()
    for (const pending of this.waiting.splice(0)) pending.refuse()
  }
}
