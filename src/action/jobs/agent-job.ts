// The agent job of two (`mode: agent`, read permissions only): admit → plan → ready → prepare → loop → hand over
// (the delivery artifact) → report. It writes nothing to GitHub: its clients refuse (kind.writes is false).
import { reserveStep, settleStep, withBudget, withCap } from '../budget-step.js'
import { handOver } from '../handover/pack.js'
import { endsHere, type StepEnd } from '../steps/ending.js'
import { loop } from '../steps/loop.js'
import { prepare } from '../steps/prepare.js'
import { report } from '../steps/report.js'
import { admitAndPlan } from '../steps/start.js'
import type { ReadRun } from '../steps/types.js'
import type { JobKind } from './kind.js'

export async function agentJob(read: ReadRun, kind: JobKind, signal: AbortSignal): Promise<StepEnd> {
  const ready = await admitAndPlan(read, kind)
  if (endsHere(ready)) return ready.end
  // The reserve job's lease is this job's whole cap (#38): it holds no write token to top it up.
  const held = await reserveStep(ready)
  if (held !== undefined && endsHere(held)) return held.end
  const prepared = await prepare(withCap(ready, held))
  if (endsHere(prepared)) return prepared.end
  const looped = await loop(prepared, signal)
  const budget = await settleStep(held, looped.result)
  const cancelled = (): boolean => signal.aborted || looped.result.stopReason === 'cancelled'
  const handed = await handOver(prepared, looped.result, cancelled())
  return report(prepared, looped, withBudget(handed.delivery, budget), {
    cancelled: cancelled(),
    handedOver: handed.artifact
  })
}
