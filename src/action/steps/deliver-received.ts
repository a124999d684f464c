// The deliver job's delivery: refused (the handover's problem), skipped (cancelled), or delivered as a one-job
// run would deliver it; the checkout given back either way.
import type { LoopResult } from '../../loop/index.js'
import { undelivered, type DeliveryReport } from '../../report/run-report.js'
import { restoreCheckout, restoreIdentity } from './checkout.js'
import { deliverWork } from './deliver.js'
import type { Prepared } from './types.js'

export async function deliverReceived(
  prepared: Prepared,
  result: LoopResult,
  head: string | undefined,
  { problem, cancelled }: { problem: string | undefined; cancelled: boolean }
): Promise<DeliveryReport> {
  const { branch } = prepared
  let delivery: DeliveryReport
  if (problem)
    delivery = undelivered(branch.branch, {
      problem: `the delivery was refused: ${problem}; nothing was pushed`
    })
  else if (cancelled)
    delivery = undelivered(branch.branch, { skipped: 'the run was cancelled, so nothing was pushed' })
  else
    delivery = await deliverWork(prepared, result, head).catch((error: Error) =>
      undelivered(branch.branch, { problem: `delivery failed: ${error.message}` })
    )
  await restoreIdentity(prepared.identity)
  await restoreCheckout(prepared.workTree, branch)
  return delivery
}
