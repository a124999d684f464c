// Claude Code in print mode. Like the reference runtime, `--output-format stream-json --verbose` is
// appended and the final message is the `result` event's text. The stream is read as it arrives: per-turn
// usage feeds the cost meter live, and a readable transcript goes to agent.log.
import path from 'node:path'
import { LineSplitter } from './lines.js'
import type { AgentOutcome, AgentPreset, AgentRunHooks, AgentRunReader, UsageReport } from './types.js'

/** Appended verbatim, even when the user's command already has --output-format (the reference does). */
export const CLAUDE_STREAM_FLAGS = ['--output-format', 'stream-json', '--verbose']

/** Python's Path(argv0).stem == 'claude': `/usr/bin/claude`, `claude.exe` and `claude.cmd` all match. */
export function isClaudeCommand(argv0: string | undefined): boolean {
  if (!argv0) return false
  const base = path.basename(argv0.replace(/\\/g, '/'))
  const dot = base.lastIndexOf('.')
  return (dot > 0 ? base.slice(0, dot) : base) === 'claude'
}

interface ApiUsage {
  input_tokens?: number
  output_tokens?: number
  cache_read_input_tokens?: number
  cache_creation_input_tokens?: number
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0)
const oneLine = (text: string, max = 160): string => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

function toReport(usage: ApiUsage, model?: string): UsageReport {
  const report: UsageReport = {
    input: num(usage.input_tokens),
    output: num(usage.output_tokens),
    cache_read: num(usage.cache_read_input_tokens),
    cache_write: num(usage.cache_creation_input_tokens)
  }
  if (model) report.model = model
  return report
}

function describeToolInput(input: unknown): string {
  if (!isObject(input)) return ''
  for (const key of ['command', 'file_path', 'path', 'pattern', 'url', 'description']) {
    if (typeof input[key] === 'string') return oneLine(input[key] as string)
  }
  return oneLine(JSON.stringify(input))
}

class ClaudeStreamReader implements AgentRunReader {
  private readonly lines: LineSplitter
  // One assistant message arrives as several events (one per content block) with the same id and usage.
  private readonly turns = new Map<string, ApiUsage>()
  private model?: string
  private result?: { text?: string; isError: boolean; usage?: UsageReport }
  private readonly notes: string[] = []

  constructor(private readonly hooks: AgentRunHooks) {
    this.lines = new LineSplitter(
      line => this.onLine(line),
      bytes => this.notes.push(`a stream line of ${bytes} bytes was too long to read and was skipped`)
    )
  }

  stdout(chunk: Buffer): void {
    this.lines.push(chunk)
  }

  stderr(): void {
    // The engine appends stderr to agent.log itself.
  }

  finish(): AgentOutcome {
    this.lines.end()
    const outcome: AgentOutcome = { notes: this.notes }
    if (this.result) {
      outcome.finalMessage = this.result.text
      outcome.isError = this.result.isError
      outcome.usage = this.result.usage
    } else if (this.turns.size > 0) {
      outcome.usage = this.cumulative()
      this.notes.push('the stream ended without a result event')
    }
    return outcome
  }

  private cumulative(): UsageReport {
    const sum: ApiUsage = {}
    for (const usage of this.turns.values()) {
      sum.input_tokens = num(sum.input_tokens) + num(usage.input_tokens)
      sum.output_tokens = num(sum.output_tokens) + num(usage.output_tokens)
      sum.cache_read_input_tokens = num(sum.cache_read_input_tokens) + num(usage.cache_read_input_tokens)
      sum.cache_creation_input_tokens =
        num(sum.cache_creation_input_tokens) + num(usage.cache_creation_input_tokens)
    }
    return toReport(sum, this.model)
  }

  private onLine(line: string): void {
    if (line.trim() === '') return
    let event: unknown
    try {
      event = JSON.parse(line)
    } catch {
      this.hooks.onTranscript(line)
      return
    }
    if (!isObject(event)) return
    switch (event.type) {
      case 'system':
        this.onSystem(event)
        break
      case 'assistant':
        this.onAssistant(event)
        break
      case 'user':
        this.onUser(event)
        break
      case 'result':
        this.onResult(event)
        break
      case 'rate_limit_event':
        this.hooks.onTranscript(`[rate limit] ${oneLine(JSON.stringify(event.rate_limit_info ?? event))}`)
        break
    }
  }

  private onSystem(event: Json): void {
    if (event.subtype === 'init') {
      if (typeof event.model === 'string') this.model = event.model
      this.hooks.onTranscript(
        `[session ${String(event.session_id ?? '?')}] model ${String(event.model ?? '?')}`
      )
    } else if (event.subtype === 'api_retry') {
      const line = `[api retry ${String(event.attempt ?? '?')}/${String(event.max_retries ?? '?')}] status ${String(event.error_status ?? '?')}`
      this.hooks.onTranscript(line)
    }
  }

  private onAssistant(event: Json): void {
    const message = isObject(event.message) ? event.message : {}
    if (typeof message.model === 'string') this.model = message.model
    for (const block of Array.isArray(message.content) ? message.content : []) {
      if (!isObject(block)) continue
      if (block.type === 'text' && typeof block.text === 'string') this.hooks.onTranscript(block.text)
      else if (block.type === 'tool_use')
        this.hooks.onTranscript(`→ ${String(block.name)} ${describeToolInput(block.input)}`)
    }
    if (isObject(message.usage)) {
      const id = typeof message.id === 'string' ? message.id : `turn-${this.turns.size}`
      this.turns.set(id, message.usage as ApiUsage)
      this.hooks.onUsage(this.cumulative())
    }
  }

  private onUser(event: Json): void {
    const message = isObject(event.message) ? event.message : {}
    for (const block of Array.isArray(message.content) ? message.content : []) {
      if (!isObject(block) || block.type !== 'tool_result') continue
      const content = typeof block.content === 'string' ? block.content : JSON.stringify(block.content ?? '')
      this.hooks.onTranscript(`← ${block.is_error ? 'error' : 'result'}: ${oneLine(content, 120)}`)
    }
  }

  private onResult(event: Json): void {
    const usage = toReport(isObject(event.usage) ? (event.usage as ApiUsage) : {}, this.model)
    if (typeof event.total_cost_usd === 'number') usage.reportedUsd = event.total_cost_usd
    else if (typeof event.cost_usd === 'number') usage.reportedUsd = event.cost_usd
    const text = typeof event.result === 'string' ? event.result : undefined
    this.result = { text, isError: event.is_error === true, usage }
    this.hooks.onUsage(usage)
    const cost = usage.reportedUsd !== undefined ? ` · $${usage.reportedUsd.toFixed(4)}` : ''
    const turns = event.num_turns !== undefined ? ` · ${String(event.num_turns)} turns` : ''
    this.hooks.onTranscript(
      `[result] ${String(event.subtype ?? '?')}${event.is_error ? ' (error)' : ''}${cost}${turns}`
    )
    if (text) this.hooks.onTranscript(text)
  }
}

export const claudePreset: AgentPreset = {
  name: 'claude',
  jsonStream: true,
  argv: userArgv => [...userArgv, ...CLAUDE_STREAM_FLAGS],
  read: (_prompt, hooks) => new ClaudeStreamReader(hooks)
}
