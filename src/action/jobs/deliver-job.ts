// The deliver job of two (`mode: deliver`): no agent runs. admit → plan → ready → receive the handover → prepare
// → check it against what this job decides itself → verify again (the gates, on a clean checkout) → deliver →
// report.
import { settleReceived, withBudget, withBudgetLeft } from '../budget-step.js'
import { rmSync } from 'node:fs'
import { checkHandover, keepHandover, receive } from '../handover/receive.js'
import { answerInputs, answerStep } from '../steps/answer.js'
import { deliverReceived } from '../steps/deliver-received.js'
import { endsHere, type StepEnd } from '../steps/ending.js'
import { prepare } from '../steps/prepare.js'
import { report } from '../steps/report.js'
import { admitAndPlan } from '../steps/start.js'
import type { ReadRun } from '../steps/types.js'
import { verifyAgain } from '../steps/verify-again.js'
import type { JobKind } from './kind.js'

export async function deliverJob(read: ReadRun, kind: JobKind, signal: AbortSignal): Promise<StepEnd> {
  const ready = await admitAndPlan(read, kind)
  if (endsHere(ready)) return ready.end
  const received = await receive(ready)
  // The reserve job's lease (#38): settled at the agent job's metered spend, in full when no handover came.
  const budget = await settleReceived(
    ready,
    endsHere(received) ? undefined : received.handover.result.cost.totalUsd
  )
  if (endsHere(received)) return withBudgetLeft(received.end, budget)
  try {
    keepHandover(ready.plan, received)
    const prepared = await prepare(ready)
    if (endsHere(prepared)) return prepared.end
    const { handover } = received
    const problem = await checkHandover(prepared, received).catch(
      (error: Error) => `it could not be checked (${error.message.split('\n')[0]})`
    )
    const { result, own } = await verifyAgain(prepared, handover, problem, signal)
    const cancelled = signal.aborted || own?.stopReason === 'cancelled'
    const delivery = await deliverReceived(prepared, result, handover.head, { problem, cancelled })
    if (!cancelled) await answerStep(answerInputs(prepared, result, delivery))
    return withBudgetLeft(
      await report(prepared, { result, followed: () => Promise.resolve() }, withBudget(delivery, budget), {
        cancelled
      }),
      budget
    )
  } finally {
    rmSync(received.dir, { recursive: true, force: true })
  }
}
