// Step: result — the run's final result (also status.json's), this job's line in the chain, the record
// finished and the stop event.
import type { Stop } from '../stop.js'
import type { ChainJob, LoopResult, StopReason } from '../types.js'
import type { Resumed } from './resume.js'
import type { LoopRun } from './run.js'
import { updateCost, type TokenTally } from './tally.js'
import { iso } from '../iso.js'

/** The stop reasons that mean the loop reached its goal. */
const SUCCESS: StopReason[] = ['all_checks_passed', 'completed', 'already_green']

export async function finishRun(
  run: LoopRun,
  stop: Stop | undefined,
  { resumed, tally, startedAt }: { resumed: Resumed; tally: TokenTally; startedAt: number }
): Promise<LoopResult> {
  const { status, record, env } = run
  const finishedAt = env.clock.now()
  const final: Stop = stop ?? { reason: 'agent_error', detail: 'the loop ended without a stop reason' }
  const result: LoopResult = {
    ...status,
    iterations: record.iterations(),
    state: 'finished',
    stopReason: final.reason,
    stopDetail: final.detail,
    finishedAt: iso(finishedAt),
    durationMs: Math.round(finishedAt - startedAt),
    success: SUCCESS.includes(final.reason)
  }
  delete result.inFlight
  updateCost(result, env.meter, tally)
  if (resumed.chain) {
    const own: ChainJob = {
      run: resumed.chain.run,
      iterations: result.iterations.length - resumed.iterations.length,
      costUsd: Math.max(0, result.cost.totalUsd - resumed.spent.usd),
      durationMs: result.durationMs,
      stopReason: result.stopReason
    }
    result.chain = { jobs: [...resumed.chain.jobs, own] }
  }
  await record.finish(result)
  run.emit({ type: 'stop', reason: result.stopReason, detail: result.stopDetail, result })
  return result
}
