// The one job (`mode: run`): admit → plan → ready → prepare → loop → deliver, or hand on when the chain goes
// on → report.
import { reserveStep, settleStep, withBudget, withBudgetLeft, withCap } from '../budget-step.js'
import { deliverOrHandOn } from '../steps/deliver-or-hand-on.js'
import { endsHere, type StepEnd } from '../steps/ending.js'
import { loop } from '../steps/loop.js'
import { prepare } from '../steps/prepare.js'
import { report } from '../steps/report.js'
import { admitAndPlan } from '../steps/start.js'
import type { ReadRun } from '../steps/types.js'
import type { JobKind } from './kind.js'

export async function oneJob(read: ReadRun, kind: JobKind, signal: AbortSignal): Promise<StepEnd> {
  const ready = await admitAndPlan(read, kind)
  if (endsHere(ready)) return ready.end
  const held = await reserveStep(ready)
  if (held !== undefined && endsHere(held)) return held.end
  const prepared = await prepare(withCap(ready, held))
  if (endsHere(prepared)) return withBudgetLeft(prepared.end, await settleStep(held, undefined))
  const looped = await loop(prepared, signal)
  const budget = await settleStep(held, looped.result)
  const delivered = await deliverOrHandOn(prepared, looped, signal, {
    jobsSoFar: 1,
    carried: 0,
    resumed: false
  })
  return withBudgetLeft(
    await report(prepared, looped, withBudget(delivered.delivery, budget), delivered),
    budget
  )
}
