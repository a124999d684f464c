// The main step, as its pipeline: admit → plan → prepare → loop → deliver → report (two-job mode: the agent's
// job hands over instead of delivering; the deliver job receives, checks, verifies again, delivers, reports). Each step answers its
// typed result, or the Ending that stops the run there (bad input fails with one line before any agent runs).
import { rmSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import type { LoopResult } from '../loop/index.js'
import { undelivered, type DeliveryReport } from '../report/run-report.js'
import { admit, type Admitted } from './admit.js'
import { deliver, deliverWork } from './deliver.js'
import { ended, writeEnding, type Ending } from './ending.js'
import { checkHandover, deliveredResult, handOver, keepHandover, receive } from './handover.js'
import { loop } from './loop.js'
import { planRun, type Planned } from './plan-run.js'
import { prepare, restoreCheckout } from './prepare.js'
import { report } from './report.js'
import {
  chainRun,
  claimResume,
  continuesIn,
  dispatchNext,
  HANDS_NOTHING_ON,
  ownWorkflow,
  writeContinuation,
  type Resumed
} from './chain.js'
import type { Looped } from './loop.js'
import type { Run } from '../trigger/types.js'
import type { Prepared } from './prepare.js'
import { saveState } from './state.js'

async function pipeline(signal: AbortSignal): Promise<Ending> {
  const admitted = await admit()
  if (ended(admitted)) return admitted.end
  try {
    return await afterAdmission(admitted, signal)
  } finally {
    // The resumed run's record, downloaded at admission: copied into this job's record by the loop, if it ran.
    if (admitted.resumed) rmSync(admitted.resumed.dir, { recursive: true, force: true })
  }
}

async function afterAdmission(admitted: Admitted, signal: AbortSignal): Promise<Ending> {
  const planned = await planRun(admitted)
  if (ended(planned)) return planned.end
  if (planned.inputs.mode === 'deliver') return deliverJob(planned, signal)
  if (planned.resumed) {
    const refused = carryOn(planned, planned.resumed)
    if (refused) return refused
  }
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
  const next = continuesIn({ ...planned.inputs, ralphName: planned.plan.ralph.name }, looped.result, {
    jobsSoFar: (planned.resumed?.continuation.jobs.length ?? 0) + 1,
    carried: planned.resumed?.status.iterations.length ?? 0,
    cancelled: cancelled(),
    branchWas:
      planned.plan.pr !== undefined
        ? 'pr'
        : !planned.resumed && (prepared.branch.continued || prepared.branch.remoteSha !== null)
          ? 'existing'
          : undefined
  })
  if (!next.continues && 'why' in next && next.why !== undefined && !looped.result.success)
    core.info(`The loop does not go on in another run: ${next.why}.`)
  if (next.continues) return handOn(prepared, looped, signal)
  const delivery = await deliver(prepared, looped.result, cancelled())
  return report(prepared, looped, delivery, cancelled())
}

/**
 * `resume`: the plan goes on with the loop the previous run handed over (the same ralph on the same branch),
 * its state resumed by this job's loop (action/loop.ts). Ends the step in one line when it is another loop.
 */
function carryOn(planned: Planned, resumed: Resumed): Ending | undefined {
  const { plan, context, clients } = planned
  const { continuation: c } = resumed
  const other =
    plan.ralph.name !== c.ralph
      ? `it handed over the ralph ${c.ralph}, and this run runs ${plan.ralph.name}`
      : plan.branch !== c.branch
        ? `it handed over the branch ${c.branch}, and this run's is ${plan.branch}`
        : undefined
  if (other)
    return { failure: { message: `Cannot resume run ${c.runId}: ${other}. No agent ran.` }, finished: true }
  // The claim is made once the branch is checked (prepare), just before the loop.
  plan.resume = {
    runId: c.runId,
    head: c.head,
    claim: () => claimResume(clients.octokit, context, c),
    ...(c.tracking ? { tracking: c.tracking } : {})
  }
  return undefined
}

/** The trigger as the next run reads it: a ralph's folder relative to the project (another runner's may differ). */
function portable(trigger: Run, projectRoot: string): Run {
  if (trigger.ralph === undefined || !path.isAbsolute(trigger.ralph)) return trigger
  return { ...trigger, ralph: path.relative(projectRoot, trigger.ralph).split(path.sep).join('/') || '.' }
}

/**
 * continue-jobs: the loop ran out of this job's time with jobs, iterations and dollars left. Its work is
 * pushed to the branch (no pull request yet), continuation.json goes into the record, and once the record
 * is an artifact the next run is dispatched with `resume` = this run's id.
 */
async function handOn(prepared: Prepared, looped: Looped, signal: AbortSignal): Promise<Ending> {
  const { plan, clients, context } = prepared
  const { result } = looped
  const delivery = await deliver(prepared, result, false, { push: true, pullRequest: 'none', draft: false })
  const failed = (why: string): DeliveryReport => ({ ...delivery, continuationFailed: why })
  // The signal is asked after each step that can take long (the push, the upload's retries), before the next.
  const cancelled = (): string | undefined => {
    if (!signal.aborted) return undefined
    core.info(`The job was cancelled: ${HANDS_NOTHING_ON}.`)
    return `the job was cancelled, so ${HANDS_NOTHING_ON}`
  }
  const cancelledAfterPush = cancelled()
  if (cancelledAfterPush) return report(prepared, looped, failed(cancelledAfterPush), true)
  if (!delivery.pushed || delivery.commit === undefined)
    return report(
      prepared,
      looped,
      failed(delivery.problems[0] ?? delivery.skipped ?? `${delivery.branch ?? 'the branch'} was not pushed`),
      false
    )
  let workflowId: number
  try {
    workflowId = await ownWorkflow(await clients.octokit(), context)
  } catch (error) {
    return report(prepared, looped, failed((error as Error).message.split('\n')[0]), false)
  }
  const cancelledBeforeRecord = cancelled()
  if (cancelledBeforeRecord) return report(prepared, looped, failed(cancelledBeforeRecord), true)
  const own = { run: chainRun(context), head: delivery.commit }
  const jobs = result.chain
    ? result.chain.jobs.map((job, i, all) => (i === all.length - 1 ? { ...job, head: own.head } : job))
    : [
        {
          ...own,
          iterations: result.iterations.length,
          costUsd: result.cost.totalUsd,
          durationMs: result.durationMs,
          stopReason: result.stopReason
        }
      ]
  writeContinuation(plan.config.recordDir, {
    repository: `${context.repo.owner}/${context.repo.repo}`,
    workflowId,
    runId: own.run.id,
    runAttempt: own.run.attempt,
    ralph: plan.ralph.name,
    branch: prepared.branch.branch,
    base: prepared.branch.base,
    start: result.start.commit ?? prepared.branch.startSha,
    head: own.head,
    trigger: portable(prepared.trigger, plan.projectRoot),
    hunt: prepared.hunt,
    ...(prepared.tracking
      ? { tracking: { issueNumber: prepared.tracking.target.issueNumber, commentId: prepared.tracking.id } }
      : {}),
    jobs
  })
  return report(prepared, looped, delivery, false, undefined, async (pushed, uploaded) => {
    const cancelledAfterUpload = cancelled()
    if (cancelledAfterUpload) return { ...pushed, continuationFailed: cancelledAfterUpload }
    if (!uploaded)
      return {
        ...pushed,
        continuationFailed: 'the run record, which the next run goes on from, was not uploaded'
      }
    try {
      const next = await dispatchNext(await clients.octokit(), context, workflowId)
      core.info(
        `The loop goes on in ${next.url ?? (next.runId ? `run ${next.runId}` : 'the next run of this workflow')}.`
      )
      return { ...pushed, continued: next }
    } catch (error) {
      return { ...pushed, continuationFailed: (error as Error).message.split('\n')[0] }
    }
  })
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
