// Step: the clean verification of a delivered commit — the gates on a clean checkout of `commit`, its
// protected paths put back from `base`, and the stop its verdict makes. What it runs comes as arguments, so a
// verdict with more to run (canaries, report files) takes its seat here.
import { holdoutFeedback } from '../clean/holdout-text.js'
import type { IterationMemory } from '../environment.js'
import { decideStop, missingSetupHint, type Stop } from '../stop.js'
import { verifyCommit } from '../verify.js'
import type { LoopRun } from './run.js'

/** What the clean verification checks: the commit delivered, and the commit its protected paths come from. */
export interface Delivered {
  commit: string
  base: string
}

export async function cleanVerification(
  run: LoopRun,
  memory: IterationMemory,
  { commit, base }: Delivered
): Promise<Stop> {
  const { env, status } = run
  const { verification, failures } = await verifyCommit(env, 1, commit, base, env.verifyPorts, memory)
  status.verification = verification
  run.record.writeStatus(status)
  const short = commit.slice(0, 12)
  if (verification.verdict === 'passed')
    return { reason: 'all_checks_passed', detail: `every gate passed on a clean checkout of ${short}` }
  if (verification.verdict === 'interrupted')
    return (
      decideStop(undefined, run.budgets(0, undefined)) ?? {
        reason: 'cancelled',
        detail: `the clean checkout of ${short} was interrupted`
      }
    )
  if (verification.holdout && !verification.holdout.passed)
    return {
      reason: 'verify_failed',
      detail: `every gate passed on a clean checkout of ${short}, but ${holdoutFeedback(verification.holdout)}`
    }
  return {
    reason: 'verify_failed',
    detail: `on a clean checkout of ${short}, ${[...new Set(failures.map(f => f.name))].join(', ')} failed${missingSetupHint(verification)}`
  }
}
