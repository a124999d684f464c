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
  /** The repository's budget refused it: `why` in one line. */
  refuseForLedger(why: string): void
}

export class BudgetGate {
  private readonly inFlight = new Set<InFlight>()
  private readonly waiting: Pending[] = []

  /** Worst cases of the calls whose grant the repository's budget is still deciding. */
  private granting = 0

  constructor(private readonly options: Pick<ModelProxyOptions, 'budgetLeft' | 'overBudget' | 'grant'>) {}

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
    if (left === undefined || pending.worstUsd <= left - this.reservedAhead())
      return this.grantThenStart(pending)
    if (this.inFlight.size === 0) return pending.refuse()
    this.waiting.push(pending)
  }

  /** The repository's budget grants the call's worst case beside every other's not yet spent, or refuses it. */
  private grantThenStart(pending: Pending): void {
    const grant = this.options.grant
    if (!grant) return pending.start()
    const need = this.reservedAhead() + this.granting + pending.worstUsd
    this.granting += pending.worstUsd
    const decided = (answer: true | { refused: string }): void => {
      this.granting -= pending.worstUsd
      if (answer === true) return pending.start()
      // Calls in flight may end under their worst case, and leave room: this one waits for them.
      if (this.inFlight.size > 0) return void this.waiting.push(pending)
      pending.refuseForLedger(answer.refused)
    }
    grant(need).then(decided, (error: Error) => decided({ refused: error.message }))
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
