// The stagnation breaker: a loop that makes no progress, keeps failing the same way, or whose agent keeps
// failing is stopped (`circuit_open`) instead of burning time and money.

export type BreakerRule = 'no_progress' | 'same_failure' | 'agent_failures'

/** Consecutive iterations that open the circuit, per rule; 0 turns a rule off. */
export interface BreakerThresholds {
  noProgress: number
  sameFailure: number
  agentFailures: number
}

export const DEFAULT_BREAKER: BreakerThresholds = { noProgress: 3, sameFailure: 3, agentFailures: 3 }

export interface BreakerTrip {
  rule: BreakerRule
  /** Consecutive iterations that met the rule. */
  count: number
  /** One line for people: what was seen. */
  message: string
}

/** What one finished iteration tells the breaker. */
export interface IterationSignals {
  /** The work tree changed since the previous iteration; undefined when it cannot be known (no git). */
  progressed?: boolean
  /** Fingerprint of the failing checks; '' when every check passed or there are none. */
  failureFingerprint: string
  agentFailed: boolean
}

export class StagnationBreaker {
  private noProgress = 0
  private sameFailure = 0
  private agentFailures = 0
  private lastFingerprint = ''

  constructor(private readonly thresholds: BreakerThresholds) {}

  /** Counts one iteration; answers the rule that opens the circuit, if one does. */
  record(signals: IterationSignals): BreakerTrip | undefined {
    this.agentFailures = signals.agentFailed ? this.agentFailures + 1 : 0
    if (signals.progressed === undefined) this.noProgress = 0
    else this.noProgress = signals.progressed ? 0 : this.noProgress + 1
    const fp = signals.failureFingerprint
    this.sameFailure = fp === '' ? 0 : fp === this.lastFingerprint ? this.sameFailure + 1 : 1
    this.lastFingerprint = fp

    const { agentFailures, sameFailure, noProgress } = this.thresholds
    // When several rules trip together the most specific one is named.
    if (agentFailures > 0 && this.agentFailures >= agentFailures)
      return {
        rule: 'agent_failures',
        count: this.agentFailures,
        message: `the agent failed in ${this.agentFailures} consecutive iterations`
      }
    if (sameFailure > 0 && this.sameFailure >= sameFailure)
      return {
        rule: 'same_failure',
        count: this.sameFailure,
        message: `the checks failed the same way (fingerprint ${fp}) in ${this.sameFailure} consecutive iterations`
      }
    if (noProgress > 0 && this.noProgress >= noProgress)
      return {
        rule: 'no_progress',
        count: this.noProgress,
        message: `the work tree did not change in ${this.noProgress} consecutive iterations`
      }
    return undefined
  }
}
