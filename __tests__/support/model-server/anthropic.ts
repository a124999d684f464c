// A scripted Anthropic Messages API on loopback, for driving the real Claude Code CLI offline.
//
// Claude Code 2.1.332 calls only `POST /v1/messages?beta=true` (stream: true) when
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1; after a truncated stream it also retries without streaming
// (stream: false), so both shapes are answered. Anything else is recorded and answered like the real API would
// (count_tokens, models) or with a 404 error in the API's shape.
import type { ServerResponse } from 'node:http'
import {
  startModelServer,
  type Answer,
  type ModelApi,
  type ModelServerOptions,
  type RequestFacts,
  type StreamedTurn
} from './api.js'
import { chunks, header, sendJson, sse, startSse, type RecordedRequest, type ScriptedServer } from './http.js'
import { usageOf, type ModelRequest, type ToolResult, type Turn, type Usage } from './script.js'

export type AnthropicServerOptions = ModelServerOptions

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

const messagesApi: ModelApi = {
  isModelCall: (method, path) => method === 'POST' && path === '/v1/messages',
  describe,
  cannotSay: (turn, request) =>
    turn.kind === 'tool' && typeof turn.input === 'string'
      ? `request ${request.seq}: a freeform tool input (${turn.name}) has no Messages API form`
      : undefined,
  errorBody: (turn, requestId) => ({
    body: {
      type: 'error',
      error: { type: turn.errorType, message: turn.message, ...turn.errorFields },
      request_id: requestId
    },
    requestIdHeader: 'request-id'
  }),
  other(recorded, response, path) {
    if (recorded.method === 'POST' && path === '/v1/messages/count_tokens') {
      sendJson(response, 200, { input_tokens: Math.ceil(JSON.stringify(recorded.body ?? '').length / 4) })
      return 'count_tokens'
    }
    if (recorded.method === 'GET' && path === '/v1/models') {
      const model = {
        type: 'model',
        id: 'claude-sonnet-4-5',
        display_name: 'Claude Sonnet 4.5',
        created_at: '2025-09-29T00:00:00Z'
      }
      sendJson(response, 200, { data: [model], has_more: false, first_id: model.id, last_id: model.id })
      return 'models'
    }
    if (recorded.method === 'HEAD' || (recorded.method === 'GET' && path === '/')) {
      sendJson(response, 200, {})
      return '200'
    }
    return undefined
  },
  notFound: (method, path) => ({
    type: 'error',
    error: { type: 'not_found_error', message: `scripted model server: no route for ${method} ${path}` }
  }),
  answer
}

export function startAnthropicServer(options: AnthropicServerOptions): Promise<ScriptedServer> {
  return startModelServer(messagesApi, options)
}

