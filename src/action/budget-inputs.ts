// The repository's budget as inputs (#38): `budget`, `budget-per-requester`, `ledger-ref`, and `lease` (the
// reserve job's output, a two-job workflow's agent and deliver jobs' input). A problem is one line naming
// the input and the fix; the caller throws it as its InputError.
import {
  DEFAULT_LEDGER_REF,
  hasBudget,
  ledgerRefProblem,
  parseBudgets,
  parseLeaseState,
  type BudgetLimits,
  type LeaseState
} from '../ledger/index.js'

export interface BudgetSetting {
  limits: BudgetLimits
  /** The ledger's ref. */
  ref: string
  /** The lease the reserve job took (two-job mode): the agent job's whole cap, the deliver job's to settle. */
  lease?: LeaseState
}

type Mode = 'run' | 'agent' | 'deliver' | 'reserve'

const TWO_JOBS = 'docs/budget.md, "Two jobs"'

/** The inputs as given (trimmed; undefined when empty). */
export interface GivenBudget {
  budget: string | undefined
  perRequester: string | undefined
  ledgerRef: string | undefined
  lease: string | undefined
}

/** The budget inputs of a job of `mode`: none given is no budget (undefined); else the setting, or the problem. */
export function readBudgetSetting(
  given: GivenBudget,
  mode: Mode
): { budget?: BudgetSetting } | { problem: string } {
  const parsed = parseBudgets(given)
  if ('problem' in parsed) return parsed
  const ref = given.ledgerRef ?? DEFAULT_LEDGER_REF
  const refProblem = ledgerRefProblem(ref)
  if (refProblem) return { problem: `Input 'ledger-ref' cannot be ${JSON.stringify(ref)}: ${refProblem}.` }
  const leaseText = given.lease
  if (leaseText !== undefined && mode !== 'agent' && mode !== 'deliver')
    return {
      problem: `Input 'lease' is for mode: agent and mode: deliver (the reserve job's output); mode: ${mode} reserves its own.`
    }
  const lease = leaseText === undefined ? undefined : parseLeaseState(leaseText)
  if (lease && 'problem' in lease) return lease
  if (lease && lease.ref !== ref)
    return {
      problem: `Input 'lease' is a lease in ${lease.ref}, and 'ledger-ref' is ${ref}: give every job the same ledger-ref.`
    }
  const limits = lease ? lease.limits : parsed.limits
  if (!hasBudget(limits)) {
    if (mode === 'reserve')
      return {
        problem:
          "Input 'budget' is required in mode: reserve: give the repository's budget, like 20/day, 300/month."
      }
    return {}
  }
  if (mode === 'agent' && !lease)
    return {
      problem: `Input 'lease' is required with a budget in mode: agent: this job holds no write token to reserve with, so give it the reserve job's output \`lease\` (${TWO_JOBS}).`
    }
  return { budget: { limits, ref, ...(lease ? { lease } : {}) } }
}
