// When the loop stops, decided in one pure function: before each iteration (only budgets and requests can end
// it then) and after each one (its outcome first, most decisive first, then the same budget checks).
import type { BreakerTrip } from './breaker.js'
import type { Trip } from './guard.js'
import type { IterationRecord, StopReason, VerificationRecord } from './types.js'
import { holdoutFeedback } from './clean/holdout-text.js'

export interface Stop {
  reason: StopReason
  detail: string
}

/** What an iteration came to, as the stop decision reads it. */
export interface IterationEnd {
  iteration: number
  record: IterationRecord
  /** Something could not be run at all. */
  crash?: string
  /** The loop's goal was reached. */
  success: boolean
  /** The guard fired mid-iteration. */
  interrupted: boolean
  /** The agent hit a usage limit that cannot be waited out (usageLimitWait's `stop`). */
  limitStop?: string
  /** The agent hit a usage limit the loop waits out: the iteration says nothing about the agent or work. */
  limitWaited?: boolean
}

/** Where the budgets and the rules stand at the moment of deciding. */
export interface Budgets {
  /** Undefined: no cap. */
  maxIterations?: number | undefined
  maxCostUsd?: number | undefined
  /** Iterations run so far. */
  ran: number
  /** The last iteration's record, for the cap's sentence (undefined before the first). */
  last?: IterationRecord | undefined
  /** The guard's enforcement fired (time, cost, cancel): what it stopped is already killed. */
  trip?: Trip | undefined
  timeSpent: boolean
  costSpent: boolean
  /** The caller asked the loop to finish after the iteration in flight. */
  finishAsked: boolean
  /** Gates decide success (else the agent's completion signal does). */
  gated: boolean
  stopOnError: boolean
}

/** Why the loop stopped at its cap, with the state it was left in when that is worth saying. */
function capReached(max: number, last: IterationRecord | undefined): string {
  const cap = `reached the cap of ${max} iteration${max === 1 ? '' : 's'}`
  return last?.verdict === 'checks_passed_no_tag'
    ? `${cap}; the checks pass, but the agent has not given the completion tag`
    : cap
}

const fromTrip = (trip: Trip): Stop => ({ reason: trip.cause, detail: trip.detail })

/** What the iteration's own outcome says, most decisive first; undefined when it does not end the loop. */
function outcomeStop(
  end: IterationEnd,
  budgets: Budgets,
  breaker: BreakerTrip | undefined
): Stop | undefined {
  const agent = end.record.agent
  if (end.crash) return { reason: 'agent_error', detail: `Run crashed: ${end.crash}` }
  if (end.success)
    return budgets.gated
      ? { reason: 'all_checks_passed', detail: `every check passed in iteration ${end.iteration}` }
      : { reason: 'completed', detail: `the agent gave the completion signal in iteration ${end.iteration}` }
  if (end.interrupted && budgets.trip) return fromTrip(budgets.trip)
  if (end.limitStop) return { reason: 'agent_error', detail: end.limitStop }
  if (budgets.stopOnError && agent && !agent.success && !end.limitWaited) {
    const how = agent.timedOut ? 'timed out' : `exited with ${agent.exitCode ?? agent.signal}`
    return {
      reason: 'agent_error',
      detail: `the agent ${how} in iteration ${end.iteration}; stopping due to --stop-on-error`
    }
  }
  const unfixable = setupMissing(end) ?? heldOutFailed(end)
  if (unfixable) return unfixable
  if (breaker) return { reason: 'circuit_open', detail: `circuit open (${breaker.rule}): ${breaker.message}` }
  return undefined
}

/** A gate's output when a module or a program that an install puts in place is missing (node, sh, bash, python). */
const MISSING_INSTALL =
  /Cannot find (module|package) |MODULE_NOT_FOUND|: command not found|^(\/bin\/)?sh: \d+: .*: not found|No module named /m

