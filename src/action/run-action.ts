// One run of the action, phase by phase: prepare the branch → run the loop (credentials removed, agent env
// scrubbed) → annotate failing gates → deliver → upload the record → summary → outputs. Each phase says what
// it does in the log; a failure names the phase it came from.
import { readFileSync, statSync, openSync, readSync, closeSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import { GitRepo, type CommitIdentity, type PreparedBranch } from '../git/index.js'
import type { LoopResult } from '../loop/index.js'
import { IsolationError, type AgentIsolation } from '../security/index.js'
import { annotationsFor, type CheckOutput } from '../github/annotations.js'
import { uploadRecord, type UploadedArtifact } from '../github/artifacts.js'
import { artifactUrl, type RunContext } from '../github/context.js'
import { formatDuration, type DeliveryReport, type RunReport } from '../github/run-report.js'
import { writeSummary } from '../github/summary.js'
import { lazyClient, type Octokit } from '../github/client.js'
import { retryTiming, type RetryBudget } from '../github/retry.js'
import { postRefusal, TrackingComment } from '../github/tracking.js'
import { startFailureReply, type RunPlan as TriggerRun } from '../github/trigger.js'
import { closeFailureReport, reportFailure } from '../github/hunt.js'
import { deliver, prepare, restoreCheckout, workTreeOf } from './deliver.js'
import { isolateLoop, runLoopContained } from './contain.js'
import { actionLogger } from './log.js'
import { deliveryMarginSeconds, type RunPlan } from './plan.js'
import { saveState } from './state.js'

/** Bytes of a failing gate's log read for annotations (its end, where the failures are summed up). */
const ANNOTATION_LOG_BYTES = 2 * 1024 * 1024

function readTail(file: string, bytes: number): string {
  const size = statSync(file).size
  if (size <= bytes) return readFileSync(file, 'utf8')
  const fd = openSync(file, 'r')
  try {
    const buffer = Buffer.alloc(bytes)
    readSync(fd, buffer, 0, bytes, size - bytes)
    return buffer.toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/** Annotations for the gates that failed in the last iteration. */
export function annotateFailures(result: LoopResult, plan: RunPlan): number {
  const last = result.iterations.at(-1)
  if (!last) return 0
  const failing: CheckOutput[] = []
  for (const check of last.checks.filter(c => !c.passed)) {
    let output = check.tail
    try {
      output = readTail(path.join(result.recordDir, check.log), ANNOTATION_LOG_BYTES)
    } catch {
      // The tail in the result is enough to annotate from.
    }
    failing.push({ name: check.name, output, cwd: plan.projectRoot })
  }
  const annotations = annotationsFor(failing, plan.workspace)
  for (const a of annotations)
    core.error(a.message, {
      title: a.title,
      file: a.file,
      startLine: a.line,
      ...(a.column !== undefined ? { startColumn: a.column } : {})
    })
  return annotations.length
}

/** The record's upload, or why it did not happen. */
export type RecordUpload = { uploaded: UploadedArtifact } | { failed: string }

/** Rejects after `ms`; the upload it races is left to end on its own (the step exits soon after). */
function timeLimit<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms / 1000)} s`)), ms)
  })
  work.catch(() => undefined)
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

/**
 * Uploads the record as an artifact, and once more under a fresh name when that fails (a half-made artifact
 * keeps its name taken). A failure after that is a warning, never the step's: the loop did its work, and
 * the record is still on the runner.
 */
export async function uploadArtifact(
  recordDir: string,
  name: string,
  options: { retentionDays?: number; deadline?: number } = {}
): Promise<RecordUpload> {
  const timing = retryTiming()
  let attemptName = name
  for (let attempt = 1; ; attempt++) {
    try {
      const uploaded = await timeLimit(
        uploadRecord(recordDir, attemptName, { retentionDays: options.retentionDays }),
        timing.uploadTimeoutMs
      )
      core.info(
        `Uploaded the run record as artifact ${uploaded.name} (${uploaded.files} files, id ${uploaded.id}).`
      )
      return { uploaded }
    } catch (error) {
      const message = (error as Error).message.split('\n')[0]
      const late = options.deadline !== undefined && Date.now() > options.deadline
      if (attempt >= 2 || late) {
        core.warning(
          `The run record could not be uploaded (${message}); it is still on the runner at ${recordDir}.`
        )
        return { failed: message }
      }
      // A matrix or a re-run step can reuse a name within a run; a failed upload can leave it taken.
      attemptName = `${name}-${Date.now().toString(36)}`
      core.info(`The upload of ${name} failed (${message}); uploading it again as ${attemptName}.`)
    }
  }
}

export interface ActionOutcome {
  result: LoopResult
  delivery: DeliveryReport
  report: RunReport
}

function setOutputs(result: LoopResult, delivery: DeliveryReport, artifactId?: number): void {
  core.setOutput('stop-reason', result.stopReason)
  core.setOutput('success', String(result.success))
  core.setOutput('iterations', String(result.iterations.length))
  core.setOutput('cost', result.cost.totalUsd.toFixed(4))
  core.setOutput('cost-source', result.cost.source)
  core.setOutput('duration', String(Math.round(result.durationMs / 1000)))
  core.setOutput('branch', delivery.branch ?? '')
  core.setOutput('commit', delivery.commit ?? '')
  core.setOutput('pr-number', delivery.pullRequest ? String(delivery.pullRequest.number) : '')
  core.setOutput('pr-url', delivery.pullRequest?.url ?? '')
  core.setOutput('pr-operation', delivery.pullRequest?.operation ?? 'none')
  core.setOutput('artifact-id', artifactId !== undefined ? String(artifactId) : '')
  // mode: list's outputs, empty in a run.
  core.setOutput('matrix', '')
  core.setOutput('count', '')
}

const WHY_NOT: Partial<Record<LoopResult['stopReason'], string>> = {
  max_iterations: 'The gates never passed',
  timeout: 'The time budget ran out before the gates passed',
  budget_exhausted: 'The cost budget ran out before the gates passed',
  circuit_open: 'The loop stopped making progress before the gates passed',
  agent_error: 'The loop stopped on an error'
}

/** The step's verdict, in one line: why it failed, or undefined when it succeeded. */
function failureLine(
  result: LoopResult,
  delivery: DeliveryReport,
  artifactName?: string
): string | undefined {
  if (result.stopReason === 'cancelled') return `The loop was cancelled: ${result.stopDetail}.`
  if (!result.success) {
    const record = artifactName ? ` The run record is the artifact ${artifactName}.` : ''
    const noTag = result.iterations.at(-1)?.verdict === 'checks_passed_no_tag'
    const why = noTag
      ? 'The gates pass, but the agent never gave the completion tag (completion-tag: none lets the gates alone decide)'
      : (WHY_NOT[result.stopReason] ?? 'The loop did not succeed')
    return `${why} (${result.stopReason}): ${result.stopDetail.replace(/\.$/, '')}.${record}`
  }
  if (delivery.problems.length > 0)
    return `Every gate passed, but the work was not delivered: ${delivery.problems[0]}`
  return undefined
}

/**
 * Runs the plan to its end. `signal` aborts the loop (the runner's SIGINT/SIGTERM). On a cancel, main
 * leaves the upload and the summary to post, so it can exit within the runner's grace period.
 */
export interface RunActionOptions {
  /** The job token's client, for the issue's tracking comment. */
  octokit?: () => Promise<Octokit>
  /** The clients' retries end at its deadline, which the run sets to max-time when the loop starts. */
  budget?: RetryBudget
  /** A scheduled hunt with report-issue: keep one issue up to date on failure, close it on success. */
  reportIssue?: boolean
}

/** A hunt's failure report: opened or updated when it failed, closed when it succeeded. A warning on error. */
async function reportHunt(
  plan: RunPlan,
  result: LoopResult,
  delivery: DeliveryReport,
  octokit: () => Promise<Octokit>
): Promise<void> {
  const target = { ...plan.context.repo, ralphName: plan.ralph.name, runUrl: plan.context.runUrl }
  try {
    const client = await octokit()
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

/** The issue's tracking comment, created when the loop starts; its id goes to the state for post at once. */
async function startTracking(
  plan: RunPlan,
  branch: string,
  options: RunActionOptions
): Promise<TrackingComment | undefined> {
  const issueNumber = plan.trigger?.issueNumber
  if (issueNumber === undefined || !options.octokit) return undefined
  const info = {
    ralphName: plan.ralph.name,
    runId: plan.context.runId,
    runUrl: plan.context.runUrl,
    branch,
    ...(plan.trigger?.actor ? { actor: plan.trigger.actor.login } : {}),
    maxIterations: plan.inputs.maxIterations
  }
  const tracking = await TrackingComment.create(
    await options.octokit(),
    { ...plan.context.repo, issueNumber },
    info,
    m => core.warning(m)
  )
  if (tracking) saveState('tracking', JSON.stringify({ issueNumber, commentId: tracking.id, ...info }))
  return tracking
}

/**
 * Tells whoever asked on an issue that the loop could not start, and that their request is not at fault:
 * the problem is the workflow's or the ralph's. Paths are shown relative to the workspace.
 */
export async function replyCannotStart(
  trigger: TriggerRun,
  context: RunContext,
  octokit: () => Promise<Octokit>,
  problem: string
): Promise<void> {
  if (trigger.issueNumber === undefined) return
  const relative = problem.split(`${context.workspace}/`).join('').split(context.workspace).join('.')
  await postRefusal(
    await octokit(),
    { ...context.repo, issueNumber: trigger.issueNumber },
    startFailureReply(trigger.actor?.login, relative, context.runUrl),
    m => core.warning(m)
  )
}

/**
 * The branch must hold what the loop verified: the tree its last iteration left (a process of the loop that
 * moved the branch, possible only as the job's own user, delivers nothing). Answers the problem, if any.
 */
async function branchMovedDuringLoop(
  workTree: string,
  branch: string,
  result: LoopResult
): Promise<string | undefined> {
  const verified = [...result.iterations].reverse().find(it => it.treeHash)?.treeHash ?? result.start.tree
  if (!verified) return undefined
  const tree = await new GitRepo(workTree).exec(
    ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{tree}`],
    {
      probe: true
    }
  )
  if (tree.stdout.trim() === verified) return undefined
  return `'${branch}' no longer holds the tree the loop verified (${verified.slice(0, 12)}): something moved it during the loop, so nothing was pushed`
}

