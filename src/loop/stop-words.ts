// How each stop reason is said, in one table: the run report's sentence, the tracking comment's headline and
// the action's failure line all read it, so a reason is never worded two ways.
import type { StopReason } from './types.js'

export interface StopWords {
  /** Scanned first: ✅ goal reached, ❌ gates never passed, 💸/⏱️ a budget spent, 💥 an error, ⏹️ cancelled. */
  icon: string
  /** The tracking comment's headline, after the icon. */
  headline: string
  /** What the ralph did, after its name, given its iterations counted ("2 iterations"): the run report's words. */
  did: (iterations: string) => string
  /** The step's failure line, for a stop short of the goal that is not a cancel. */
  failure?: string
}

export const STOP_WORDS: Record<StopReason, StopWords> = {
  all_checks_passed: { icon: '✅', headline: 'Every gate passed', did: () => 'passed' },
  completed: { icon: '✅', headline: 'Done (the agent said so; no gates)', did: () => 'finished' },
  max_iterations: {
    icon: '❌',
    headline: 'Used every iteration without passing the gates',
    did: n => `used all ${n} without passing its gates`,
    failure: 'The gates never passed'
  },
  budget_exhausted: {
    icon: '💸',
    headline: 'Out of budget',
    did: n => `ran out of budget after ${n}`,
    failure: 'The cost budget ran out before the gates passed'
  },
  budget: {
    icon: '💸',
    headline: "Out of the repository's budget",
    did: n => `ran out of the repository's budget after ${n}`,
    failure: "The repository's budget could not grant more before the gates passed"
  },
  timeout: {
    icon: '⏱️',
    headline: 'Out of time',
    did: n => `ran out of time after ${n}`,
    failure: 'The time budget ran out before the gates passed'
  },
  circuit_open: {
    icon: '❌',
    headline: 'Stopped: no progress',
    did: n => `stopped after ${n} because it was not making progress`,
    failure: 'The loop stopped making progress before the gates passed'
  },
  agent_error: {
    icon: '💥',
    headline: 'Stopped on an error',
    did: n => `stopped after ${n} on an error`,
    failure: 'The loop stopped on an error'
  },
  cancelled: { icon: '⏹️', headline: 'Cancelled', did: n => `was cancelled after ${n}` },
  verify_failed: {
    icon: '❌',
    headline: 'The gates failed on a clean checkout',
    did: n => `passed its gates in its own tree but not on a clean checkout of its commit after ${n}`,
    failure: "The gates passed in the loop's tree but failed on a clean checkout of the commit to deliver"
  },
  already_green: {
    icon: '✅',
    headline: 'Nothing to do: every gate already passed',
    did: () => 'found every gate passing'
  }
}
