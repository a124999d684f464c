// The core every scripted model API shares: route the API's model call to the script, check the chosen
// turn, record how it was answered, wait as the turn says, send HTTP errors in the API's own shape, and
// answer everything else with the API's 404. Each API (anthropic.ts, openai-responses.ts, gemini.ts,
// openai-chat.ts) says only how to read a request and how to write a turn on its wire.
import { createHash } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import {
  isClosed,
  sendJson,
  startServer,
  waitUnlessClosed,
  type RecordedRequest,
  type ScriptedServer,
  type ServerOptions
} from './http.js'
import {
  AttemptCounter,
  checkTurn,
  pickTurn,
  usageOf,
  type HttpErrorTurn,
  type ModelRequest,
  type Script,
  type Turn,
  type Usage
} from './script.js'

export interface ModelServerOptions extends ServerOptions {
  script: Script
}

/** A turn the server streams (an HTTP error is sent by the core). */
export type StreamedTurn = Exclude<Turn, HttpErrorTurn>

/** What the core hands an API to write one answer. */
export interface Answer {
  response: ServerResponse
  request: ModelRequest
  turn: StreamedTurn
  /** 1, 2, 3… over the server's life: for response and message ids. */
  n: number
  /** The request's id for headers and bodies (`req_scripted_<seq>`). */
  requestId: string
  /**
   * Waits the turn's `stallMs` the first time it is called (after the first delta), at once afterwards;
   * false when the client has gone away (stop writing).
   */
  stall(): Promise<boolean>
  /** An abrupt-end turn, after its partial text: waits the stall, then ends the response or resets it. */
  breakOff(): Promise<void>
  /** A stream-error turn: waits the stall, writes the API's in-band error (`write`), ends the response. */
  failInBand(write: () => void): Promise<void>
  /** Says what the answer bills, when not the turn's usage (RecordedRequest.billed). */
  bill(usage: Required<Usage>): void
}

/** Text of OpenAI-style content: a string, or parts with `text`. */
export function textParts(content: unknown): string[] {
  if (typeof content === 'string') return [content]
  if (!Array.isArray(content)) return []
  return content
    .filter(part => typeof (part as { text?: unknown }).text === 'string')
    .map(part => (part as { text: string }).text)
}

/** What an API reads from a model call; the core adds the rest of the ModelRequest. */
export type RequestFacts = Pick<
  ModelRequest,
  'api' | 'model' | 'stream' | 'prompt' | 'cwd' | 'toolNames' | 'toolResults'
> & {
  /** The CLI's session id, when it sends one (else the conversation is known by its prompt). */
  sessionId?: string | undefined
}

export interface ModelApi {
  /** The model call this API answers from the script. */
  isModelCall(method: string, path: string): boolean
  describe(recorded: RecordedRequest): RequestFacts
  /** A request the CLI makes for itself (opencode's title), answered without the script: its name and turn. */
  sideRequest?(request: ModelRequest): { name: string; turn: StreamedTurn } | undefined
  /** Why this API cannot say the turn (a freeform tool input on an API without one), if it cannot. */
  cannotSay?(turn: Turn, request: ModelRequest): string | undefined
  /** An HTTP error in the API's shape: its body and the request-id header's name. */
  errorBody(turn: HttpErrorTurn, requestId: string): { body: unknown; requestIdHeader: string }
  /** Other endpoints a CLI calls (models, count_tokens): answered and named, or undefined. */
  other?(recorded: RecordedRequest, response: ServerResponse, path: string): string | undefined
  /** The API's 404 body for a route it does not have. */
  notFound(method: string, path: string): unknown
  /** Writes the turn: a stream, or a whole response when the request did not ask for one. */
  answer(answer: Answer): Promise<void>
}

/** How a turn was answered, for `RecordedRequest.answer`: `tool Write`, `text`, `http-error 529`… */
export function answerName(turn: Turn): string {
  switch (turn.kind) {
    case 'tool':
      return `tool ${turn.name}`
    case 'http-error':
      return `http-error ${turn.status}`
    default:
      return turn.kind
  }
}

function modelRequest(
  recorded: RecordedRequest,
  facts: RequestFacts,
  attempts: AttemptCounter
): ModelRequest {
  const { sessionId, ...rest } = facts
  const conversationId = sessionId ?? createHash('sha256').update(facts.prompt).digest('hex').slice(0, 16)
  // A turn is the number of tool results so far: retries of a step get the same turn.
  const turn = facts.toolResults.length
  return {
    ...rest,
    seq: recorded.seq,
    method: recorded.method,
    path: recorded.url,
    headers: recorded.headers,
    body: (recorded.body ?? {}) as Record<string, unknown>,
    conversationId,
    turn,
    attempt: attempts.next(conversationId, turn)
  }
}

export async function startModelServer(api: ModelApi, options: ModelServerOptions): Promise<ScriptedServer> {
  const attempts = new AttemptCounter()
  let answered = 0
  return startServer(options, async (recorded, _raw, response, problems) => {
    const path = recorded.url.split('?')[0]
    if (!api.isModelCall(recorded.method, path)) {
      const name = api.other?.(recorded, response, path)
      if (name !== undefined) {
        recorded.answer = name
        return
      }
      recorded.answer = '404'
      sendJson(response, 404, api.notFound(recorded.method, path))
      return
    }
    const request = modelRequest(recorded, api.describe(recorded), attempts)
    const side = api.sideRequest?.(request)
    const { turn, problem } = side
      ? { turn: side.turn, problem: undefined }
      : pickTurn(options.script, request)
    const found = problem ?? checkTurn(turn, request) ?? api.cannotSay?.(turn, request)
    if (found) problems.push(found)
    recorded.answer = side?.name ?? answerName(turn)
    answered += 1
    if (!(await waitUnlessClosed(response, turn.delayMs ?? 0))) return
    const requestId = `req_scripted_${request.seq}`
    if (turn.kind === 'http-error') {
      const { body, requestIdHeader } = api.errorBody(turn, requestId)
      const headers: Record<string, string> = { [requestIdHeader]: requestId }
      if (turn.retry !== undefined) headers['x-should-retry'] = String(turn.retry)
      sendJson(response, turn.status, body, { ...headers, ...turn.headers })
      return
    }
    let stalled = false
    const stall = async (): Promise<boolean> => {
      if (stalled) return !isClosed(response)
      stalled = true
      return waitUnlessClosed(response, turn.stallMs ?? 0)
    }
    const breakOff = async (): Promise<void> => {
      if (!(await stall())) return
      if (turn.kind === 'abrupt-end' && turn.how === 'reset') response.destroy()
      else response.end()
    }
    const failInBand = async (write: () => void): Promise<void> => {
      if (!(await stall())) return
      write()
      response.end()
    }
    recorded.billed = usageOf(turn)
    const bill = (usage: Required<Usage>): void => {
      recorded.billed = usage
    }
    await api.answer({ response, request, turn, n: answered, requestId, stall, breakOff, failInBand, bill })
  })
}
