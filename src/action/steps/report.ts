// Step 6, report: the tracking comment's last word, a hunt's failure report, the record uploaded, the job
// summary, and the step's outputs and verdict. A cancelled run leaves the upload and summary to post.
import * as core from '@actions/core'
import { STOP_WORDS, type LoopResult } from '../../loop/index.js'
import { artifactUrl } from '../../trigger/context.js'
import { nextRunWords, type DeliveryReport, type RunReport } from '../../report/run-report.js'
import { writeSummary } from '../../report/summary.js'
import { closeFailureReport, reportFailure } from '../../github/hunt-report.js'
import type { StepEnd, OutputName } from './ending.js'
import type { Clients, Looped, Prepared } from './types.js'
import { saveState } from '../state.js'
import { uploadArtifact } from '../upload.js'

function outputsOf(
  result: LoopResult,
  delivery: DeliveryReport,
  artifactId?: number,
  handedOver?: string
): Partial<Record<OutputName, string>> {
  return {
    'stop-reason': result.stopReason,
    success: String(result.success),
    iterations: String(result.iterations.length),
    cost: result.cost.totalUsd.toFixed(4),
    'cost-source': result.cost.source,
    duration: String(Math.round(result.durationMs / 1000)),
    branch: delivery.branch ?? '',
    commit: delivery.commit ?? '',
    // The branch's last commit passed every gate on a clean checkout of it (loop/verify.ts).
    verified: String(
      result.verification?.verdict === 'passed' &&
        delivery.commit !== undefined &&
        result.verification.commit === delivery.commit
    ),
    'pr-number': delivery.pullRequest ? String(delivery.pullRequest.number) : '',
    'pr-url': delivery.pullRequest?.url ?? '',
    'pr-operation': delivery.pullRequest?.operation ?? 'none',
    'artifact-id': artifactId !== undefined ? String(artifactId) : '',
    // mode: agent's handover, for the deliver job's `delivery` input.
    delivery: handedOver ?? '',
    // continue-jobs: the loop goes on in another run.
    continued: String(delivery.continued !== undefined),
    'continued-run': delivery.continued?.runId ?? '',
    // mode: list's outputs, empty in a run.
    matrix: '',
    count: '',
    // The repository's budget (set after the report where a budget is given); mode: reserve's lease.
    'budget-left': '',
    lease: ''
  }
}

/** The step's verdict, in one line: why it failed, or undefined when it succeeded. */
function failureLine(
  result: LoopResult,
  delivery: DeliveryReport,
  artifactName?: string
): string | undefined {
  if (result.stopReason === 'cancelled') return `The loop was cancelled: ${result.stopDetail}.`
  if (delivery.continuationFailed)
    return `The loop ran out of this job's time and could not go on in another run: ${delivery.continuationFailed}.${delivery.pushed && delivery.branch ? ` The work is on branch ${delivery.branch}.` : ''}`
  if (!result.success && !(delivery.continued && delivery.problems.length === 0)) {
    const record = artifactName ? ` The run record is the artifact ${artifactName}.` : ''
    const noTag = result.iterations.at(-1)?.verdict === 'checks_passed_no_tag'
    const why = noTag
      ? 'The gates pass, but the agent never gave the completion tag (completion-tag: none lets the gates alone decide)'
      : (STOP_WORDS[result.stopReason].failure ?? 'The loop did not succeed')
    return `${why} (${result.stopReason}): ${result.stopDetail.replace(/\.$/, '')}.${record}`
  }
  if (delivery.continued && delivery.problems.length === 0) return undefined
  if (delivery.problems.length > 0)
    return `Every gate passed, but the work was not delivered: ${delivery.problems[0]}`
  return undefined
}

/** A hunt's failure report: opened or updated when it failed, closed when it succeeded. A warning on error. */
async function reportHunt(
  { plan }: Prepared,
  result: LoopResult,
  delivery: DeliveryReport,
  clients: Clients
): Promise<void> {
  try {
    const target = {
      ...plan.context.repo,
      ralphName: plan.ralph.name,
      runUrl: plan.context.runUrl,
      actor: await clients.jobActor()
    }
    const client = await clients.octokit()
    if (result.success && delivery.problems.length === 0) {
      const closed = await closeFailureReport(client, {
        ...target,
        ...(delivery.pullRequest ? { pullUrl: delivery.pullRequest.url } : {})
      })
      if (closed !== undefined) core.info(`Closed the failure report #${closed}: the hunt succeeded.`)
    } else {
      const reason = result.success
        ? `every gate passed, but the work was not delivered: ${delivery.problems[0]}`
        : `${result.stopReason}: ${result.stopDetail}`
      const issue = await reportFailure(client, { ...target, reason })
      core.info(
        `Failure report #${issue.number} ${issue.operation} (${issue.failures} in a row): ${issue.url}`
      )
    }
  } catch (error) {
    core.warning(`The hunt's failure report could not be written: ${(error as Error).message}`)
  }
}

