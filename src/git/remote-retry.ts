// Every git command that reaches the remote (fetch, ls-remote, push) is tried again, a few times with a
// backoff, when it failed in transit: a reset or closed connection, a 5xx, a 429, GitHub's secondary rate limit,
// a stall. One the server refused (401, 403, 404, a protected branch, a lease) is not, and keeps its message.
// Trying again is safe: a fetch or ls-remote changes nothing, the lease on the action's own branch and
// fast-forward-only on a person's still hold, and a push whose first try landed unanswered finds the branch up
// to date: a success. A refusal that may be such a landing (the branch moved, a lease) is pushed once more to
// tell which.
import { GitError, type GitResult } from './git.js'
import { GitRepo, type ConfigEntries, type ExecOptions } from './repo.js'
import { pushBranch, PUSH_FAILURE, type PushOptions, type PushResult } from './push.js'

/** git's (curl's) words for a request that never got the server's verdict. */
export const TRANSIENT_GIT_ERRORS =
  /The requested URL returned error: (5\d\d|429)|RPC failed; HTTP (5\d\d|429)|Empty reply from server|Connection reset|Recv failure|Send failure|Operation too slow|Operation timed out|Failed to connect|Could not resolve host|Connection refused|remote end hung up unexpectedly|unexpected disconnect|early EOF|transfer closed|was not closed cleanly/i
/** Kept for the callers that test git's output themselves: the same words. */
export const TRANSIENT_PUSH_ERRORS = TRANSIENT_GIT_ERRORS

/** GitHub's secondary rate limit: a 403 that asks to wait, not a refusal (its words come as `remote:` lines). */
const SECONDARY_RATE_LIMIT = /secondary rate limit/i
/** A status the server answered with its verdict (401, 403, 404, …): never tried again. */
const REFUSED_STATUS = /returned error: 4(?!29)\d\d\b|RPC failed; HTTP 4(?!29)\d\d\b/

/** The line of git's output that says it failed in transit, or undefined when the server refused (or it said nothing of the kind). */
export function inTransit(output: string): string | undefined {
  const lines = output.split('\n').map(line => line.trim())
  const limited = lines.find(line => SECONDARY_RATE_LIMIT.test(line))
  if (limited) return limited
  if (REFUSED_STATUS.test(output)) return undefined
  return lines.find(line => TRANSIENT_GIT_ERRORS.test(line))
}

/** git's message in one line (its lines joined), for an error a person reads. */
export function gitSaid(output: string): string {
  return (
    output
      .split('\n')
      .map(line => line.trim())
      .filter(Boolean)
      .join(' ') || 'git gave no reason'
  )
}

export interface RemoteRetry {
  /** Tries in all, the first included. */
  attempts: number
  /** The wait after failed try `attempt` (1 = the first). */
  waitMs: (attempt: number) => number
  /** No retry starts past this (epoch ms). */
  deadline?: number
}
/** The push's name for it. */
export interface PushRetry extends RemoteRetry {
  /**
   * Push once more after a refusal that may be an earlier try landing unanswered (default true). False when
   * the caller tells them apart itself (the ledger finds its commit in the new tip's history).
   */
  lookAfterRefusal?: boolean
}

export interface InTransitOptions<T> {
  /** What is tried, as the log line starts: `The fetch of 'main'`. */
  what: string
  /** The word counting the tries in the log (`push 2 of 3`); default `try`. */
  counted?: string
  retry: RemoteRetry
  /** Why an answer failed in transit (the line to log), or undefined: it is final. A GitError thrown is judged by its stderr. */
  failed?: (value: T) => string | undefined
  log?: (message: string) => void
}

/**
 * `run` (one git command that reaches the remote), tried again while it fails in transit, one log line per
 * retry. Answers its last answer, or throws its last error.
 */
