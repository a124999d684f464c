// Reading token usage from a model API's response as it streams by, for the four wires the agent CLIs speak.
// Each reader is fed the JSON of one server-sent event (or a whole JSON body) and keeps the request's
// cumulative usage; the proxy prices it after every event, so a budget can be crossed mid-stream. Also, per
// wire, which endpoints the proxy forwards at all and what a request may cost at worst, read from its body.
import zlib from 'node:zlib'
import type { UsageReport } from '../agents/types.js'

/** The wire protocol between an agent CLI and its model. */
export type ModelWire = 'anthropic-messages' | 'openai-responses' | 'openai-chat' | 'gemini'

type Json = Record<string, unknown>

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0)
const obj = (value: unknown): Json | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined

/** OpenAI's usage (both its wires, under their own names): cached tokens are counted inside the input. */
function openAiUsage(usage: Json, input: string, output: string, details: string): UsageReport {
  // A UsageReport's input is the uncached part.
  const cached = num(obj(usage[details])?.cached_tokens)
  return { input: num(usage[input]) - cached, output: num(usage[output]), cache_read: cached, cache_write: 0 }
}

/** One request's usage as its response revealed it so far (cumulative). */
export class WireUsage {
  readonly usage: UsageReport = { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  /** The response carried usage (false: nothing to price yet). */
  seen = false
  /** Dollars billed per use beside the tokens (Anthropic's and OpenAI's web searches), so far. */
  perUseUsd = 0
  /** The Responses web search calls seen so far (by item id or output index). */
  private readonly searchCalls = new Set<string>()

  constructor(
    private readonly wire: ModelWire,
    model?: string
  ) {
    if (model) this.usage.model = model
  }

  /** Reads one event (or a whole body); answers true when the usage changed. */
  read(event: unknown): boolean {
    // A whole body may be a JSON array of chunks (Gemini's streamGenerateContent without alt=sse).
    if (Array.isArray(event))
      return event.reduce<boolean>((changed, item) => this.read(item) || changed, false)
    const data = obj(event)
    if (!data) return false
    switch (this.wire) {
      case 'anthropic-messages':
        return this.anthropic(data)
      case 'openai-responses':
        return this.responses(data)
      case 'openai-chat':
        return this.chat(data)
      case 'gemini':
        return this.gemini(data)
    }
  }

  private set(next: Omit<UsageReport, 'model'>, model: unknown): boolean {
    if (typeof model === 'string' && model) this.usage.model = model
    const before = JSON.stringify(this.usage)
    Object.assign(this.usage, next)
    this.seen = true
    return JSON.stringify(this.usage) !== before
  }

  // message_start carries the input (and a first output count); message_delta the output so far.
  // A whole (non-streamed) body is a message with its usage.
  private anthropic(data: Json): boolean {
    const message =
      data.type === 'message_start' ? obj(data.message) : data.type === 'message' ? data : undefined
    const usage = obj(message ? message.usage : data.type === 'message_delta' ? data.usage : undefined)
    if (!usage) return false
    const u = this.usage
    // The web search server tool is billed per search, not in tokens.
    const searches = num(obj(usage.server_tool_use)?.web_search_requests)
    const perUse = Math.max(this.perUseUsd, searches * ANTHROPIC_WEB_SEARCH_USD)
    const searched = perUse !== this.perUseUsd
    this.perUseUsd = perUse
    const changed = this.set(
      {
        input: 'input_tokens' in usage ? num(usage.input_tokens) : u.input,
        output: 'output_tokens' in usage ? num(usage.output_tokens) : u.output,
        cache_read: 'cache_read_input_tokens' in usage ? num(usage.cache_read_input_tokens) : u.cache_read,
        cache_write:
          'cache_creation_input_tokens' in usage ? num(usage.cache_creation_input_tokens) : u.cache_write
      },
      message?.model
    )
    return changed || searched
  }

  // response.completed (and .incomplete / .failed) carry the response with its usage; a whole body is it.
  // A web search call is billed per call: counted as each output item shows, and in the final output.
  private responses(data: Json): boolean {
    const response =
      typeof data.type === 'string' && data.type.startsWith('response.') ? obj(data.response) : data
    const searched = this.countSearches(
      Array.isArray(response?.output) ? response.output : obj(data.item) ? [data.item] : [],
      data.output_index
    )
    const usage = obj(response?.usage)
    if (!response || !usage) return searched
    const changed = this.set(
      openAiUsage(usage, 'input_tokens', 'output_tokens', 'input_tokens_details'),
      response.model
    )
    return changed || searched
  }

  private countSearches(items: unknown[], index: unknown): boolean {
    const before = this.searchCalls.size
    items.forEach((item, at) => {
      const call = obj(item)
      if (call?.type !== 'web_search_call') return
      this.searchCalls.add(typeof call.id === 'string' ? call.id : `#${num(index) || at}`)
    })
    if (this.searchCalls.size === before) return false
    this.perUseUsd = Math.max(this.perUseUsd, this.searchCalls.size * OPENAI_WEB_SEARCH_USD)
    return true
  }

  // The usage chunk (stream_options.include_usage), or a whole body's usage.
  private chat(data: Json): boolean {
    const usage = obj(data.usage)
    if (!usage) return false
    return this.set(
      openAiUsage(usage, 'prompt_tokens', 'completion_tokens', 'prompt_tokens_details'),
      data.model
    )
  }

  // usageMetadata on a chunk: the prompt counts cached content; thoughts are billed as output.
  private gemini(data: Json): boolean {
    const usage = obj(data.usageMetadata)
    if (!usage) return false
    const cached = num(usage.cachedContentTokenCount)
    return this.set(
      {
        input: num(usage.promptTokenCount) - cached,
        output: num(usage.candidatesTokenCount) + num(usage.thoughtsTokenCount),
        cache_read: cached,
        cache_write: 0
      },
      data.modelVersion
    )
  }
}

/**
 * Splits a server-sent event stream into the JSON of its `data:` fields, across chunk boundaries. Bytes are
 * only read here: the proxy forwards them untouched.
 */
export class SseReader {
  private pending = ''
  private data: string[] = []
  private readonly decoder = new TextDecoder()

