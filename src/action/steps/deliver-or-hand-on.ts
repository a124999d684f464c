// After a one-job run's loop: the chain decides (chain/decide.ts) whether the loop goes on in another run (hand
// on) or this job delivers its work; either way the answer is what the pipeline reports.
import * as core from '@actions/core'
import { continuesIn } from '../chain/decide.js'
import { handOn, type HandedOn } from '../chain/hand-on.js'
import { answerInputs, answerStep } from './answer.js'
import { deliver } from './deliver.js'
import type { Looped, Prepared } from './types.js'

/** This job's place in its chain: the first job's is `{ jobsSoFar: 1, carried: 0, resumed: false }`. */
export interface ChainPlace {
  /** The chain's jobs so far, this one included. */
  jobsSoFar: number
  /** The iterations earlier jobs ran. */
  carried: number
  /** This job goes on from an earlier one (its branch was handed over, not there before the chain). */
  resumed: boolean
}

export async function deliverOrHandOn(
  prepared: Prepared,
  looped: Looped,
  signal: AbortSignal,
  place: ChainPlace
): Promise<HandedOn> {
  const { plan, branch, inputs } = prepared
  // Cancellation is decided here alone, before the delivery (nothing is pushed) and after it: a SIGTERM during
  // the push or the pull request leaves the comment, the upload and the summary to post.
  const cancelled = (): boolean => signal.aborted || looped.result.stopReason === 'cancelled'
  const next = continuesIn({ ...inputs, ralphName: plan.ralph.name }, looped.result, {
    jobsSoFar: place.jobsSoFar,
    carried: place.carried,
    cancelled: cancelled(),
    branchWas:
      plan.pr !== undefined
        ? 'pr'
        : !place.resumed && (branch.continued || branch.remoteSha !== null)
          ? 'existing'
          : undefined
  })
  if (!next.continues && 'why' in next && next.why !== undefined && !looped.result.success)
    core.info(`The loop does not go on in another run: ${next.why}.`)
  if (next.continues) return handOn(prepared, looped, signal)
  const delivery = await deliver(prepared, looped.result, cancelled())
  if (!cancelled()) await answerStep(answerInputs(prepared, looped.result, delivery))
  return { delivery, cancelled: cancelled() }
}
