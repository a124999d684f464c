// A scripted Anthropic Messages API on loopback, for driving the real Claude Code CLI offline.
//
// Claude Code 2.1.332 calls only `POST /v1/messages?beta=true` (stream: true) when
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1; after a truncated stream it also retries without streaming
// (stream: false), so both shapes are answered. Anything else is recorded and answered like the real API would
// (count_tokens, models) or with a 404 error in the API's shape.
import { createHash } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import {
  chunks,
  header,
  isClosed,
  sendJson,
  sse,
  startServer,
  startSse,
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
  type ModelRequest,
  type Script,
  type ToolResult,
  type Turn
} from './script.js'

export interface AnthropicServerOptions extends ServerOptions {
  script: Script
}

interface ContentBlock {
  type: string
  text?: string
  content?: unknown
  is_error?: boolean
  name?: string
}

interface Message {
  role: string
  content: string | ContentBlock[]
}

export async function startAnthropicServer(options: AnthropicServerOptions): Promise<ScriptedServer> {
  const attempts = new AttemptCounter()
  let messageCount = 0
  return startServer(options, async (recorded, _raw, response, problems) => {
    const path = recorded.url.split('?')[0]
    if (recorded.method === 'POST' && path === '/v1/messages') {
      const request = describe(recorded, attempts)
      const picked = pickTurn(options.script, request)
      const problem =
        picked.problem ??
        checkTurn(picked.turn, request) ??
        (picked.turn.kind === 'tool' && typeof picked.turn.input === 'string'
          ? `request ${request.seq}: a freeform tool input (${picked.turn.name}) has no Messages API form`
          : undefined)
      if (problem) problems.push(problem)
      recorded.answer = answerName(picked.turn)
      messageCount += 1
      await answer(response, request, picked.turn, `msg_scripted_${String(messageCount).padStart(4, '0')}`)
      return
    }
    if (recorded.method === 'POST' && path === '/v1/messages/count_tokens') {
      recorded.answer = 'count_tokens'
      sendJson(response, 200, { input_tokens: Math.ceil(JSON.stringify(recorded.body ?? '').length / 4) })
      return
    }
    if (recorded.method === 'GET' && path === '/v1/models') {
      recorded.answer = 'models'
      const model = {
        type: 'model',
        id: 'claude-sonnet-4-5',
        display_name: 'Claude Sonnet 4.5',
        created_at: '2025-09-29T00:00:00Z'
      }
      sendJson(response, 200, { data: [model], has_more: false, first_id: model.id, last_id: model.id })
      return
    }
    if (recorded.method === 'HEAD' || (recorded.method === 'GET' && path === '/')) {
      recorded.answer = '200'
      sendJson(response, 200, {})
      return
    }
    recorded.answer = '404'
    sendJson(response, 404, {
      type: 'error',
      error: {
        type: 'not_found_error',
        message: `scripted model server: no route for ${recorded.method} ${path}`
      }
    })
  })
}

function describe(recorded: RecordedRequest, attempts: AttemptCounter): ModelRequest {
  const body = (recorded.body ?? {}) as Record<string, unknown>
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Message[]
  const toolResults: ToolResult[] = []
  for (const message of messages) {
    if (message.role !== 'user' || typeof message.content === 'string') continue
    for (const block of message.content) {
      if (block.type === 'tool_result')
        toolResults.push({ output: textOf(block.content), isError: !!block.is_error })
    }
  }
  const firstUser = messages.find(message => message.role === 'user')
  const userTexts = firstUser ? texts(firstUser.content) : []
  const prompt = userTexts
    .map(value => value.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, ''))
    .filter(value => value.trim() !== '')
    .join('\n')
    .trim()
  const systemTexts =
    typeof body.system === 'string' ? [body.system] : texts((body.system ?? []) as ContentBlock[])
  const cwd = [...userTexts, ...systemTexts]
    .join('\n')
    .match(/Primary working directory: (.+)/)?.[1]
    ?.trim()
  const conversationId =
    header(recorded, 'x-claude-code-session-id') ??
    createHash('sha256').update(prompt).digest('hex').slice(0, 16)
  const turn = toolResults.length
  return {
    seq: recorded.seq,
    api: 'anthropic-messages',
    method: recorded.method,
    path: recorded.url,
    headers: recorded.headers,
    body,
    model: String(body.model ?? ''),
    stream: body.stream === true,
    conversationId,
    turn,
    attempt: attempts.next(conversationId, turn),
    prompt,
    cwd,
    toolNames: ((body.tools ?? []) as Array<{ name?: string }>).map(tool => String(tool.name)),
    toolResults
  }
}

function texts(content: string | ContentBlock[]): string[] {
  if (typeof content === 'string') return [content]
  return content
    .filter(block => block.type === 'text' && typeof block.text === 'string')
    .map(block => block.text!)
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return texts(content as ContentBlock[]).join('\n')
  return ''
}