function describe(recorded: RecordedRequest): RequestFacts {
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
  return {
    api: 'anthropic-messages',
    model: String(body.model ?? ''),
    stream: body.stream === true,
    prompt,
    cwd,
    toolNames: ((body.tools ?? []) as Array<{ name?: string }>).map(tool => String(tool.name)),
    toolResults,
    sessionId: header(recorded, 'x-claude-code-session-id')
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

/** The usage object as the Messages API writes it: the cache writes in total and by time to live. */
function wireUsage(usage: Required<Usage>): Record<string, unknown> {
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite + usage.cacheWrite1h,
    cache_creation: {
      ephemeral_5m_input_tokens: usage.cacheWrite,
      ephemeral_1h_input_tokens: usage.cacheWrite1h
    },
    cache_read_input_tokens: usage.cacheRead,
    output_tokens: usage.output
  }
}

/** Tokens of text as the stand-in counts them: 4 bytes a token. */
const tokensOf = (bytes: number): number => Math.ceil(bytes / 4)

/**
 * The tokens the vendor bills for one page of a PDF: each page is read as an image and its text, and the image
 * of a page alone is about 1,600 tokens (platform.claude.com, PDF support and vision; a blank page too).
 */
export const PDF_PAGE_TOKENS = 1600

/** The pages of a PDF given as base64 (its page objects, counted as the vendor renders them). */
const pdfPages = (data: string): number =>
  (
    Buffer.from(data, 'base64')
      .toString('latin1')
      .match(/\/Type\s*\/Page(?!s)/g) ?? []
  ).length

/**
 * What the vendor bills for `request`'s input. The prompt is read in the order the cache reads it (tools,
 * system, messages), each part with its tokens (its bytes; a document or image by URL: the bytes fetched from
 * it; a PDF given inline: its pages) and its breakpoint's TTL. The prefix up to the last 1-hour breakpoint is
 * written for an hour, the rest up to the last breakpoint for five minutes, and the rest is input; every write
 * is fresh (no reads): the dearest bill.
 */
async function vendorUsage(request: ModelRequest, turn: Turn): Promise<Required<Usage>> {
  const body = request.body
  const parts: Array<{ tokens: number; ttl: string | undefined }> = []
  const add = async (part: unknown): Promise<void> => {
    const block = (part ?? {}) as { cache_control?: { ttl?: string } }
    let bytes = Buffer.byteLength(JSON.stringify(part))
    for (const url of urlSources(part)) bytes += (await (await fetch(url)).arrayBuffer()).byteLength
    const pages = pdfSources(part).reduce((sum, data) => sum + pdfPages(data), 0)
    parts.push({
      tokens: tokensOf(bytes) + pages * PDF_PAGE_TOKENS,
      ttl: block.cache_control ? (block.cache_control.ttl ?? '5m') : undefined
    })
  }
  const blocks = (content: unknown): unknown[] => (Array.isArray(content) ? content : [content])
  for (const tool of (body.tools ?? []) as unknown[]) await add(tool)
  if (body.system !== undefined) for (const block of blocks(body.system)) await add(block)
  for (const message of (body.messages ?? []) as Message[])
    for (const block of blocks(message.content)) await add(block)
  const upTo = (last: number): number => parts.slice(0, last + 1).reduce((sum, p) => sum + p.tokens, 0)
  const lastOf = (match: (ttl: string | undefined) => boolean): number =>
    parts.reduce((last, part, at) => (match(part.ttl) ? at : last), -1)
  const hour = upTo(lastOf(ttl => ttl === '1h'))
  const cached = upTo(lastOf(ttl => ttl !== undefined))
  return {
    ...usageOf(turn),
    input: upTo(parts.length - 1) - cached,
    cacheRead: 0,
    cacheWrite: cached - hour,
    cacheWrite1h: hour
  }
}

/** The URLs a block's sources (its own, and its content's) name. */
function urlSources(part: unknown): string[] {
  const block = (part ?? {}) as {
    source?: { type?: string; url?: string; content?: unknown }
    content?: unknown
  }
  const own = block.source?.type === 'url' && block.source.url ? [block.source.url] : []
  const inner = [block.content, block.source?.content].flatMap(content =>
    Array.isArray(content) ? content.flatMap(urlSources) : []
  )
  return [...own, ...inner]
}

/** The base64 data of the PDFs a block carries (itself, or in a tool result's content). */
function pdfSources(part: unknown): string[] {
  const block = (part ?? {}) as {
    source?: { type?: string; media_type?: string; data?: string }
    content?: unknown
  }
  const { source } = block
  const own =
    source?.type === 'base64' && source.media_type === 'application/pdf' && source.data ? [source.data] : []
  return [...own, ...(Array.isArray(block.content) ? block.content.flatMap(pdfSources) : [])]
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

async function answer({
  response,
  request,
  turn,
  n,
  requestId,
  stall,
  breakOff,
  failInBand,
  bill
}: Answer): Promise<void> {
  const id = `msg_scripted_${String(n).padStart(4, '0')}`
  const billed = turn.billAsVendor ? await vendorUsage(request, turn) : usageOf(turn)
  bill(billed)
  const usage = wireUsage(billed)
  if (!request.stream) return answerWhole(response, request, turn, id, requestId, stall, usage)

  startSse(response, { 'request-id': requestId, ...turn.headers })
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
    return breakOff()
  }
  if (turn.kind === 'stream-error')
    return failInBand(() =>
      sse(response, 'error', { error: { type: turn.errorType, message: turn.message } })
    )

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
  turn: StreamedTurn,
  id: string,
  requestId: string,
  stall: () => Promise<boolean>,
  usage: Record<string, unknown>
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
    usage
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
  if (!(await stall())) return
  response.destroy()
}
