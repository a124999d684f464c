// The one Octokit factory. Every API call of the action goes through it, and retries what GitHub means as
// "try again": 5xx, 429, secondary and primary rate limits (403/429, honouring retry-after and
// x-ratelimit-reset), reset connections and requests with no answer in time. Never a 4xx that means no (401,
// 403 permission, 404, 422): those fail at once, with the message the caller gives them.
//
// Rate limits: @octokit/plugin-throttling (GitHub's own rules, and one write a second). Everything else: our
// hook, not @octokit/plugin-retry, whose waits are 1, 4 and 9 s in step for every job (no jitter), ignore
// retry-after, know no deadline, and would retry a 429 a second time behind the throttling plugin.
import type { getOctokit } from '@actions/github'
import type Bottleneck from 'bottleneck'
import {
  backoffMs,
  formatWait,
  mayRetry,
  retryAfterMs,
  retryTiming,
  sleep,
  type RetryBudget,
  type RetryTiming
} from './retry.js'

export type Octokit = ReturnType<typeof getOctokit>

export interface ClientOptions {
  /** Shared with the action: during delivery, its deadline is max-time. */
  budget?: RetryBudget
  /** Each retry, in a sentence (core.info). */
  log?: (message: string) => void
  /** Default: retryTiming() (production, or the test-only variables). */
  timing?: RetryTiming
  /** Default GITHUB_API_URL. */
  baseUrl?: string
  /**
   * Refuse every request but a read (GET, HEAD) before it is sent, naming why: the agent's job of two-job
   * mode writes nothing to GitHub, and a write attempted there is our bug, not a request to make.
   */
  readOnly?: string
}

/**
 * A request that creates something (a comment, an issue, a pull request) may be carried out by GitHub even
 * when its answer is lost. Before such a POST is made again, `recover` looks for what it made; when found,
 * that is the answer, so a retry never makes a second one. Pass as the request's `request` option.
 */
export function recoverBy<T>(find: () => Promise<T | undefined>): { recover: () => Promise<T | undefined> } {
  return { recover: find }
}

interface RequestErrorLike {
  status?: number
  message?: string
  response?: { headers?: Record<string, string | undefined> }
}

/** A rate limit, which the throttling plugin waits out (and our hook must not retry a second time). */
function isRateLimit(error: RequestErrorLike): boolean {
  const headers = error.response?.headers ?? {}
  return (
    (error.status === 403 || error.status === 429) &&
    (/\bsecondary rate\b/i.test(error.message ?? '') || headers['x-ratelimit-remaining'] === '0')
  )
}

/** The wait before retrying after `error`, or undefined when it is not worth another try. */
function transientWait(error: unknown, timing: RetryTiming, attempt: number): number | undefined {
  const e = error as RequestErrorLike
  if (typeof e?.status !== 'number' || isRateLimit(e)) return undefined
  // 500 is also what a reset connection or a request without an answer becomes.
  if (e.status < 500 && e.status !== 429) return undefined
  return retryAfterMs(timing, e.response?.headers?.['retry-after']) ?? backoffMs(timing, attempt)
}

function describe(error: unknown): string {
  const e = error as RequestErrorLike & { cause?: { code?: string; cause?: { code?: string } } }
  const said = (e?.message ?? String(error))
    .split('\n')[0]
    .replace(/ - https:\/\/\S+$/, '')
    .slice(0, 160)
  // A reset connection is fetch's "fetch failed", with the socket's code underneath.
  const code = e?.cause?.cause?.code ?? e?.cause?.code
  if (code && !said.includes(code)) return `${said}: ${code}`
  return e?.status !== undefined && e.status !== 500 ? `${e.status} ${said}` : said
}

/** `POST /repos/{owner}/{repo}/pulls`, for the log: no host, no query. */
function requestName(request: { method: string; url: string }): string {
  return `${request.method} ${request.url.replace(/^https?:\/\/[^/]+/, '').replace(/\?.*$/, '')}`
}

class NoAnswer extends Error {
  override name = 'NoAnswerError'
}