export async function retryInTransit<T>(run: () => Promise<T>, options: InTransitOptions<T>): Promise<T> {
  const { retry } = options
  for (let attempt = 1; ; attempt++) {
    let line: string | undefined
    let thrown: unknown
    let value: T | undefined
    try {
      value = await run()
      line = options.failed?.(value)
    } catch (error) {
      if (!(error instanceof GitError)) throw error
      thrown = error
      line = inTransit(error.result.stderr)
    }
    const wait = line === undefined ? 0 : retry.waitMs(attempt)
    const late = retry.deadline !== undefined && Date.now() + wait > retry.deadline
    if (line === undefined || attempt >= retry.attempts || late) {
      if (thrown !== undefined) throw thrown
      return value as T
    }
    options.log?.(
      `${options.what} did not get through (${line}); trying again in ${Math.round(wait)} ms (${options.counted ?? 'try'} ${attempt + 1} of ${retry.attempts}).`
    )
    await new Promise(resolve => setTimeout(resolve, wait))
  }
}

/** A failed git command's answer ({exitCode, stderr}): the line saying it failed in transit, or undefined. */
export const resultInTransit = (result: { exitCode: number; stderr: string }): string | undefined =>
  result.exitCode === 0 ? undefined : inTransit(result.stderr)

/** The git commands of a GitRepo that reach the remote (a push goes through pushWithRetry). */
const REACHES_REMOTE = new Set(['fetch', 'ls-remote'])

export interface RemoteCalls {
  /** Default: one try. */
  retry?: RemoteRetry
  /** A transfer moving less than a byte a second this long is cut off, to be tried again (default 60). */
  stallSeconds?: number
  log?: (message: string) => void
}

/** A GitRepo whose fetches and ls-remotes are tried again when they fail in transit (a stall cut off). */
export class RemoteRetryingRepo extends GitRepo {
  constructor(
    dir: string,
    private readonly calls: RemoteCalls
  ) {
    super(dir)
  }

  override exec(args: string[], options: ExecOptions = {}): Promise<GitResult> {
    if (!REACHES_REMOTE.has(args[0])) return super.exec(args, options)
    const config: ConfigEntries = [
      ...(options.config ?? []),
      ['http.lowSpeedLimit', '1'],
      ['http.lowSpeedTime', String(this.calls.stallSeconds ?? 60)]
    ]
    return retryInTransit(() => super.exec(args, { ...options, config }), {
      what: `git ${args[0]}`,
      retry: this.calls.retry ?? { attempts: 1, waitMs: () => 0 },
      failed: resultInTransit,
      ...(this.calls.log ? { log: this.calls.log } : {})
    })
  }
}

/**
 * A refusal that may only mean an earlier try landed without its answer: curl sends a POST again by itself
 * when its connection was reset, and that second one finds the branch already moved.
 */
const MAYBE_LANDED = /failed to update ref|cannot lock ref/

export function maybeLanded(result: PushResult): boolean {
  const kind = result.error?.kind
  return (
    !result.pushed &&
    (kind === PUSH_FAILURE.staleLease ||
      kind === PUSH_FAILURE.nonFastForward ||
      (kind === PUSH_FAILURE.unknown && MAYBE_LANDED.test(result.output)))
  )
}

/** Whether a failed push failed in transit, not by a refusal. */
export function failedInTransit(result: PushResult): boolean {
  return pushInTransit(result) !== undefined
}

function pushInTransit(result: PushResult): string | undefined {
  return !result.pushed && result.error?.kind === PUSH_FAILURE.unknown ? inTransit(result.output) : undefined
}

/** pushBranch, tried again while it fails in transit. */
export function pushWithRetry(workTree: string, options: PushOptions, retry: PushRetry): Promise<PushResult> {
  const log = options.log ?? (() => undefined)
  let looked = false
  const push = async (): Promise<PushResult> => {
    const result = await pushBranch(workTree, options)
    if (!maybeLanded(result) || looked || retry.lookAfterRefusal === false) return result
    // Pushed again, the same commit finds the branch up to date if it landed; else the same refusal.
    looked = true
    log('Pushing once more, to tell a refusal from an earlier try that landed unanswered.')
    return pushBranch(workTree, options)
  }
  return retryInTransit(push, { what: 'The push', counted: 'push', retry, failed: pushInTransit, log })
}
