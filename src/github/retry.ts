// How long delivery may keep trying when GitHub has a bad minute: one set of timings for the API, the push
// and the artifact upload, a jittered exponential backoff, and a deadline (max-time, during delivery) that no
// retry starts past. The fault-injection tests shrink every wait with a test-only variable.

/** Test-only: multiplies every wait (backoffs, retry-after, rate-limit resets), e.g. 0.01. */
export const TEST_WAIT_SCALE = 'RALPH_ACTION_TEST_WAIT_SCALE'
/** Test-only: one attempt's timeout in ms (API request, artifact upload, a stalled push). */
export const TEST_TIMEOUT_MS = 'RALPH_ACTION_TEST_TIMEOUT_MS'

export interface RetryTiming {
  /** Attempts in all, the first included. */
  attempts: number
  /** The first wait; each next one doubles, up to maxDelayMs. */
  baseDelayMs: number
  maxDelayMs: number
  /** Milliseconds per second a server asks to wait (1000; less in the fault-injection tests). */
  msPerSecond: number
  /** One API request's timeout, to its answer's headers. */
  requestTimeoutMs: number
  /** One artifact upload's timeout. */
  uploadTimeoutMs: number
  /** A push that moves less than a byte a second for this long is cut off (git's http.lowSpeedTime). */
  pushStallSeconds: number
  /** Without a deadline, no retry starts this long after a call's first attempt. */
  boundMs: number
}

/** Where the action's waits end: max-time, once the loop has started. */
export interface RetryBudget {
  /** Epoch ms after which no retry starts; undefined: each call's own bound (RetryTiming.boundMs). */
  deadline?: number
}

function positiveNumber(value: string | undefined): number | undefined {
  const n = value === undefined || value.trim() === '' ? NaN : Number(value)
  return Number.isFinite(n) && n > 0 ? n : undefined
}

/** The production timings, with the test-only variables applied when they are set. */
export function retryTiming(env: NodeJS.ProcessEnv = process.env): RetryTiming {
  const scale = Math.min(1, positiveNumber(env[TEST_WAIT_SCALE]) ?? 1)
  const timeout = positiveNumber(env[TEST_TIMEOUT_MS])
  return {
    attempts: 4,
    baseDelayMs: 1000 * scale,
    maxDelayMs: 15_000 * scale,
    msPerSecond: 1000 * scale,
    requestTimeoutMs: timeout ?? 20_000,
    // @actions/artifact retries a 5xx itself, after 3 s and more: an upload gets several request timeouts.
    uploadTimeoutMs: timeout !== undefined ? timeout * 4 : 5 * 60_000,
    pushStallSeconds: timeout !== undefined ? Math.max(1, Math.ceil(timeout / 1000)) : 60,
    boundMs: 2 * 60_000
  }
}

/**
 * The wait after failed attempt `attempt` (1 = the first): exponential, half of it random, so the jobs of a
 * matrix that failed together do not retry together.
 */
export function backoffMs(timing: RetryTiming, attempt: number, random: () => number = Math.random): number {
  const exponential = Math.min(timing.maxDelayMs, timing.baseDelayMs * 2 ** (attempt - 1))
  return Math.round(exponential * (0.5 + random() / 2))
}

/**
 * Whether attempt `attempt + 1` may start after waiting `waitMs`: attempts are left and it starts before the
 * deadline. A server's wait (retry-after, a rate limit's reset) is honoured however long, within the deadline.
 */
export function mayRetry(
  timing: RetryTiming,
  retry: { attempt: number; waitMs: number; deadline: number },
  now = Date.now()
): boolean {
  return retry.attempt < timing.attempts && now + retry.waitMs <= retry.deadline
}

/** The wait a `retry-after` header asks for (seconds, or an HTTP date), in ms; undefined without one. */
export function retryAfterMs(
  timing: RetryTiming,
  value: string | undefined,
  now = Date.now()
): number | undefined {
  if (value === undefined || value.trim() === '') return undefined
  const seconds = /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : (Date.parse(value) - now) / 1000
  return Number.isFinite(seconds) ? Math.max(0, Math.round(seconds * timing.msPerSecond)) : undefined
}

/**
 * The tries of a git command that reaches the remote (a fetch, an ls-remote): the API's attempts and backoff,
 * none starting past the budget's deadline.
 */
export function remoteGitRetry(
  timing: RetryTiming,
  budget: RetryBudget = {}
): { attempts: number; waitMs: (attempt: number) => number; deadline?: number } {
  return {
    attempts: timing.attempts,
    waitMs: attempt => backoffMs(timing, attempt),
    ...(budget.deadline !== undefined ? { deadline: budget.deadline } : {})
  }
}

export const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** "1.2 s" or "350 ms", for the log. */
export function formatWait(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`
}