/** Our hook: a timeout on each attempt, then jittered retries of what is transient, within the budget. */
function transientRetries(timing: RetryTiming, budget: RetryBudget, log: (message: string) => void) {
  return (octokit: { hook: Octokit['hook'] }): void => {
    octokit.hook.wrap('request', async (request, options) => {
      const what = requestName(options)
      const deadline = budget.deadline ?? Date.now() + timing.boundMs
      const recover = options.request?.recover as (() => Promise<unknown>) | undefined
      // `request: { retries: 0 }` (plugin-retry's spelling): one try, for what the next call supersedes.
      const attempts = options.request?.retries === 0 ? 1 : timing.attempts
      const fetch = (options.request?.fetch as typeof globalThis.fetch | undefined) ?? globalThis.fetch
      // Until the answer's headers: a slow body is not a stall.
      const timed: typeof globalThis.fetch = async (url, init) => {
        const controller = new AbortController()
        const timer = setTimeout(
          () => controller.abort(new NoAnswer(`no answer within ${formatWait(timing.requestTimeoutMs)}`)),
          timing.requestTimeoutMs
        )
        try {
          return await fetch(url, { ...init, signal: controller.signal })
        } finally {
          clearTimeout(timer)
        }
      }
      // In place: the token's hook, inside this one, reads the options it was first given.
      options.request = { ...options.request, fetch: timed }
      for (let attempt = 1; ; attempt++) {
        try {
          return await request(options)
        } catch (error) {
          const wait = transientWait(error, timing, attempt)
          if (wait === undefined) throw error
          const retry = attempt < attempts && mayRetry(timing, { attempt, waitMs: wait, deadline })
          if (recover) {
            // It may have been made: look before making it again (after a pause, so it shows up in lists).
            await sleep(Math.min(wait, Math.max(0, deadline - Date.now())))
            // A failed look is no proof that it was not made: no second POST then.
            const found = await recover().catch(() => {
              throw error
            })
            if (found !== undefined) {
              log(`${what} failed (${describe(error)}), but GitHub had carried it out: reusing what it made.`)
              return { status: 201, url: options.url, headers: {}, data: found }
            }
            if (!retry) throw error
            log(
              `${what} failed (${describe(error)}); it was not carried out, so it is made again (attempt ${attempt + 1} of ${timing.attempts}).`
            )
            continue
          }
          if (!retry) throw error
          log(
            `${what} failed (${describe(error)}); retrying in ${formatWait(wait)} (attempt ${attempt + 1} of ${timing.attempts}).`
          )
          await sleep(wait)
        }
      }
    })
  }
}

let paced: { msPerSecond: number; write: Bottleneck.Group; notifications: Bottleneck.Group } | undefined

/**
 * GitHub's guidance against secondary rate limits, as the throttling plugin keeps it: one write a second,
 * one that notifies people (a comment, an issue, a pull request) every three. Shared by every client.
 */
function pacing(
  Limiter: typeof Bottleneck,
  msPerSecond: number
): { write: Bottleneck.Group; notifications: Bottleneck.Group } {
  if (paced?.msPerSecond !== msPerSecond)
    paced = {
      msPerSecond,
      write: new Limiter.Group({ id: 'ralph-action-write', maxConcurrent: 1, minTime: msPerSecond }),
      notifications: new Limiter.Group({
        id: 'ralph-action-notifications',
        maxConcurrent: 1,
        minTime: 3 * msPerSecond
      })
    }
  return paced
}

/** A plugin that refuses every request but a read, before it leaves: `why` says whose rule that is. */
function readsOnly(why: string) {
  return (octokit: { hook: Octokit['hook'] }): void => {
    octokit.hook.before('request', options => {
      const method = (options.method ?? 'GET').toUpperCase()
      if (method !== 'GET' && method !== 'HEAD')
        throw new Error(`${method} ${String(options.url)} was not sent: ${why}`)
    })
  }
}

/**
 * An Octokit for `token` that retries as this module says. @actions/github and the throttling plugin are
 * imported here, on first use (cold start).
 */
export async function githubClient(token: string, options: ClientOptions = {}): Promise<Octokit> {
  const [{ getOctokit }, { throttling }, { default: Bottleneck }] = await Promise.all([
    import('@actions/github'),
    import('@octokit/plugin-throttling'),
    import('bottleneck/light.js')
  ])
  const timing = options.timing ?? retryTiming()
  const budget = options.budget ?? {}
  const log = options.log ?? (() => undefined)
  const rateLimited =
    (kind: string) =>
    (
      retryAfter: number,
      request: { method: string; url: string; request?: unknown },
      _octokit: unknown,
      retryCount: number
    ) => {
      const what = `GitHub's ${kind} on ${requestName(request)}`
      // One try (a tracking comment's progress edit): the next call carries its content; waiting would
      // only hold up the edits behind it.
      if ((request.request as { retries?: number } | undefined)?.retries === 0) {
        log(`${what} asks for ${retryAfter} s; not waiting, as the next call supersedes this one.`)
        return false
      }
      const waitMs = retryAfter * timing.msPerSecond
      const deadline = budget.deadline ?? Date.now() + timing.boundMs
      const wait = retryCount < timing.attempts - 1 && mayRetry(timing, { attempt: 1, waitMs, deadline })
      log(
        wait
          ? `${what}: waiting ${retryAfter} s, as it asks.`
          : `${what} asks for ${retryAfter} s, more than the time left: not waiting.`
      )
      return wait
    }
  return getOctokit(
    token,
    {
      ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
      throttle: {
        onRateLimit: rateLimited('rate limit'),
        onSecondaryRateLimit: rateLimited('secondary rate limit'),
        retryAfterBaseValue: timing.msPerSecond,
        ...pacing(Bottleneck, timing.msPerSecond)
      }
    },
    // The throttling plugin wraps ours: a rate limit passes our hook and is waited out once, there.
    transientRetries(timing, budget, log),
    throttling,
    ...(options.readOnly !== undefined ? [readsOnly(options.readOnly)] : [])
  ) as Octokit
}

/** The same, made on first use: a step that needs no API never loads @actions/github. */
export function lazyClient(token: string, options: ClientOptions = {}): () => Promise<Octokit> {
  let made: Promise<Octokit> | undefined
  return () =>
    (made ??= token
      ? githubClient(token, options)
      : Promise.reject(
          new Error(
            "Input 'github-token' is empty, and this step needs GitHub's API: leave it at its default (${{ github.token }}) or pass a token"
          )
        ))
}
