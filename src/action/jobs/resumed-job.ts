// A chain's next run (`resume`): admit the run it goes on from (its checks) → plan → ready → the same loop (ralph, branch) →
// prepare (the branch's tip checked, the run claimed) → loop (carrying the chain's state) → deliver or hand on →
// report. What was handed over is an argument of the steps that need it, never written into the plan.
import { reserveStep, settleStep, withBudget, withBudgetLeft, withCap } from '../budget-step.js'
import { rmSync } from 'node:fs'
import { admitResumed, carryOf, resumeRefusal } from '../chain/resume.js'
import { clientsFor } from '../steps/admit.js'
import { deliverOrHandOn } from '../steps/deliver-or-hand-on.js'
import { endsHere, type StepEnd } from '../steps/ending.js'
import { loop } from '../steps/loop.js'
import { planRun, readyToRun } from '../steps/plan.js'
import { prepare } from '../steps/prepare.js'
import { report } from '../steps/report.js'
import type { ReadRun } from '../steps/types.js'
import type { JobKind } from './kind.js'

export async function resumedJob(read: ReadRun, kind: JobKind, signal: AbortSignal): Promise<StepEnd> {
  const admission = await admitResumed(read, clientsFor(read.inputs, kind.writes))
  if (endsHere(admission)) return admission.end
  const { admitted, resumed } = admission
  try {
    const planned = await planRun(admitted, kind.artifactSuffix)
    if (endsHere(planned)) return planned.end
    const ready = await readyToRun(planned, kind.installsAgent)
    if (endsHere(ready)) return ready.end
    const other = resumeRefusal(ready.plan, resumed)
    if (other) return other
    // A chain reserves again in each job (#38).
    const held = await reserveStep(ready)
    if (held !== undefined && endsHere(held)) return held.end
    const prepared = await prepare(withCap(ready, held), resumed)
    if (endsHere(prepared)) return withBudgetLeft(prepared.end, await settleStep(held, undefined))
    const looped = await loop(prepared, signal, { carry: carryOf(resumed, read.context) })
    const budget = await settleStep(held, looped.result)
    const delivered = await deliverOrHandOn(prepared, looped, signal, {
      jobsSoFar: resumed.continuation.jobs.length + 1,
      carried: resumed.status.iterations.length,
      resumed: true
    })
    return withBudgetLeft(
      await report(prepared, looped, withBudget(delivered.delivery, budget), delivered),
      budget
    )
  } finally {
    // The earlier run's record, downloaded at admission: copied into this job's record by the loop, if it ran.
    rmSync(resumed.dir, { recursive: true, force: true })
  }
}
