// The main step, as its pipeline: admit → plan → prepare → loop → deliver → report (two-job mode: the agent's
// job hands over instead of delivering; the deliver job receives, checks, verifies again, delivers, reports). Each step answers its
// typed result, or the Ending that stops the run there (bad input fails with one line before any agent runs).
import { rmSync } from 'node:fs'
import * as core from '@actions/core'
import type { LoopResult } from '../loop/index.js'
import { undelivered, type DeliveryReport } from '../report/run-report.js'
import { admit } from './admit.js'
import { deliver, deliverWork } from './deliver.js'
import { ended, writeEnding, type Ending } from './ending.js'
import { checkHandover, deliveredResult, handOver, keepHandover, receive } from './handover.js'
import { loop } from './loop.js'
import { planRun, type Planned } from './plan-run.js'
import { prepare, restoreCheckout } from './prepare.js'
import { report } from './report.js'
import { saveState } from './state.js'

async function pipeline(signal: AbortSignal): Promise<Ending> {
  const admitted = await admit()
  if (ended(admitted)) return admitted.end
  const planned = await planRun(admitted)
  if (ended(planned)) return planned.end
  if (planned.inputs.mode === 'deliver') return deliverJob(planned, signal)
  const prepared = await prepare(planned)
  if (ended(prepared)) return prepared.end
  const looped = await loop(prepared, signal)
  // Cancellation is decided here alone, before the delivery (nothing is pushed) and after it: a SIGTERM during
  // the push or the pull request leaves the comment, the upload and the summary to post.
  const cancelled = (): boolean => signal.aborted || looped.result.stopReason === 'cancelled'
  if (planned.inputs.mode === 'agent') {
    // Two-job mode: the work goes to the deliver job as an artifact; this job writes nothing to GitHub.
    const handed = await handOver(prepared, looped.result, cancelled())
    return report(prepared, looped, handed.delivery, cancelled(), handed.artifact)
  }
  const delivery = await deliver(prepared, looped.result, cancelled())
  return report(prepared, looped, delivery, cancelled())
}

/**
 * `mode: deliver`, the second job of two: no agent runs. The agent job's handover is checked against what this
 * job decides itself (its admission, its plan, its branch), its head verified again on a clean checkout when the
 * ralph has gates, and only then delivered as a one-job run would deliver it.
 */
async function deliverJob(planned: Planned, signal: AbortSignal): Promise<Ending> {
  // This job's record is an artifact of its own beside the agent job's.
  const plan = { ...planned.plan, artifactName: `${planned.plan.artifactName}-deliver` }
  const { config } = plan
  const received = await receive({ ...planned, plan })
  if (ended(received)) return received.end
  try {
    keepHandover(plan, received)
    const prepared = await prepare({ ...planned, plan })
    if (ended(prepared)) return prepared.end
    const { handover } = received
    const problem = await checkHandover(prepared, received).catch(
      (error: Error) => `it could not be checked (${error.message.split('\n')[0]})`
    )
    // The agent job's verdict is a claim: with gates, they run here again on a clean checkout (`verify: tree`
    // has no loop's tree to trust in this job), as a user apart from this job's token, or not at all.
    const reverify =
      !problem && handover.head !== undefined && handover.result.success && config.checks.length > 0
    let own: LoopResult | undefined
    let unverified: string | undefined
    if (reverify && !prepared.isolated)
      unverified =
        "the deliver job ran no gate: it has no user of the agent's apart from its write token here (isolation), and the agent job's verdict alone is only a claim"
    else if (reverify && handover.head !== undefined && !signal.aborted) {
      core.info(`Verifying ${handover.head.slice(0, 12)} again, on a clean checkout in this job.`)
      // Protected paths come back from where this job's branch starts: what judges is this job's.
      own = (await loop(prepared, signal, { commit: handover.head, base: prepared.branch.startSha })).result
    }
    const result = deliveredResult(handover.result, own, unverified)
    if (!own && prepared.isolated) {
      // No gate runs here: the agent's user is given up at once (runLoopContained would have, after them).
      await prepared.isolated.release()
      saveState('isolation', '')
    }
    const cancelled = signal.aborted || own?.stopReason === 'cancelled'
    let delivery: DeliveryReport
    if (problem)
      delivery = undelivered(prepared.branch.branch, {
        problem: `the delivery was refused: ${problem}; nothing was pushed`
      })
    else if (cancelled)
      delivery = undelivered(prepared.branch.branch, {
        skipped: 'the run was cancelled, so nothing was pushed'
      })
    else
      delivery = await deliverWork(prepared, result, handover.head).catch((error: Error) =>
        undelivered(prepared.branch.branch, { problem: `delivery failed: ${error.message}` })
      )
    await prepared.identity.restore().catch(() => undefined)
    await restoreCheckout(prepared.workTree, prepared.branch)
    return report(prepared, { result, followed: () => Promise.resolve() }, delivery, cancelled)
  } finally {
    rmSync(received.dir, { recursive: true, force: true })
  }
}

/** The runner sends SIGINT, then SIGTERM ~7.5 s later: either one cancels the loop (the agent's tree is killed). */
function cancellation(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController()
  const onSignal = (name: NodeJS.Signals): void => {
    if (!controller.signal.aborted) core.info(`Received ${name}: stopping the loop and its agent.`)
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
  }
}

export async function run(): Promise<void> {
  const cancel = cancellation()
  try {
    await writeEnding(await pipeline(cancel.signal))
  } catch (error) {
    // Our own bug: the stack for the debug log; `finished` stays unset, so post saves the record.
    core.debug((error as Error).stack ?? String(error))
    core.setFailed(`ralph-action failed: ${(error as Error).message}`)
  } finally {
    cancel.dispose()
  }
}