  constructor(private readonly onEvent: (json: unknown) => void) {}

  push(chunk: Buffer): void {
    this.pending += this.decoder.decode(chunk, { stream: true })
    let newline: number
    while ((newline = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, newline).replace(/\r$/, '')
      this.pending = this.pending.slice(newline + 1)
      this.line(line)
    }
    // A line that never ends (a hostile or broken upstream) must not grow without bound.
    if (this.pending.length > MAX_LINE) this.pending = ''
  }

  end(): void {
    if (this.pending) this.line(this.pending)
    this.pending = ''
    this.line('')
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length === 0) return
      const text = this.data.join('\n')
      this.data = []
      try {
        this.onEvent(JSON.parse(text))
      } catch {
        // not JSON ([DONE], a comment): nothing to meter
      }
      return
    }
    if (line.startsWith('data:')) this.data.push(line.slice(line.startsWith('data: ') ? 6 : 5))
  }
}

/** A usage event is small; a longer line is content, and is not kept whole. */
const MAX_LINE = 4 * 1024 * 1024

/** What the proxy makes of a request before anything goes up, by its method and path alone. */
export type Endpoint =
  /** A model call: pre-authorised at its worst case, then metered from its answer. */
  | { kind: 'model' }
  /** Costs nothing (a count, a list): forwarded, not metered. */
  | { kind: 'free' }
  /** The meter cannot price it: never forwarded. */
  | { kind: 'refused'; why: string }

const MODEL: Endpoint = { kind: 'model' }
const FREE: Endpoint = { kind: 'free' }
const refused = (why: string): Endpoint => ({ kind: 'refused', why })

const BATCH = 'a batch is billed later, out of band, so the meter never sees its cost'
const FILES =
  'a stored file is billed as input by every request that names it, and the pre-authorisation sees only its name'
const CACHED = 'stored content is billed by the hour it is kept, outside any request the meter reads'

/** A model listing (`/v1/models`, `/v1/models/<id>`): free, and some CLIs check it. */
const MODELS_LIST = /^\/v1(?:beta|alpha)?\/models(?:\/[^/:]+)?$/

