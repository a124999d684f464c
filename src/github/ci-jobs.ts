// A failed workflow run as a CI round reads it: its failing jobs and steps, and the end of each failing job's
// log. GitHub answers a log with a redirect to a short-lived URL of its blob store; that URL is read without
// the token (the store takes none), and only its end is kept: a log can be hundreds of megabytes.
import type { Octokit } from './client.js'

export interface RepoTarget {
  owner: string
  repo: string
}

export interface FailedStep {
  number: number
  name: string
  conclusion: string
}

export interface FailedJob {
  id: number
  name: string
  /** `failure` or `timed_out`. */
  conclusion: string
  url: string
  failedSteps: FailedStep[]
}

/** The conclusions that mean "CI failed here". */
export const FAILED_CONCLUSIONS = ['failure', 'timed_out'] as const

const failed = (conclusion: string | null | undefined): boolean =>
  (FAILED_CONCLUSIONS as readonly string[]).includes(conclusion ?? '')

/** The jobs of the run's latest attempt that failed, with their failed steps; `total` counts every job. */
export async function failedJobs(
  octokit: Octokit,
  target: RepoTarget,
  runId: number
): Promise<{ failed: FailedJob[]; total: number }> {
  const jobs = await octokit.paginate(octokit.rest.actions.listJobsForWorkflowRun, {
    owner: target.owner,
    repo: target.repo,
    run_id: runId,
    filter: 'latest',
    per_page: 100
  })
  return {
    total: jobs.length,
    failed: jobs
      .filter(job => failed(job.conclusion))
      .map(job => ({
        id: job.id,
        name: job.name,
        conclusion: job.conclusion ?? '',
        url: job.html_url ?? '',
        failedSteps: (job.steps ?? [])
          .filter(step => failed(step.conclusion))
          .map(step => ({ number: step.number, name: step.name, conclusion: step.conclusion ?? '' }))
      }))
  }
}

export interface LogTail {
  /** The log's last bytes as text, from a whole line on. */
  text: string
  /** The whole log's size, when known. */
  size?: number
  /** Whether the log's start was left out. */
  cut: boolean
}

export interface LogTailOptions {
  /** The most bytes kept from the log's end. Default 256 KiB. */
  maxBytes?: number
  /** For the download, headers and body. Default 60 s. */
  timeoutMs?: number
}

/**
 * The end of job `jobId`'s log. The API answers a redirect, which is read here (not followed), so the token
 * never goes to the blob store; a long log is read from where its tail starts when the store takes a Range.
 */
export async function jobLogTail(
  octokit: Octokit,
  target: RepoTarget,
  jobId: number,
  options: LogTailOptions = {}
): Promise<LogTail> {
  const maxBytes = options.maxBytes ?? 256 * 1024
  const signal = AbortSignal.timeout(options.timeoutMs ?? 60_000)
  const answer = await octokit.rest.actions.downloadJobLogsForWorkflowRun({
    owner: target.owner,
    repo: target.repo,
    job_id: jobId,
    request: { redirect: 'manual' }
  })
  const location = (answer.headers as Record<string, string | undefined>).location
  // A server that answers the log itself (no redirect): what it sent is the log.
  if ((answer.status as number) !== 302 || !location)
    return tailOf(Buffer.from(String(answer.data ?? '')), maxBytes)
  let response = await fetch(location, { signal })
  if (!response.ok)
    throw new Error(`the log of job ${jobId} could not be downloaded (HTTP ${response.status})`)
  const size = Number(response.headers.get('content-length') ?? NaN)
  if (Number.isFinite(size) && size > 2 * maxBytes && response.headers.get('accept-ranges') === 'bytes') {
    await response.body?.cancel()
    response = await fetch(location, { signal, headers: { range: `bytes=${size - maxBytes}-` } })
    if (response.status === 206) {
      const tail = tailOf(Buffer.from(await response.arrayBuffer()), maxBytes, true)
      return { ...tail, size }
    }
    if (!response.ok)
      throw new Error(`the log of job ${jobId} could not be downloaded (HTTP ${response.status})`)
  }
  const tail = await streamTail(response, maxBytes)
  return { ...tail, ...(Number.isFinite(size) ? { size } : {}) }
}

/** Reads a body to its end, keeping at most its last `maxBytes`. */
async function streamTail(response: Response, maxBytes: number): Promise<LogTail> {
  let kept = Buffer.alloc(0)
  let dropped = false
  if (response.body)
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      kept = Buffer.concat([kept, chunk])
      // Trimmed in steps, not per chunk: copying the window each time would be quadratic.
      if (kept.length > 2 * maxBytes) {
        kept = kept.subarray(kept.length - maxBytes)
        dropped = true
      }
    }
  return tailOf(kept, maxBytes, dropped)
}

/** The last `maxBytes` of `bytes` as text, from the first whole line when the start was dropped. */
function tailOf(bytes: Buffer, maxBytes: number, dropped = false): LogTail {
  const cut = dropped || bytes.length > maxBytes
  let text = bytes.subarray(Math.max(0, bytes.length - maxBytes)).toString('utf8')
  if (cut) {
    const newline = text.indexOf('\n')
    text = newline >= 0 ? text.slice(newline + 1) : ''
  }
  return { text, cut }
}
