// The chain's decision: whether this job hands its loop on to another run, and why not when it could have.
import type { LoopResult } from '../../loop/index.js'
import type { ActionInputs } from '../inputs.js'
import { RALPH_NAME } from './format.js'

/** What a job cancelled before its successor is dispatched does, in the log's words. */
export const HANDS_NOTHING_ON = 'it hands nothing on (no next run is dispatched)'

/** This job, as the chain decision sees it. */
export interface ChainJobFacts {
  /** The chain's jobs so far, this one included. */
  jobsSoFar: number
  /** The iterations earlier jobs ran: this job's are the ones after them. */
  carried: number
  /** The job was cancelled (a signal, or the loop stopped `cancelled`). */
  cancelled: boolean
  /** The loop's branch was there before it: a person's pull request's, or one the action had pushed. */
  branchWas?: 'pr' | 'existing' | undefined
}

/** Why this job made no progress another job could go on from (no agent run of it left a commit), or undefined. */
function noProgress(iterations: LoopResult['iterations']): string | undefined {
  if (iterations.some(it => it.commit?.sha !== undefined)) return undefined
  const finished = iterations.some(it => it.agent !== undefined && it.agent.killedBy === undefined)
  return finished
    ? 'no agent run of this job left a commit, so another job would start where this one did'
    : 'no agent run finished in this job (setup, the baseline or the agent took its max-time), so another job would do the same'
}

/**
 * Whether this job hands its loop on: it stopped on max-time with gates failing, made progress (a commit), was
 * not cancelled, and the chain has jobs, iterations and dollars left. Answers why not, for the log, when it
 * could have.
 */
export function continuesIn(
  inputs: Pick<ActionInputs, 'continueJobs' | 'maxIterations' | 'maxCostUsd'> & { ralphName?: string },
  result: Pick<LoopResult, 'stopReason' | 'success' | 'iterations' | 'cost'>,
  job: ChainJobFacts
): { continues: true } | { continues: false; why?: string } {
  if (inputs.continueJobs <= 1 || result.success) return { continues: false }
  if (job.cancelled) return { continues: false, why: `the job was cancelled, so ${HANDS_NOTHING_ON}` }
  if (result.stopReason !== 'timeout') return { continues: false }
  if (job.jobsSoFar >= inputs.continueJobs)
    return { continues: false, why: `the chain has run its ${inputs.continueJobs} jobs (continue-jobs)` }
  if (result.iterations.length >= inputs.maxIterations)
    return {
      continues: false,
      why: `the chain has run its ${inputs.maxIterations} iterations (max-iterations)`
    }
  if (inputs.maxCostUsd !== undefined && result.cost.totalUsd >= inputs.maxCostUsd)
    return { continues: false, why: `the chain has spent its $${inputs.maxCostUsd} (max-cost)` }
  const stalled = noProgress(result.iterations.slice(job.carried))
  if (stalled) return { continues: false, why: stalled }
  if (inputs.ralphName !== undefined && !RALPH_NAME.test(inputs.ralphName))
    return {
      continues: false,
      why: `the ralph's name ${JSON.stringify(inputs.ralphName)} is not one a chain carries (letters, digits, spaces, . _ -)`
    }
  if (job.branchWas === 'pr')
    return {
      continues: false,
      why: "a loop on a pull request's branch does not go on in another run (unverified work is never pushed there)"
    }
  // Its pull request, if it has one, shows what is there: unverified work is not pushed under it between jobs.
  if (job.branchWas === 'existing')
    return {
      continues: false,
      why: 'a chain starts on a branch of its own, and this loop went on from one that was already there (its pull request, if any, would show unverified work)'
    }
  return { continues: true }
}
