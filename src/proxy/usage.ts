// Reading token usage from a model API's answer as it streams by, for the four wires the agent CLIs speak.
// A reader is fed the JSON of one server-sent event (or a whole JSON body) and keeps the request's cumulative
// usage, and the per-use dollars of server-run tools; the proxy prices it after every event, so a budget can be
// crossed mid-stream.
import type { UsageReport } from '../agents/types.js'
import { obj, type Json, type ModelWire } from './wire.js'

/** Token counts as an answer gives them: each a count, or undefined when the answer leaves it out (or null). */
type Figures = Record<string, number | undefined>

/** The token kinds of a UsageReport, each of which only grows over one answer. */
const KINDS = ['input', 'output', 'cache_read', 'cache_write', 'cache_write_1h'] as const

/** One request's usage as its response revealed it so far (cumulative). */
export class WireUsage {
  readonly usage: UsageReport = { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  /** The response carried usage (false: nothing to price yet). */
  seen = false
  /** Which of the input and output counts the answer has shown: a complete answer shows both. */
  private readonly shown = new Set<'input' | 'output'>()
  /** Dollars billed per use beside the tokens (Anthropic's and OpenAI's web searches), so far. */
  perUseUsd = 0
  /**
   * A figure of the answer's that cannot be true (negative, fractional, not a number; cached tokens more than
   * the input): the upstream's fault, never money back. Said once; the request is charged its worst case.
   */
  impossible: string | undefined
  /** The Responses web search calls seen so far (by item id or output index). */
  private readonly searchCalls = new Set<string>()

  constructor(
    private readonly wire: ModelWire,
    model?: string,
    /** The request asked for a 1-hour cache: writes the answer does not attribute are counted as 1-hour ones. */
    private readonly hourCache = false
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

  /** `names` of `source` as counts; undefined (the figure named in `impossible`) when one cannot be true. */
  private figures(source: Json | undefined, names: string[]): Figures | undefined {
    const read: Figures = {}
    for (const name of names) {
      const value = source?.[name]
      if (value === undefined || value === null) continue
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        this.impossible ??= `${name} ${typeof value === 'number' ? String(value) : `is a ${typeof value}`}`
        return undefined
      }
      read[name] = value
    }
    return read
  }

  /**
   * The answer has counted both its input and its output: usage without one of them (trimmed by a gateway or a
   * response field mask) tells nothing of what was billed for it.
   */
  get complete(): boolean {
    return this.shown.size === 2
  }

  private cannotBe(why: string): false {
    this.impossible ??= why
    return false
  }

  // A figure left out keeps its value; one that shrinks is kept at its highest (cumulative: never money back).
  private set(next: Partial<Record<(typeof KINDS)[number], number | undefined>>, model: unknown): boolean {
    if (typeof model === 'string' && model) this.usage.model = model
    if (next.input !== undefined) this.shown.add('input')
    if (next.output !== undefined) this.shown.add('output')
    const before = JSON.stringify(this.usage)
    for (const kind of KINDS) {
      const value = next[kind]
      // An hour's writes are named only once there are any (the other wires never have them).
      if (value !== undefined && (value > 0 || this.usage[kind] !== undefined))
        this.usage[kind] = Math.max(this.usage[kind] ?? 0, value)
    }
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
    const read = this.figures(usage, [
      'input_tokens',
      'output_tokens',
      'cache_read_input_tokens',
      'cache_creation_input_tokens'
    ])
    const creation = obj(usage.cache_creation)
    const split = this.figures(creation, ['ephemeral_5m_input_tokens', 'ephemeral_1h_input_tokens'])
    const server = this.figures(obj(usage.server_tool_use), ['web_search_requests'])
    if (!read || !split || !server) return false
    // The writes by time to live; what the answer leaves unattributed is counted at the TTL the request asked.
    const attributed = (split.ephemeral_5m_input_tokens ?? 0) + (split.ephemeral_1h_input_tokens ?? 0)
    const writes = read.cache_creation_input_tokens ?? (creation ? attributed : undefined)
    if (writes !== undefined && attributed > writes)
      return this.cannotBe(`cache_creation (${attributed}) more than cache_creation_input_tokens (${writes})`)
    const hour =
      writes === undefined
        ? undefined
        : (split.ephemeral_1h_input_tokens ?? 0) + (this.hourCache ? writes - attributed : 0)
    // The web search server tool is billed per search, not in tokens.
    const perUse = Math.max(this.perUseUsd, (server.web_search_requests ?? 0) * ANTHROPIC_WEB_SEARCH_USD)
    const searched = perUse !== this.perUseUsd
    this.perUseUsd = perUse
    const changed = this.set(
      {
        input: read.input_tokens,
        output: read.output_tokens,
        cache_read: read.cache_read_input_tokens,
        cache_write: writes,
        cache_write_1h: hour
      },
      message?.model
    )
    return changed || searched
  }

  /** OpenAI's usage (both its wires, under their own names): cached tokens are counted inside the input. */
  private openAi(usage: Json, model: unknown, input: string, output: string, details: string): boolean {
    const read = this.figures(usage, [input, output])
    const cached = this.figures(obj(usage[details]), ['cached_tokens'])
    if (!read || !cached) return false
    const hit = cached.cached_tokens ?? 0
    if (hit > (read[input] ?? 0))
      return this.cannotBe(`cached_tokens (${hit}) more than ${input} (${read[input] ?? 0})`)
    // A UsageReport's input is the uncached part.
    const whole = read[input]
    return this.set(
      {
        input: whole === undefined ? undefined : whole - hit,
        output: read[output],
        cache_read: hit,
        cache_write: 0
      },
      model
    )
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
    const changed = this.openAi(
      usage,
      response.model,
      'input_tokens',
      'output_tokens',
      'input_tokens_details'
    )
    return changed || searched
  }

  private countSearches(items: unknown[], index: unknown): boolean {
    const before = this.searchCalls.size
    items.forEach((item, at) => {
      const call = obj(item)
      if (call?.type !== 'web_search_call') return
      this.searchCalls.add(
        typeof call.id === 'string' ? call.id : `#${typeof index === 'number' ? index : at}`
      )
    })
    if (this.searchCalls.size === before) return false
    this.perUseUsd = Math.max(this.perUseUsd, this.searchCalls.size * OPENAI_WEB_SEARCH_USD)
    return true
  }

  // The usage chunk (stream_options.include_usage), or a whole body's usage.
  private chat(data: Json): boolean {
    const usage = obj(data.usage)
    if (!usage) return false
    return this.openAi(usage, data.model, 'prompt_tokens', 'completion_tokens', 'prompt_tokens_details')
  }

  // usageMetadata on a chunk: the prompt counts cached content; thoughts are billed as output. The total
  // counts them all, so what it holds beyond the prompt is output too (a count of 0 is left out).
  private gemini(data: Json): boolean {
    const read = this.figures(obj(data.usageMetadata), [
      'promptTokenCount',
      'cachedContentTokenCount',
      'candidatesTokenCount',
      'thoughtsTokenCount',
      'totalTokenCount'
    ])
    if (!read || !obj(data.usageMetadata)) return false
    const prompt = read.promptTokenCount
    const cached = read.cachedContentTokenCount ?? 0
    if (cached > (prompt ?? 0))
      return this.cannotBe(`cachedContentTokenCount (${cached}) more than promptTokenCount (${prompt ?? 0})`)
    const candidates = read.candidatesTokenCount
    const thoughts = read.thoughtsTokenCount
    const total = read.totalTokenCount
    const beyond = total !== undefined && prompt !== undefined ? total - prompt : undefined
    if (beyond !== undefined && beyond < 0)
      return this.cannotBe(`totalTokenCount (${total}) less than promptTokenCount (${prompt})`)
    const counted =
      candidates === undefined && thoughts === undefined ? undefined : (candidates ?? 0) + (thoughts ?? 0)
    return this.set(
      {
        input: prompt === undefined ? undefined : prompt - cached,
        output: beyond === undefined ? counted : Math.max(counted ?? 0, beyond),
        cache_read: cached,
        cache_write: 0
      },
      data.modelVersion
    )
  }
}

/** Anthropic's web search server tool: $10 per 1,000 searches (platform.claude.com pricing, 2026-11). */
export const ANTHROPIC_WEB_SEARCH_USD = 0.01

/**
 * OpenAI's web search tool, per call: $25 per 1,000 for web_search_preview on non-reasoning models, $10 for the
 * rest (developers.openai.com/api/docs/pricing, built-in tools); the higher price is kept.
 */
export const OPENAI_WEB_SEARCH_USD = 0.025
