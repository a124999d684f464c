// The post step: runs after main however main ended. When main was cancelled or killed (the runner's
// SIGINT/SIGTERM, a job timeout), it finishes the record as cancelled, uploads it and writes the summary,
// so a run's record is never lost. Its failures are warnings: post must not fail a job.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import { RunRecord, STATUS_FILE, type LoopResult, type LoopStatus } from '../loop/index.js'
import { artifactUrl, readContext } from '../trigger/context.js'
import { writeSummary } from '../report/summary.js'
import type { RunReport } from '../report/run-report.js'
import { readInputs } from './inputs.js'
import { scrubOwnEnvironment } from './own-environment.js'
import { credentialsAfterMain, endAfterKilledMain } from './contain.js'
import { uploadArtifact } from './upload.js'
import { readState, type SavedState } from './state.js'
import { finaliseCancelled } from '../github/tracking.js'
import type { TrackingInfo } from '../report/tracking.js'
import { githubClient } from '../github/client.js'
import { settleInPost } from './budget-step.js'

/** The issue's tracking comment, finalised as cancelled unless main finalised it: never left "working…". */
async function finaliseTracking(state: SavedState, status: LoopStatus | undefined): Promise<void> {
  if (!state.tracking) return
  try {
    const saved = JSON.parse(state.tracking) as TrackingInfo & { issueNumber: number; commentId: number }
    const { issueNumber, commentId, ...info } = saved
    const token = (() => {
      try {
        return readInputs().githubToken
      } catch {
        // Main already reported the bad input; the token alone is still worth finalising the comment with.
        return core.getInput('github-token')
      }
    })()
    const octokit = await githubClient(token, { log: m => core.info(m) })
    const context = readContext()
    const outcome = await finaliseCancelled(
      octokit,
      { ...context.repo, issueNumber, commentId },
      info,
      status,
      m => core.warning(m)
    )
    core.info(`The tracking comment on #${issueNumber}: ${outcome}.`)
  } catch (error) {
    core.warning(`The tracking comment could not be finalised: ${(error as Error).message}`)
  }
}

/** Finishes a record whose loop was killed: status.json says `running`. Answers the status as it ends. */
export async function finishKilledRecord(
  recordDir: string,
  now = Date.now()
): Promise<LoopStatus | undefined> {
  const file = path.join(recordDir, STATUS_FILE)
  if (!existsSync(file)) return undefined
  const status = JSON.parse(readFileSync(file, 'utf8')) as LoopStatus
  if (status.state === 'finished') return status
  const finishedAt = new Date(now).toISOString()
  const result: LoopResult = {
    ...status,
    state: 'finished',
    stopReason: 'cancelled',
    stopDetail:
      status.inFlight !== undefined
        ? `the job was cancelled or timed out during iteration ${status.inFlight}, before the loop could finish`
        : 'the job was cancelled or timed out before the loop could finish',
    finishedAt,
    durationMs: Math.max(0, now - Date.parse(status.startedAt)),
    success: false
  }
  delete result.inFlight
  await RunRecord.open(recordDir).finish(result)
  return result
}

/** The record's status as main left it, when there is one. */
function recordStatus(recordDir: string | undefined): LoopStatus | undefined {
  const file = recordDir && path.join(recordDir, STATUS_FILE)
  if (!file || !existsSync(file)) return undefined
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LoopStatus
  } catch {
    return undefined // an unreadable record settles the lease in full
  }
}

function uploadWanted(): { upload: boolean; retentionDays?: number | undefined } {
  try {
    const inputs = readInputs()
    return { upload: inputs.uploadArtifacts, retentionDays: inputs.retentionDays }
  } catch {
    // Main already reported bad input; the record, if any, is still worth keeping.
    return { upload: core.getInput('upload-artifacts') !== 'false' }
  }
}

export async function post(): Promise<void> {
  scrubOwnEnvironment()
  const state = readState()
  if (state.finished) {
    // Main's end may still have left the checkout's credential out (a restore that failed): it goes back here.
    for (const warning of await credentialsAfterMain(state)) core.warning(warning)
    await settleInPost(state, recordStatus(state.recordDir))
    core.info('The main step finished; nothing left to do.')
    return
  }
  if (!state.recordDir || !existsSync(state.recordDir)) {
    for (const warning of await credentialsAfterMain(state)) core.warning(warning)
    await finaliseTracking(state, undefined)
    await settleInPost(state, undefined)
    core.info('The main step did not start a loop; nothing to upload.')
    return
  }
  core.info('The main step did not finish (cancelled, killed or timed out): saving its record.')
  // Before anything else: nothing the loop started may outlive main, and nothing it changed stays changed.
  for (const warning of await endAfterKilledMain(state)) core.warning(warning)
  let status: LoopStatus | undefined
  try {
    status = await finishKilledRecord(state.recordDir)
  } catch (error) {
    core.warning(`The run record could not be finished: ${(error as Error).message}`)
  }
  await finaliseTracking(state, status)
  await settleInPost(state, status)

  const context = readContext()
  const links: RunReport['links'] = { run: context.runUrl }
  const wanted = uploadWanted()
  if (wanted.upload && !state.uploaded && state.artifactName) {
    const upload = await uploadArtifact(state.recordDir, state.artifactName, {
      retentionDays: wanted.retentionDays
    })
    if ('uploaded' in upload) {
      links.artifactName = upload.uploaded.name
      if (upload.uploaded.id !== undefined) links.artifact = artifactUrl(context, upload.uploaded.id)
    } else {
      links.recordNotUploaded = `${upload.failed}; it stays on the runner at ${state.recordDir} until the job ends`
    }
  }
  if (status && !state.summaryWritten) {
    try {
      await writeSummary({
        status,
        task: { name: state.ralphName ?? status.ralph.name, text: '' },
        delivery: {
          ...(state.branch !== undefined ? { branch: state.branch } : {}),
          pushed: false,
          problems: [],
          notes: []
        },
        links
      })
    } catch (error) {
      core.warning(`The job summary could not be written: ${(error as Error).message}`)
    }
  }
}
