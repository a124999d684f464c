// Reading token usage from a model API's response as it streams by, for the four wires the agent CLIs speak.
// Each reader is fed the JSON of one server-sent event (or a whole JSON body) and keeps the request's
// cumulative usage; the proxy prices it after every event, so a budget can be crossed mid-stream.
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

  constructor(
    private readonly wire: ModelWire,
    model?: string
  ) {
    if (model) this.usage.model = model
  }

  /** Reads one event (or a whole body); answers true when the usage changed. */
  read(event: unknown): boolean {
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
    return this.set(
      {
        input: 'input_tokens' in usage ? num(usage.input_tokens) : u.input,
        output: 'output_tokens' in usage ? num(usage.output_tokens) : u.output,
        cache_read: 'cache_read_input_tokens' in usage ? num(usage.cache_read_input_tokens) : u.cache_read,
        cache_write:
          'cache_creation_input_tokens' in usage ? num(usage.cache_creation_input_tokens) : u.cache_write
      },
      message?.model
    )
  }

  // response.completed (and .incomplete / .failed) carry the response with its usage; a whole body is it.
  private responses(data: Json): boolean {
    const response =
      typeof data.type === 'string' && data.type.startsWith('response.') ? obj(data.response) : data
    const usage = obj(response?.usage)
    if (!response || !usage) return false
    return this.set(
      openAiUsage(usage, 'input_tokens', 'output_tokens', 'input_tokens_details'),
      response.model
    )
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
