// GitHub's bad minutes, on schedule: the GitHub stand-in, the git servers and the artifact service each take a
// FaultSchedule and consult it on every request, by route (an operationId, a git service, a Twirp method).
// The Nth call of a route can answer 502, 503 (retry-after), 429 (retry-after), a secondary rate limit (403),
// a primary rate limit (403, x-ratelimit-reset), reset the connection, close it with no answer (curl's "Empty
// reply from server"), stall, or do its work and then drop the answer. Each server renders the status faults in its own protocol; the socket faults are shared here.
import type { IncomingMessage, ServerResponse } from 'node:http'

export const FAULT_KINDS = [
  '502',
  '503',
  '429',
  'secondary-rate-limit',
  'rate-limit',
  'reset',
  'empty-reply',
  'stall',
  'drop-response'
] as const

export type FaultKind = (typeof FAULT_KINDS)[number]

/** How long a stalled request goes unanswered (unless the client gives up first). */
export const STALL_MS = 30_000

/** Seconds a 503, a 429 and a secondary rate limit ask the client to wait (GitHub's usual 60 for the latter). */
export const RETRY_AFTER_SECONDS: Partial<Record<FaultKind, number>> = {
  '503': 1,
  '429': 2,
  'secondary-rate-limit': 60
}
/** A primary rate limit resets this many seconds after it is hit. */
export const RATE_LIMIT_RESET_SECONDS = 20

export interface InjectedFault {
  route: string
  /** Which call of the route (1 = the first since the schedule was made or cleared). */
  call: number
  kind: FaultKind
}

/** Per route, the calls that fail and how. Counting starts at 1 for each route. */
export class FaultSchedule {
  private readonly planned = new Map<string, Map<number, FaultKind>>()
  /** Calls seen per route. */
  readonly calls = new Map<string, number>()
  /** The faults that were applied, in order. */
  readonly injected: InjectedFault[] = []

  /** The `call`th call of `route` fails as `kind`. */
  add(route: string, call: number, kind: FaultKind): this {
    const calls = this.planned.get(route) ?? new Map<number, FaultKind>()
    calls.set(call, kind)
    this.planned.set(route, calls)
    return this
  }

  /** Counts a call of `route` and answers its fault, if one is planned. */
  take(route: string): FaultKind | undefined {
    const call = (this.calls.get(route) ?? 0) + 1
    this.calls.set(route, call)
    const kind = this.planned.get(route)?.get(call)
    if (kind) this.injected.push({ route, call, kind })
    return kind
  }

  /** Planned faults not reached (their route was called fewer times). */
  unused(): InjectedFault[] {
    const out: InjectedFault[] = []
    for (const [route, calls] of this.planned)
      for (const [call, kind] of calls)
        if ((this.calls.get(route) ?? 0) < call) out.push({ route, call, kind })
    return out
  }

  /** Forgets the plan and the counts. */
  clear(): void {
    this.planned.clear()
    this.calls.clear()
    this.injected.length = 0
  }
}

/** Status faults: what the server answers instead of doing the work. */
export function faultStatus(
  kind: FaultKind
): { status: number; headers: Record<string, string> } | undefined {
  const retryAfter = RETRY_AFTER_SECONDS[kind]
  const headers: Record<string, string> =
    retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {}
  switch (kind) {
    case '502':
      return { status: 502, headers }
    case '503':
      return { status: 503, headers }
    case '429':
      return { status: 429, headers }
    case 'secondary-rate-limit':
      return { status: 403, headers }
    case 'rate-limit':
      return {
        status: 403,
        headers: {
          'x-ratelimit-limit': '5000',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-used': '5000',
          'x-ratelimit-resource': 'core',
          'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + RATE_LIMIT_RESET_SECONDS)
        }
      }
    default:
      return undefined
  }
}

/** GitHub's words for each status fault (the throttling client recognises a secondary limit by them). */
export const FAULT_MESSAGES: Partial<Record<FaultKind, string>> = {
  '502': 'Server Error',
  '503': 'Service Unavailable',
  '429': 'Too Many Requests',
  'secondary-rate-limit':
    'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID STANDIN.',
  'rate-limit': 'API rate limit exceeded for installation ID 1.'
}

/** Closes the connection at once, answering nothing: the client sees a reset. */
export function resetConnection(req: IncomingMessage, res: ServerResponse): void {
  req.socket.resetAndDestroy()
  res.destroy()
}

/** Closes the connection cleanly (a FIN, not a reset) before any answer: curl's "Empty reply from server". */
export function emptyReply(req: IncomingMessage, res: ServerResponse): void {
  req.socket.end()
  res.destroy()
}

/**
 * Holds the request unanswered for STALL_MS, then calls `then` (to answer it) if the client is still there.
 * A client that gave up first is gone, and its request is never carried out (a gateway that timed out).
 */
export function stall(req: IncomingMessage, res: ServerResponse, then: () => void): void {
  const timer = setTimeout(() => {
    if (!res.destroyed && !req.socket.destroyed) then()
  }, STALL_MS)
  timer.unref()
  res.once('close', () => clearTimeout(timer))
}

/** What a server does for its faults: answer a status in its protocol, or do the work (dropping the answer). */
export interface FaultHandling {
  answer(status: number, headers: Record<string, string>, message: string): void
  /** Does the work; with `dropAnswer`, resets the connection instead of answering. */
  proceed(dropAnswer: boolean): void
}

/** Applies `kind` to one request. */
export function applyFault(
  kind: FaultKind,
  req: IncomingMessage,
  res: ServerResponse,
  how: FaultHandling
): void {
  const status = faultStatus(kind)
  if (status) return how.answer(status.status, status.headers, FAULT_MESSAGES[kind] ?? 'Injected fault')
  if (kind === 'reset') return resetConnection(req, res)
  if (kind === 'empty-reply') return emptyReply(req, res)
  if (kind === 'stall') return stall(req, res, () => how.proceed(false))
  how.proceed(true)
}

/** The route of a smart-HTTP git request, for a FaultSchedule. */
export function gitRoute(method: string, url: URL): string {
  const service = url.searchParams.get('service') ?? url.pathname.split('/').pop() ?? ''
  const name = service.replace(/^git-/, '')
  return method === 'GET' ? `${name}-refs` : name
}

/** A reproducible random source (mulberry32): the randomised run's seeds. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
