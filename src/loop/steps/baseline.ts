// Step: baseline — the gates once before iteration 1; a resumed loop takes the chain's instead.
import type { IterationMemory } from '../environment.js'
import { runBaseline } from '../gates.js'
import type { Stop } from '../stop.js'
import type { LoopRun } from './run.js'
import type { Resumed } from './resume.js'

export async function baselineStep(
  run: LoopRun,
  memory: IterationMemory,
  resumed: Resumed,
  stopped: boolean
): Promise<{ memory: IterationMemory; stop?: Stop }> {
  // The baseline is the chain's: not run again; the last gates the agent saw are the earlier job's.
  if (resumed.baseline) memory = { ...memory, baseline: resumed.baseline }
  if (resumed.previousChecks) memory = { ...memory, previousChecks: resumed.previousChecks }
  const { env, status, record, config } = run
  if (stopped || !run.gated || config.baseline === false || resumed.chain) return { memory }
  const gates = await runBaseline(env, memory)
  const baseline = gates.baseline
  status.baseline = baseline
  record.appendBaseline(baseline)
  record.writeStatus(status)
  run.emit({ type: 'baseline_finished', baseline })
  // Interrupted, the baseline's enforcement is noted here; the check before iteration 1 stops the loop.
  if (baseline.verdict === 'interrupted' && env.guard.trip) run.noteEnforcement(env.guard.trip)
  else if (baseline.verdict === 'green' && config.skipIfGreen)
    return {
      memory: gates.memory,
      stop: {
        reason: 'already_green',
        detail: 'every check passed before any agent ran (skip-if-green), so no agent ran'
      }
    }
  return { memory: gates.memory }
}