export async function runAction(
  plan: RunPlan,
  signal: AbortSignal,
  options: RunActionOptions = {}
): Promise<void> {
  const { inputs, context } = plan
  saveState('recordDir', plan.config.recordDir)
  saveState('artifactName', plan.artifactName)
  saveState('ralphName', plan.ralph.name)
  saveState('branch', plan.branch)

  let workTree: string
  let prepared: PreparedBranch
  let identity: CommitIdentity
  core.startGroup(`Preparing branch ${plan.branch}`)
  try {
    workTree = await workTreeOf(plan.projectRoot)
    ;({ prepared, identity } = await prepare(plan, workTree))
    core.info(
      `${prepared.continued ? 'Continuing' : 'Created'} branch ${prepared.branch} from ${prepared.base} (${prepared.baseSha.slice(0, 12)}).`
    )
  } catch (error) {
    core.endGroup()
    const message = `Preparing the branch failed: ${(error as Error).message}`
    // 👀 is already on the request: say it will not run.
    if (plan.trigger && options.octokit)
      await replyCannotStart(plan.trigger, context, options.octokit, message)
    core.setFailed(message)
    saveState('finished', true)
    return
  }
  core.endGroup()

  // Who the loop's processes run as: the agent's own user wherever the runner allows it.
  let isolated: AgentIsolation | undefined
  try {
    isolated = await isolateLoop(plan, workTree)
  } catch (error) {
    if (!(error instanceof IsolationError)) throw error
    await identity.restore().catch(() => undefined)
    await restoreCheckout(workTree, prepared)
    if (plan.trigger && options.octokit)
      await replyCannotStart(plan.trigger, context, options.octokit, error.message)
    core.setFailed(error.message)
    saveState('finished', true)
    return
  }

  // The loop, contained (contain.ts): the job's environment without tokens, the checkout's credential out
  // of .git/config, and everything it leaves killed and undone before anything is delivered.
  const tracking = await startTracking(plan, prepared.branch, options)
  const follow = tracking?.follow()
  const logger = actionLogger(plan.config)
  const emit: typeof logger.emit = event => {
    follow?.emit(event)
    logger.emit(event)
  }
  // Delivery's retries end at max-time; the loop stops the delivery margin before it (plan.ts).
  const budget = options.budget ?? {}
  if (inputs.maxTimeSeconds !== undefined) {
    budget.deadline = Date.now() + inputs.maxTimeSeconds * 1000
    const kept = deliveryMarginSeconds(inputs.maxTimeSeconds) * 1000
    core.info(
      `max-time is ${formatDuration(inputs.maxTimeSeconds * 1000)}: the loop stops ${formatDuration(kept)} before it, to deliver in time (push, pull request, record, with their retries).`
    )
  }
  const { result, warnings } = await runLoopContained(plan, workTree, isolated, { signal, emit }).finally(
    logger.close
  )
  for (const warning of warnings) core.warning(warning)

  if (!result.success && result.stopReason !== 'cancelled') annotateFailures(result, plan)

  const links: RunReport['links'] = { run: context.runUrl, artifactName: plan.artifactName }
  const base = { status: result, task: plan.task, links, base: prepared.base }
  let delivery: DeliveryReport
  if (signal.aborted || result.stopReason === 'cancelled') {
    delivery = { branch: prepared.branch, pushed: false, problems: [], notes: [] }
    delivery.skipped = 'the run was cancelled, so nothing was pushed'
  } else {
    const moved = await branchMovedDuringLoop(workTree, prepared.branch, result)
    try {
      if (moved) throw new Error(moved)
      delivery = await deliver({
        plan,
        workTree,
        prepared,
        result,
        report: base,
        ...(budget.deadline !== undefined ? { deadline: budget.deadline } : {}),
        octokit:
          inputs.pushToken === undefined && options.octokit
            ? options.octokit
            : lazyClient(inputs.pushToken ?? inputs.githubToken, { budget, log: m => core.info(m) })
      })
    } catch (error) {
      delivery = {
        branch: prepared.branch,
        pushed: false,
        problems: [`delivery failed: ${(error as Error).message}`],
        notes: []
      }
    }
  }

  await identity.restore().catch(() => undefined)
  await restoreCheckout(workTree, prepared)

  // Cancelled: post finalises the comment (main must exit within the runner's grace period).
  if (tracking && follow && !(signal.aborted || result.stopReason === 'cancelled')) {
    await follow.settled()
    const note = delivery.problems[0] ?? delivery.skipped
    await tracking.finalise({
      status: result,
      ...(delivery.pullRequest ? { pullRequest: delivery.pullRequest } : {}),
      ...(note ? { note } : {})
    })
  }

  if (options.reportIssue && options.octokit && !(signal.aborted || result.stopReason === 'cancelled'))
    await reportHunt(plan, result, delivery, options.octokit)

  // Cancelled: exit now, within the runner's grace period; post uploads the record and writes the summary.
  if (signal.aborted || result.stopReason === 'cancelled') {
    setOutputs(result, delivery)
    core.setFailed(failureLine(result, delivery) ?? 'The loop was cancelled.')
    saveState('finished', false)
    return
  }

  let artifactId: number | undefined
  if (inputs.uploadArtifacts) {
    const upload = await uploadArtifact(plan.config.recordDir, plan.artifactName, {
      retentionDays: inputs.retentionDays,
      ...(budget.deadline !== undefined ? { deadline: budget.deadline } : {})
    })
    if ('uploaded' in upload) {
      saveState('uploaded', true)
      artifactId = upload.uploaded.id
      links.artifactName = upload.uploaded.name
      if (upload.uploaded.id !== undefined) links.artifact = artifactUrl(context, upload.uploaded.id)
    } else {
      delete links.artifactName
      links.recordNotUploaded = `${upload.failed}; it stays on the runner at ${plan.config.recordDir} until the job ends`
    }
  }
  const report: RunReport = { ...base, delivery }
  try {
    await writeSummary(report)
    saveState('summaryWritten', true)
  } catch (error) {
    core.warning(`The job summary could not be written: ${(error as Error).message}`)
  }
  setOutputs(result, delivery, artifactId)
  for (const note of delivery.notes) core.notice(note)
  const failure = failureLine(result, delivery, links.artifact ? links.artifactName : undefined)
  if (failure) core.setFailed(failure)
  else core.info(`Done: ${result.stopDetail}.`)
  saveState('finished', true)
}