/**
 * Which endpoints of `wire` the proxy forwards: the model calls its meter prices, and, by name, the few free
 * ones the CLIs call. Everything else is refused, with why: a path is matched exactly (no prefix, no case).
 */
export function endpointOf(wire: ModelWire, method: string, path: string): Endpoint {
  // Counting and listing cost nothing on every vendor's API (claude counts tokens; CLIs list models).
  if (method === 'GET' && MODELS_LIST.test(path)) return FREE
  // A reachability probe of the base URL: no model runs.
  if ((method === 'HEAD' || method === 'GET') && path === '/') return FREE
  if (/\/batches\b|:batch|batchGenerateContent|:asyncBatch/i.test(path)) return refused(BATCH)
  if (/^\/(?:upload\/)?v1[a-z]*\/files\b/i.test(path)) return refused(FILES)
  if (/cachedContents/i.test(path)) return refused(CACHED)
  switch (wire) {
    case 'anthropic-messages':
      if (method === 'POST' && path === '/v1/messages') return MODEL
      if (method === 'POST' && path === '/v1/messages/count_tokens') return FREE
      break
    case 'openai-responses':
      if (method === 'POST' && path === '/v1/responses') return MODEL
      if (method === 'POST' && path === '/v1/responses/input_tokens') return FREE
      if (/^\/v1\/responses\//.test(path))
        return refused(
          'a stored or background response is billed outside the stream the meter reads (only POST /v1/responses is forwarded)'
        )
      break
    case 'openai-chat':
      if (method === 'POST' && path === '/v1/chat/completions') return MODEL
      break
    case 'gemini': {
      const call = /^\/v1(?:beta|alpha)?\/models\/[^/:]+:(\w+)$/.exec(path)?.[1]
      if (method === 'POST' && (call === 'generateContent' || call === 'streamGenerateContent')) return MODEL
      if (method === 'POST' && call === 'countTokens') return FREE
      break
    }
  }
  return refused(`the meter cannot price it: the proxy forwards only ${MODEL_CALLS[wire]} and free calls`)
}

const MODEL_CALLS: Record<ModelWire, string> = {
  'anthropic-messages': 'POST /v1/messages',
  'openai-responses': 'POST /v1/responses',
  'openai-chat': 'POST /v1/chat/completions',
  gemini: 'generateContent and streamGenerateContent'
}

/** A model call the meter could not price though its endpoint is one: its name in the record and why. */
export function bodyRefusal(wire: ModelWire, body: unknown): { name: string; why: string } | undefined {
  // A background response runs on after the request returns, billed where the meter never looks.
  if (wire === 'openai-responses' && obj(body)?.background === true)
    return {
      name: 'background: true',
      why: 'a background response is billed when it finishes, after the answer the meter reads'
    }
  // OpenAI's priority processing costs more than the table's standard rates: the meter would price it low.
  if ((wire === 'openai-responses' || wire === 'openai-chat') && obj(body)?.service_tier === 'priority')
    return {
      name: 'service_tier: priority',
      why: "priority processing is billed above the price table's standard rates"
    }
  const json = obj(body) ?? {}
  if (wire === 'openai-responses') {
    // A small body that names stored input: the whole stored conversation is billed as this request's input.
    for (const field of ['previous_response_id', 'conversation', 'prompt'])
      if (json[field] !== undefined && json[field] !== null && json[field] !== '')
        return {
          name: field,
          why: `${field} bills stored input (${STORED_INPUT[field]}) the body does not hold, so its worst case cannot be read from it; send the whole input instead`
        }
    const fee = toolTypes(json.tools).find(type => PER_USE_TOOLS.includes(type))
    if (fee)
      return {
        name: `tools: ${fee}`,
        why: 'the hosted tool is billed per call or per session beside the tokens, at a price the meter does not know'
      }
  }
  // Anthropic's code execution is billed per container-hour beside the tokens (web search is metered, its
  // requests counted in the usage; web fetch costs tokens only).
  if (wire === 'anthropic-messages') {
    const container = toolTypes(json.tools).find(type => type.startsWith('code_execution'))
    if (container)
      return {
        name: `tools: ${container}`,
        why: 'code execution is billed per container-hour beside the tokens, at a price the meter does not know'
      }
  }
  // Chat completions' search models bill a fee per search.
  if (wire === 'openai-chat' && json.web_search_options !== undefined)
    return {
      name: 'web_search_options',
      why: 'a web search is billed per call beside the tokens, at a price the meter does not know'
    }
  if (wire === 'gemini') {
    const grounding = (Array.isArray(json.tools) ? json.tools : [])
      .flatMap(tool => Object.keys(obj(tool) ?? {}))
      .find(key => GROUNDING_TOOLS.includes(key))
    if (grounding)
      return {
        name: `tools: ${grounding}`,
        why: 'grounding is billed per grounded prompt or per search query beside the tokens, at a price the meter does not know'
      }
  }
  return undefined
}

const STORED_INPUT: Record<string, string> = {
  previous_response_id: 'the earlier response and everything before it',
  conversation: "the conversation's items",
  prompt: 'the stored prompt'
}
/** Responses hosted tools with a fee per call or per container session (web search is priced instead). */
const PER_USE_TOOLS = ['file_search', 'code_interpreter', 'image_generation']
/** Gemini's grounding tools, billed per grounded prompt (2.5) or per search query (3) beside the tokens. */
const GROUNDING_TOOLS = [
  'googleSearch',
  'google_search',
  'googleSearchRetrieval',
  'google_search_retrieval',
  'googleMaps',
  'google_maps',
  'enterpriseWebSearch',
  'enterprise_web_search',
  'retrieval'
]

function toolTypes(tools: unknown): string[] {
  return (Array.isArray(tools) ? tools : []).flatMap(tool => {
    const type = obj(tool)?.type
    return typeof type === 'string' ? [type] : []
  })
}

/**
 * A request body's bytes per input token, at least: JSON text runs 3 to 4 bytes a token, so 3 errs high. What
 * a body holds beyond that (an image, a crafted string) is caught when the answer reports it.
 */
export const BYTES_PER_INPUT_TOKEN = 3
/**
 * The output a request is reserved at, and limited to, when it names no limit (the CLIs' own defaults are 8K to
 * 32K; codex names none): the proxy writes it into the body (withOutputLimit).
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 32_000

const positive = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : undefined

/** Where a wire's request names its output limit (chat: the first one set, as worstCaseUsage reads it). */
function outputLimit(wire: ModelWire, json: Json): unknown {
  return wire === 'anthropic-messages'
    ? json.max_tokens
    : wire === 'openai-responses'
      ? json.max_output_tokens
      : wire === 'openai-chat'
        ? (json.max_completion_tokens ?? json.max_tokens)
        : obj(json.generationConfig)?.maxOutputTokens
}

/**
 * The body with the output limit it was reserved at, when it names none the meter can read: without one the
 * API allows the model's whole output (128K tokens for GPT-5), far past what was reserved. Undefined when the
 * body names its own limit (then it goes up untouched).
 */
export function withOutputLimit(wire: ModelWire, body: unknown): Json | undefined {
  const json = obj(body)
  if (!json || positive(outputLimit(wire, json)) !== undefined) return undefined
  const limit = DEFAULT_MAX_OUTPUT_TOKENS
  switch (wire) {
    case 'anthropic-messages':
      return { ...json, max_tokens: limit }
    case 'openai-responses':
      return { ...json, max_output_tokens: limit }
    case 'openai-chat': {
      // OpenAI's own models take only max_completion_tokens; other chat servers know max_tokens.
      const { max_tokens: _, max_completion_tokens: __, ...rest } = json
      const openAi = typeof json.model === 'string' && /^(gpt-|o\d|chatgpt-)/.test(json.model)
      return { ...rest, [openAi ? 'max_completion_tokens' : 'max_tokens']: limit }
    }
    case 'gemini':
      return { ...json, generationConfig: { ...obj(json.generationConfig), maxOutputTokens: limit } }
  }
}

/**
 * The most a model call may use: its body's size as input (none of it cached) and its output limit (times the
 * choices asked for) as output; the model it names, else `pathModel` (Gemini's).
 */
export function worstCaseUsage(
  wire: ModelWire,
  body: unknown,
  bytes: number,
  pathModel?: string
): UsageReport {
  const json = obj(body) ?? {}
  const config = obj(json.generationConfig) ?? {}
  const limit = outputLimit(wire, json)
  const choices = positive(wire === 'openai-chat' ? json.n : wire === 'gemini' ? config.candidateCount : 1)
  // Gemini bills the model its path names (as the meter reads it); a body's `model` must not price it lower.
  const model =
    wire === 'gemini' && pathModel
      ? pathModel
      : typeof json.model === 'string' && json.model
        ? json.model
        : pathModel
  return {
    input: Math.ceil(bytes / BYTES_PER_INPUT_TOKEN),
    output: (positive(limit) ?? DEFAULT_MAX_OUTPUT_TOKENS) * (choices ?? 1),
    cache_read: 0,
    cache_write: 0,
    ...(model ? { model } : {})
  }
}

/** Anthropic's web search server tool: $10 per 1,000 searches (platform.claude.com pricing, 2026-11). */
export const ANTHROPIC_WEB_SEARCH_USD = 0.01
/** Searches a web search tool that names no max_uses is reserved for (one request may search many times). */
export const DEFAULT_WEB_SEARCHES = 20

/**
 * OpenAI's web search tool, per call: $25 per 1,000 for web_search_preview on non-reasoning models, $10 for the
 * rest (developers.openai.com/api/docs/pricing, built-in tools); the higher price is kept.
 */
export const OPENAI_WEB_SEARCH_USD = 0.025

/**
 * The most a model call may be billed per use beside its tokens: each Anthropic web search tool's max_uses; for
 * an OpenAI web search tool, the request's max_tool_calls (every hosted tool call a response may make).
 */
export function worstPerUseUsd(wire: ModelWire, body: unknown): number {
  if (wire === 'openai-responses') {
    const json = obj(body) ?? {}
    if (!toolTypes(json.tools).some(type => type.startsWith('web_search'))) return 0
    return (positive(json.max_tool_calls) ?? DEFAULT_WEB_SEARCHES) * OPENAI_WEB_SEARCH_USD
  }
  if (wire !== 'anthropic-messages') return 0
  const tools = obj(body)?.tools
  if (!Array.isArray(tools)) return 0
  return tools
    .map(obj)
    .filter(tool => typeof tool?.type === 'string' && tool.type.startsWith('web_search'))
    .reduce(
      (sum, tool) => sum + (positive(tool?.max_uses) ?? DEFAULT_WEB_SEARCHES) * ANTHROPIC_WEB_SEARCH_USD,
      0
    )
}

/** The most a request body may grow to once decoded: more is refused, never read on trust. */
export const MAX_REQUEST_BODY = 64 * 1024 * 1024

/** A request body as the upstream will read it, or undefined when its encoding is one the proxy cannot read. */
export function decodeBody(bytes: Buffer, encoding: string | undefined): Buffer | undefined {
  const options = { maxOutputLength: MAX_REQUEST_BODY }
  try {
    switch ((encoding ?? 'identity').trim().toLowerCase()) {
      case 'identity':
      case '':
        return bytes
      case 'gzip':
      case 'x-gzip':
        return zlib.gunzipSync(bytes, options)
      case 'deflate':
        return zlib.inflateSync(bytes, options)
      case 'br':
        return zlib.brotliDecompressSync(bytes, options)
      default:
        return undefined
    }
  } catch {
    return undefined
  }
}

/** An error in the API's own shape, so the CLI shows the message: 403 for a refused endpoint, 402 for the budget. */
export function apiError(wire: ModelWire, status: 402 | 403 | 413, message: string): unknown {
  const budget = status === 402
  if (wire === 'anthropic-messages')
    return { type: 'error', error: { type: budget ? 'billing_error' : 'permission_error', message } }
  if (wire === 'gemini')
    return { error: { code: status, message, status: budget ? 'RESOURCE_EXHAUSTED' : 'PERMISSION_DENIED' } }
  return {
    error: {
      message,
      type: budget ? 'insufficient_quota' : 'invalid_request_error',
      code: budget ? 'insufficient_quota' : 'endpoint_not_allowed',
      param: null
    }
  }
}