function answerName(turn: Turn): string {
  switch (turn.kind) {
    case 'tool':
      return `tool ${turn.name}`
    case 'http-error':
      return `http-error ${turn.status}`
    default:
      return turn.kind
  }
}

function wireUsage(turn: Turn): Record<string, number> {
  const usage = usageOf(turn)
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
    output_tokens: usage.output
  }
}

/** The content blocks a turn produces, in the final (non-streamed) shape. */
function contentOf(turn: Turn, id: string): Array<Record<string, unknown>> {
  if (turn.kind === 'text') return [{ type: 'text', text: turn.text }]
  if (turn.kind !== 'tool') return []
  const blocks: Array<Record<string, unknown>> = []
  if (turn.text) blocks.push({ type: 'text', text: turn.text })
  blocks.push({ type: 'tool_use', id: `toolu_${id.slice(4)}`, name: turn.name, input: turn.input })
  return blocks
}

async function answer(
  response: ServerResponse,
  request: ModelRequest,
  turn: Turn,
  id: string
): Promise<void> {
  if (!(await waitUnlessClosed(response, turn.delayMs ?? 0))) return
  const requestId = `req_scripted_${request.seq}`
  if (turn.kind === 'http-error') {
    const headers: Record<string, string> = { 'request-id': requestId }
    if (turn.retry !== undefined) headers['x-should-retry'] = String(turn.retry)
    const error = { type: turn.errorType, message: turn.message, ...turn.errorFields }
    sendJson(
      response,
      turn.status,
      { type: 'error', error, request_id: requestId },
      { ...headers, ...turn.headers }
    )
    return
  }
  if (!request.stream) return answerWhole(response, request, turn, id, requestId)

  startSse(response, { 'request-id': requestId, ...turn.headers })
  const usage = wireUsage(turn)
  sse(response, 'message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: request.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 }
    }
  })
  sse(response, 'ping', {})

  if (turn.kind === 'abrupt-end') {
    sse(response, 'content_block_start', { index: 0, content_block: { type: 'text', text: '' } })
    sse(response, 'content_block_delta', { index: 0, delta: { type: 'text_delta', text: turn.partialText } })
    if (!(await waitUnlessClosed(response, turn.stallMs ?? 0))) return
    if (turn.how === 'reset') response.destroy()
    else response.end()
    return
  }
  if (turn.kind === 'stream-error') {
    if (!(await waitUnlessClosed(response, turn.stallMs ?? 0))) return
    sse(response, 'error', { error: { type: turn.errorType, message: turn.message } })
    response.end()
    return
  }

  let stalled = false
  const stall = async (): Promise<boolean> => {
    if (stalled) return !isClosed(response)
    stalled = true
    return waitUnlessClosed(response, turn.stallMs ?? 0)
  }
  const blocks = contentOf(turn, id)
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'text') {
      sse(response, 'content_block_start', { index, content_block: { type: 'text', text: '' } })
      for (const part of chunks(String(block.text))) {
        sse(response, 'content_block_delta', { index, delta: { type: 'text_delta', text: part } })
        if (!(await stall())) return
      }
    } else {
      sse(response, 'content_block_start', { index, content_block: { ...block, input: {} } })
      for (const part of chunks(JSON.stringify(block.input), 40)) {
        sse(response, 'content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: part }
        })
        if (!(await stall())) return
      }
    }
    sse(response, 'content_block_stop', { index })
  }
  sse(response, 'message_delta', {
    delta: { stop_reason: turn.kind === 'tool' ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage.output_tokens }
  })
  sse(response, 'message_stop', {})
  response.end()
}

/** The non-streaming shape (claude's fallback after a broken stream). */
async function answerWhole(
  response: ServerResponse,
  request: ModelRequest,
  turn: Turn,
  id: string,
  requestId: string
): Promise<void> {
  if (turn.kind === 'stream-error') {
    const body = {
      type: 'error',
      error: { type: turn.errorType, message: turn.message },
      request_id: requestId
    }
    sendJson(response, 500, body, { 'request-id': requestId, ...turn.headers })
    return
  }
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: turn.kind === 'abrupt-end' ? [{ type: 'text', text: turn.partialText }] : contentOf(turn, id),
    stop_reason: turn.kind === 'tool' ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: wireUsage(turn)
  }
  const bytes = Buffer.from(JSON.stringify(message))
  if (turn.kind !== 'abrupt-end') {
    response.writeHead(200, { 'content-type': 'application/json', 'request-id': requestId, ...turn.headers })
    response.end(bytes)
    return
  }
  // Promise the whole body, send half of it, then stop.
  response.writeHead(200, {
    'content-type': 'application/json',
    'request-id': requestId,
    'content-length': `${bytes.length}`,
    ...turn.headers
  })
  response.write(bytes.subarray(0, Math.floor(bytes.length / 2)))
  if (!(await waitUnlessClosed(response, turn.stallMs ?? 0))) return
  response.destroy()
}