/**
 * What only an install puts in place, missing: a package (a bare name, or a path into node_modules) or a program
 * named without a path. A file of the agent's that git ignores (`Cannot find module '/w/answer.js'`, `./x.sh: not
 * found`) is not one: the agent can commit it. Python's `No module named` cannot tell the two apart.
 */
const ONLY_AN_INSTALL = [
  /Cannot find package '[^']+'/,
  /Cannot find module '(?![./])[^']+'/,
  /Cannot find module '[^']*\/node_modules\//,
  /^(?:\/bin\/)?sh: \d+: [^\s/]+: not found$/m,
  /(?:^|: )[^\s/:]+: command not found$/m
]

/**
 * The fix, when a clean checkout's gate missed a module or a command and no setup ran there: what an install
 * left in the loop's tree (node_modules) is never in a clean checkout. Empty otherwise.
 */
export function missingSetupHint(verification: VerificationRecord): string {
  if (verification.setup.length > 0) return ''
  if (!verification.checks.some(run => !run.passed && MISSING_INSTALL.test(run.tail))) return ''
  return "; a gate there could not find a module or a command and no setup ran: what an install left in the loop's tree (node_modules) is never in a clean checkout, so give setup the project's install command (a JavaScript project's: setup: npm ci)"
}

/**
 * A clean checkout whose gate missed a module or a command while no setup ran: no agent can fix that (the
 * install is the workflow's setting), so the loop stops at the first, naming the fix, instead of paying on.
 */
function setupMissing(end: IterationEnd): Stop | undefined {
  const verification = end.record.verification
  if (verification?.verdict !== 'failed' || verification.setup.length > 0) return undefined
  const missed = (tail: string): boolean => ONLY_AN_INSTALL.some(pattern => pattern.test(tail))
  if (!verification.checks.some(run => !run.passed && missed(run.tail))) return undefined
  return {
    reason: 'verify_failed',
    detail: `the gates passed in the loop's tree in iteration ${end.iteration} but failed on a clean checkout of ${verification.commit.slice(0, 12)}${missingSetupHint(verification)}; no agent can fix that, so the loop stopped there`
  }
}

/**
 * Held-out gates that failed end the run at once: they run once, so no agent runs after them to read what their
 * code under test may have left, or to try again against them as an oracle.
 */
function heldOutFailed(end: IterationEnd): Stop | undefined {
  const verification = end.record.verification
  if (verification?.verdict !== 'failed' || !verification.holdout || verification.holdout.passed)
    return undefined
  return {
    reason: 'verify_failed',
    detail: `every gate passed on a clean checkout of ${verification.commit.slice(0, 12)} in iteration ${end.iteration}, but ${holdoutFeedback(verification.holdout)}; held-out gates run once, so the loop stopped there`
  }
}

/**
 * Whether the loop stops now, and why. `end` is the iteration just run (undefined before the first);
 * `breaker` is what the stagnation breaker made of it. Undefined: the loop goes on.
 */
export function decideStop(
  end: IterationEnd | undefined,
  budgets: Budgets,
  breaker?: BreakerTrip
): Stop | undefined {
  const stop = end && outcomeStop(end, budgets, breaker)
  if (stop) return stop
  const { maxIterations: max, trip } = budgets
  if (max !== undefined && budgets.ran >= max)
    return budgets.last?.verification?.verdict === 'failed'
      ? {
          reason: 'verify_failed',
          detail: `${capReached(max, undefined)}; the gates passed in the loop's tree but failed on a clean checkout of ${budgets.last.verification.commit.slice(0, 12)}${missingSetupHint(budgets.last.verification)}`
        }
      : { reason: 'max_iterations', detail: capReached(max, budgets.last) }
  if (trip) return fromTrip(trip)
  if (budgets.finishAsked)
    return { reason: 'cancelled', detail: 'stopped after the iteration in flight, as asked' }
  if (budgets.timeSpent) return { reason: 'timeout', detail: 'the total time budget is spent' }
  if (budgets.costSpent)
    return { reason: 'budget_exhausted', detail: `the cost budget ($${budgets.maxCostUsd}) is spent` }
  return undefined
}
