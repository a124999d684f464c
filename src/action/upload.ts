// The run record as an artifact, from main at the end of a run, or from post when main was cancelled.
import * as core from '@actions/core'
import { uploadRecord, type UploadedArtifact } from '../github/artifacts.js'
import { retryTiming } from '../github/retry.js'

/** The record's upload, or why it did not happen. */
export type RecordUpload = { uploaded: UploadedArtifact } | { failed: string }

/** Rejects after `ms`; the upload it races is left to end on its own (the step exits soon after). */
function timeLimit<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms / 1000)} s`)), ms)
  })
  // The race below reports the failure; this only keeps a late rejection after the time limit from going unhandled.
  work.catch(() => undefined)
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

/**
 * Uploads the record as an artifact, and once more under a fresh name when that fails (a half-made artifact
 * keeps its name taken); not at all, in one warning, where the job has no artifact service. A failure after that is a warning, never the step's: the loop did its work, and
 * the record is still on the runner.
 */
export async function uploadArtifact(
  recordDir: string,
  name: string,
  options: { retentionDays?: number | undefined; deadline?: number } = {}
): Promise<RecordUpload> {
  // Without the runner's artifact service there is nothing to try, and nothing to try again.
  const missing = ['ACTIONS_RUNTIME_TOKEN', 'ACTIONS_RESULTS_URL'].filter(v => !process.env[v])
  if (missing.length > 0) {
    const message = `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not set (a GitHub runner gives them to every step)`
    core.warning(`The run record was not uploaded: ${message}; it is on the runner at ${recordDir}.`)
    return { failed: message }
  }
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
