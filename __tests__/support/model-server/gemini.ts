// A scripted Gemini API (generativelanguage v1beta) on loopback, for driving the real Gemini CLI offline.
//
// Gemini CLI 0.61.0, pointed here by GOOGLE_GEMINI_BASE_URL (with `security.auth.selectedType: "gemini-api-key"`
// in its settings), calls `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` for each turn. A turn is
// a series of `data: <GenerateContentResponse>` events; the last has `finishReason` and `usageMetadata`. Its
// shell tool is `run_shell_command` {command, description}. `:generateContent` (not streamed) and
// `:countTokens` are answered too; anything else gets a 404 in the API's error shape.
import type { ServerResponse } from 'node:http'
import {
  startModelServer,
  type Answer,
  type ModelApi,
  type ModelServerOptions,
  type RequestFacts
} from './api.js'
import { chunks, isClosed, sendJson, startSse, type RecordedRequest, type ScriptedServer } from './http.js'
import { usageOf, type HttpErrorTurn, type StreamErrorTurn, type ToolResult } from './script.js'

export type GeminiServerOptions = ModelServerOptions

interface Part {
  text?: string
  functionCall?: { name?: string; args?: unknown }
  functionResponse?: { name?: string; response?: Record<string, unknown> }
}

interface Content {
  role?: string
  parts?: Part[]
}

interface Tool {
  functionDeclarations?: Array<{ name?: string }>
}

const MODEL_CALL = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent)$/

/** Google's status names for the HTTP statuses a test sends. */
const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE'
}

const googleError = (code: number, message: string, status = STATUS[code] ?? 'UNKNOWN') => ({
  error: { code, message, status }
})

const geminiApi: ModelApi = {
  isModelCall: (method, path) => method === 'POST' && MODEL_CALL.test(path),
  describe,
  cannotSay: (turn, request) =>
    turn.kind === 'tool' && typeof turn.input === 'string'
      ? `request ${request.seq}: a freeform tool input (${turn.name}) has no Gemini API form`
      : undefined,
  errorBody: (turn: HttpErrorTurn) => ({
    body: googleError(turn.status, turn.message, turn.errorType),
    requestIdHeader: 'x-request-id'
  }),
  other(recorded, response, path) {
    if (recorded.method !== 'POST' || !/^\/v1beta\/models\/[^/:]+:countTokens$/.test(path)) return undefined
    sendJson(response, 200, { totalTokens: Math.ceil(JSON.stringify(recorded.body ?? '').length / 4) })
    return 'countTokens'
  },
  notFound: (method, path) =>
    googleError(404, `scripted model server: no route for ${method} ${path}`, 'NOT_FOUND'),
  answer
}

export function startGeminiServer(options: GeminiServerOptions): Promise<ScriptedServer> {
  return startModelServer(geminiApi, options)
}

// Blocks the CLI puts before the user's words in the first user turn.
const SESSION_CONTEXT = /^\s*(This is the Gemini CLI\.|<session_context>)/

function describe(recorded: RecordedRequest): RequestFacts {
  const body = (recorded.body ?? {}) as Record<string, unknown>
  const [, model, method] = MODEL_CALL.exec(recorded.url.split('?')[0]) ?? []
  const contents = (Array.isArray(body.contents) ? body.contents : []) as Content[]
  const parts = contents.flatMap(content => content.parts ?? [])
  const toolResults: ToolResult[] = parts
    .filter(part => part.functionResponse)
    .map(part => {
      const response = part.functionResponse?.response ?? {}
      const output = typeof response.output === 'string' ? response.output : JSON.stringify(response)
      return { output, isError: 'error' in response }
    })
  const userTexts = contents
    .filter(content => content.role === 'user')
    .flatMap(content => content.parts ?? [])
    .map(part => part.text)
    .filter((text): text is string => typeof text === 'string')
  const prompt = userTexts
    .filter(text => !SESSION_CONTEXT.test(text))
    .join('\n')
    .trim()
  const system = ((body.systemInstruction as Content | undefined)?.parts ?? []).map(part => part.text ?? '')
  // "- **Workspace Directories:**" then "  - /the/dir" in the session context.
  const cwd = [...userTexts, ...system].join('\n').match(/Workspace Directories:\*\*\s*\n\s*- (\/\S+)/)?.[1]
  return {
    api: 'gemini',
    model: model ?? '',
    stream: method === 'streamGenerateContent',
    prompt,
    cwd,
    toolNames: ((body.tools ?? []) as Tool[]).flatMap(tool =>
      (tool.functionDeclarations ?? []).map(declaration => String(declaration.name))
    ),
    toolResults
  }
}

function usageMetadata(turn: Answer['turn']): Record<string, number> {
  const usage = usageOf(turn)
  // promptTokenCount counts the cached tokens too; thoughts are billed as output but counted apart.
  const prompt = usage.input + usage.cacheRead
  return {
    promptTokenCount: prompt,
    cachedContentTokenCount: usage.cacheRead,
    candidatesTokenCount: usage.output - usage.reasoning,
    thoughtsTokenCount: usage.reasoning,
    totalTokenCount: prompt + usage.output
  }
}

async function answer({
  response,
  request,
  turn,
  n,
  requestId,
  stall,
  breakOff,
  failInBand
}: Answer): Promise<void> {
  const responseId = `scripted-${String(n).padStart(4, '0')}`
  const chunk = (parts: Part[], end?: { finishReason: string; usage: boolean }) => ({
    candidates: [
      {
        content: { role: 'model', parts },
        ...(end ? { finishReason: end.finishReason } : {}),
        index: 0
      }
    ],
    ...(end?.usage ? { usageMetadata: usageMetadata(turn) } : {}),
    modelVersion: request.model,
    responseId
  })
  const parts: Part[] = []
  if (turn.kind === 'text' || (turn.kind === 'tool' && turn.text))
    parts.push(turn.text !== undefined ? { text: turn.text } : {})
  if (turn.kind === 'tool')
    parts.push({ functionCall: { name: turn.name, args: turn.input as Record<string, unknown> } })

  if (!request.stream) {
    if (turn.kind === 'stream-error') return sendStreamError(response, turn, requestId)
    const whole = turn.kind === 'abrupt-end' ? [{ text: turn.partialText }] : parts
    sendJson(response, 200, chunk(whole, { finishReason: 'STOP', usage: true }), {
      'x-request-id': requestId
    })
    return
  }
  startSse(response, { 'x-request-id': requestId, ...turn.headers })
  const send = (data: unknown): void => {
    if (!isClosed(response)) response.write(`data: ${JSON.stringify(data)}\r\n\r\n`)
  }
  if (turn.kind === 'abrupt-end') {
    send(chunk([{ text: turn.partialText }]))
    return breakOff()
  }
  if (turn.kind === 'stream-error') {
    send(chunk([{ text: '' }]))
    return failInBand(() => send(googleError(500, turn.message, turn.errorType)))
  }
  const [first, ...rest] = parts
  if (first?.text !== undefined) {
    for (const piece of chunks(first.text)) {
      send(chunk([{ text: piece }]))
      if (!(await stall())) return
    }
  } else if (first) rest.unshift(first)
  send(chunk(rest.length > 0 ? rest : [{ text: '' }], { finishReason: 'STOP', usage: true }))
  response.end()
}

function sendStreamError(response: ServerResponse, turn: StreamErrorTurn, requestId: string): void {
  sendJson(response, 500, googleError(500, turn.message, turn.errorType), { 'x-request-id': requestId })
}
