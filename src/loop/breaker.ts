// The stagnation breaker: a loop that makes no progress, keeps failing the same way, whose agent keeps
// failing, or whose agent keeps being denied the tools it needs is stopped (`circuit_open`) instead of
// burning time and money.

export type BreakerRule = 'no_progress' | 'same_failure' | 'agent_failures' | 'permission_denials'

/** Consecutive iterations that open the circuit, per rule; 0 turns a rule off. */
export interface BreakerThresholds {
  noProgress: number
  sameFailure: number
  agentFailures: number
  /** Iterations in a row whose agent was denied a tool; default 2. */
  permissionDenials?: number
}

export const DEFAULT_PERMISSION_DENIALS = 2

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
  progressed?: boolean | undefined
  /** Fingerprint of the failing checks; '' when every check passed or there are none. */
  failureFingerprint: string
  agentFailed: boolean
  /** Tools the agent was denied in this iteration (none: empty or absent). */
  deniedTools?: string[]
}

export class StagnationBreaker {
  private noProgress = 0
  private sameFailure = 0
  private agentFailures = 0
  private lastFingerprint = ''
  private denials = 0
  private readonly deniedTools = new Set<string>()

  constructor(private readonly thresholds: BreakerThresholds) {}

  /** Counts one iteration; answers the rule that opens the circuit, if one does. */
  record(signals: IterationSignals): BreakerTrip | undefined {
    this.agentFailures = signals.agentFailed ? this.agentFailures + 1 : 0
    if (signals.progressed === undefined) this.noProgress = 0
    else this.noProgress = signals.progressed ? 0 : this.noProgress + 1
    const fp = signals.failureFingerprint
    this.sameFailure = fp === '' ? 0 : fp === this.lastFingerprint ? this.sameFailure + 1 : 1
    this.lastFingerprint = fp
    const denied = signals.deniedTools ?? []
    if (denied.length === 0) {
      this.denials = 0
      this.deniedTools.clear()
    } else {
      this.denials++
      denied.forEach(tool => this.deniedTools.add(tool))
    }

    const { agentFailures, sameFailure, noProgress } = this.thresholds
    const permissionDenials = this.thresholds.permissionDenials ?? DEFAULT_PERMISSION_DENIALS
    // Denied tools first: no other rule says what the user must change (the agent's permissions).
    if (permissionDenials > 0 && this.denials >= permissionDenials)
      return {
        rule: 'permission_denials',
        count: this.denials,
        message:
          `the agent was denied permission in ${this.denials} consecutive iterations ` +
          `(tools: ${[...this.deniedTools].join(', ')}); allow them in the agent's command or its settings`
      }
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