/**
 * `uploaded`: continue-jobs, once the record is an artifact (the next run reads it): dispatches the next
 * run, and answers the delivery as it then stands.
 */
export type AfterUpload = (delivery: DeliveryReport, uploaded: boolean) => Promise<DeliveryReport>

/** How a job's run is reported, besides its loop and its delivery. */
export interface ReportOptions {
  /** The run was cancelled: post finishes the report (main exits within the runner's grace period). */
  cancelled: boolean
  /** The agent job of two: the delivery artifact's name (its `delivery` output). */
  handedOver?: string | undefined
  afterUpload?: AfterUpload
}

/** The step's last: the record uploaded, the tracking comment finished, the summary written, the outputs set. */
export async function report(
  prepared: Prepared,
  looped: Looped,
  delivery: DeliveryReport,
  { cancelled, handedOver, afterUpload }: ReportOptions
): Promise<StepEnd> {
  const { plan, tracking, clients, hunt } = prepared
  const { result } = looped
  if (cancelled) {
    // Post finalises the comment, uploads the record and writes the summary: main exits within the
    // runner's grace period.
    return {
      outputs: outputsOf(result, delivery, undefined, handedOver),
      failure: { message: failureLine(result, delivery) ?? 'The loop was cancelled.' },
      finished: false
    }
  }
  const links: RunReport['links'] = { run: plan.context.runUrl, artifactName: plan.artifactName }
  let artifactId: number | undefined
  if (plan.inputs.uploadArtifacts) {
    const upload = await uploadArtifact(plan.config.recordDir, plan.artifactName, {
      retentionDays: plan.inputs.retentionDays,
      ...(clients.budget.deadline !== undefined ? { deadline: clients.budget.deadline } : {})
    })
    if ('uploaded' in upload) {
      saveState('uploaded', true)
      artifactId = upload.uploaded.id
      links.artifactName = upload.uploaded.name
      if (upload.uploaded.id !== undefined) links.artifact = artifactUrl(plan.context, upload.uploaded.id)
    } else {
      delete links.artifactName
      links.recordNotUploaded = `${upload.failed}; it stays on the runner at ${plan.config.recordDir} until the job ends`
    }
  }
  if (afterUpload)
    delivery = await afterUpload(delivery, links.artifactName !== undefined && !links.recordNotUploaded)
  if (tracking) {
    await looped.followed()
    const note =
      delivery.problems[0] ??
      (delivery.continued ? `The loop goes on in ${nextRunWords(delivery.continued)}.` : delivery.skipped)
    await tracking.finalise({
      status: result,
      ...(delivery.pullRequest ? { pullRequest: delivery.pullRequest } : {}),
      ...(note || delivery.budget ? { note: [note, delivery.budget].filter(Boolean).join('\n\n') } : {}),
      ...(delivery.problems.length > 0 ? { undelivered: true } : {}),
      ...(delivery.continued && delivery.problems.length === 0 ? { continued: true } : {})
    })
  }
  // A chain that goes on is not over: its last job reports the hunt.
  if (hunt && prepared.inputs.reportIssue && clients.mayWrite && !delivery.continued)
    await reportHunt(prepared, result, delivery, clients)

  try {
    await writeSummary({ status: result, task: plan.task, links, base: prepared.branch.base, delivery })
    saveState('summaryWritten', true)
  } catch (error) {
    core.warning(`The job summary could not be written: ${(error as Error).message}`)
  }
  for (const note of delivery.notes) core.notice(note)
  const failure = failureLine(result, delivery, links.artifact ? links.artifactName : undefined)
  if (!failure) core.info(`Done: ${result.stopDetail}.`)
  return {
    outputs: outputsOf(result, delivery, artifactId, handedOver),
    ...(failure ? { failure: { message: failure } } : {}),
    finished: true
  }
}
