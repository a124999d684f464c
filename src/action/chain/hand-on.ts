// The chain, this job's side: the loop ran out of this job's time with jobs, iterations and dollars left
// (decide.ts). Its work is pushed to the branch (no pull request yet), continuation.json goes into the record,
// and once the record is an artifact (report's afterUpload) the next run is dispatched with `resume` = this run's id.
import path from 'node:path'
import * as core from '@actions/core'
import type { Octokit } from '../../github/client.js'
import type { DeliveryReport } from '../../report/run-report.js'
import type { RunContext } from '../../trigger/context.js'
import type { Run } from '../../trigger/types.js'
import { deliver } from '../steps/deliver.js'
import type { ReportOptions } from '../steps/report.js'
import type { Looped, Prepared } from '../steps/types.js'
import { HANDS_NOTHING_ON } from './decide.js'
import { chainRun, isRecord, writeContinuation } from './format.js'
import { ownWorkflow } from './runs.js'

/** What the job reports after handing on (or failing to): the delivery, and report's options. */
export interface HandedOn extends ReportOptions {
  delivery: DeliveryReport
}

/** The trigger as the next run reads it: a ralph's folder relative to the project (another runner's may differ). */
function portable(trigger: Run, projectRoot: string): Run {
  if (trigger.ralph === undefined || !path.isAbsolute(trigger.ralph)) return trigger
  return { ...trigger, ralph: path.relative(projectRoot, trigger.ralph).split(path.sep).join('/') || '.' }
}

/** Pushes the work, writes continuation.json and answers how to report it, the dispatch to follow the upload. */
export async function handOn(prepared: Prepared, looped: Looped, signal: AbortSignal): Promise<HandedOn> {
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
  if (cancelledAfterPush) return { delivery: failed(cancelledAfterPush), cancelled: true }
  if (!delivery.pushed || delivery.commit === undefined)
    return {
      delivery: failed(
        delivery.problems[0] ?? delivery.skipped ?? `${delivery.branch ?? 'the branch'} was not pushed`
      ),
      cancelled: false
    }
  let workflowId: number
  try {
    workflowId = await ownWorkflow(await clients.octokit(), context)
  } catch (error) {
    return { delivery: failed((error as Error).message.split('\n')[0]), cancelled: false }
  }
  const cancelledBeforeRecord = cancelled()
  if (cancelledBeforeRecord) return { delivery: failed(cancelledBeforeRecord), cancelled: true }
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
  const afterUpload = async (pushed: DeliveryReport, uploaded: boolean): Promise<DeliveryReport> => {
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
  }
  return { delivery, cancelled: false, afterUpload }
}

/**
 * Dispatches the next run of this workflow on this run's ref, with `resume` = this run's id and the dispatch
 * inputs this run had. Answers its id and address when GitHub says them.
 */
export async function dispatchNext(
  octokit: Octokit,
  context: RunContext,
  workflowId: number
): Promise<{ runId?: string; url?: string }> {
  const given = isRecord(context.payload.inputs) ? context.payload.inputs : {}
  const inputs: Record<string, string> = {}
  for (const [name, value] of Object.entries(given))
    if (name !== 'resume' && value !== null && value !== undefined) inputs[name] = String(value)
  inputs.resume = String(context.runId)
  try {
    // return_run_details (2025): GitHub answers 200 with the new run's id and address instead of 204.
    const request = octokit.request as (route: string, parameters: object) => Promise<{ data: unknown }>
    // Sent once: a dispatch GitHub carried out but did not answer must not start a second successor.
    const response = await request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
      ...context.repo,
      workflow_id: workflowId,
      ref: context.ref,
      inputs,
      return_run_details: true,
      request: { retries: 0 }
    })
    const data = (response.data ?? {}) as { workflow_run_id?: number; html_url?: string }
    return {
      ...(data.workflow_run_id !== undefined ? { runId: String(data.workflow_run_id) } : {}),
      ...(data.html_url !== undefined ? { url: data.html_url } : {})
    }
  } catch (error) {
    const status = (error as { status?: number }).status
    const said = (error as Error).message.split('\n')[0]
    if (status === 403)
      throw new Error(
        `the job token may not start workflows (${said}): give the job permissions: actions: write`,
        { cause: error }
      )
    if (status === 422)
      throw new Error(
        `GitHub refused to dispatch the workflow on ${context.ref} (${said}): it needs on: workflow_dispatch with an input named resume (see examples/workflows/long-loop.yml)`,
        { cause: error }
      )
    throw new Error(`the next run could not be dispatched: ${said}`, { cause: error })
  }
}
