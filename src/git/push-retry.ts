// A push that failed in transit (a reset connection, a 5xx, a stall) is tried again, a few times with a
// backoff; a push GitHub refused (a protected branch, the workflow permission, a lease, the token) is not, and
// keeps its message. Trying again is safe: the lease on the action's own branch and fast-forward-only on a
// person's still hold, and a push whose first try landed unanswered finds the branch up to date: a success.
// A refusal that may be such a landing (the branch moved, a lease) is pushed once more to tell which.
import { pushBranch, PUSH_FAILURE, type PushOptions, type PushResult } from './push.js'

/** git's words for a push that never got the server's verdict. */
export const TRANSIENT_PUSH_ERRORS =
  /The requested URL returned error: (5\d\d|429)|RPC failed|Empty reply from server|Connection reset|Recv failure|Send failure|Operation too slow|Operation timed out|Failed to connect|Could not resolve host|Connection refused|remote end hung up unexpectedly|unexpected disconnect|early EOF|transfer closed|was not closed cleanly/i

export interface PushRetry {
  /** Pushes in all, the first included. */
  attempts: number
  /** The wait after failed push `attempt` (1 = the first). */
  waitMs: (attempt: number) => number
  /** No retry starts past this (epoch ms). */
  deadline?: number
  /**
   * Push once more after a refusal that may be an earlier try landing unanswered (default true). False when
   * the caller tells them apart itself (the ledger finds its commit in the new tip's history).
   */
  lookAfterRefusal?: boolean
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
  return (
    !result.pushed && result.error?.kind === PUSH_FAILURE.unknown && TRANSIENT_PUSH_ERRORS.test(result.output)
  )
}

/** pushBranch, tried again while it fails in transit. */
export async function pushWithRetry(
  workTree: string,
  options: PushOptions,
  retry: PushRetry
): Promise<PushResult> {
  const log = options.log ?? (() => undefined)
  let looked = false
  for (let attempt = 1; ; attempt++) {
    const result = await pushBranch(workTree, options)
    if (maybeLanded(result) && !looked && retry.lookAfterRefusal !== false) {
      // Pushed again, the same commit finds the branch up to date if it landed; else the same refusal.
      looked = true
      log('Pushing once more, to tell a refusal from an earlier try that landed unanswered.')
      attempt--
      continue
    }
    if (!failedInTransit(result)) return result
    const wait = retry.waitMs(attempt)
    const late = retry.deadline !== undefined && Date.now() + wait > retry.deadline
    if (attempt >= retry.attempts || late) return result
    log(
      `The push did not get through (${result.output
        .split('\n')
        .find(line => TRANSIENT_PUSH_ERRORS.test(line))
        ?.trim()}); trying again in ${Math.round(wait)} ms (push ${attempt + 1} of ${retry.attempts}).`
    )
    await new Promise(resolve => setTimeout(resolve, wait))
  }
}
