// Claude Code in print mode. Like the reference runtime, `--output-format stream-json --verbose` is
// appended (even when the user's command already has --output-format: argv parity with ralphify), and the
// final message is the `result` event's text. Our own flags come only with our own settings: the loop's
// remaining dollar budget as `--max-budget-usd` and its turn cap as `--max-turns`, unless already given.
// Per-turn usage feeds the cost meter live; the readable transcript goes to agent.log.
import { hasOption, programStem } from './argv.js'
import {
  JsonLinesReader,
  describeToolInput,
  isObject,
  num,
  oneLine,
  resetFromMessage,
  str,
  USAGE_LIMIT
} from './stream.js'
import type { Json } from './stream.js'
import type { AgentCaps, AgentExit, AgentFailure, AgentPreset, AgentRunHooks, UsageReport } from './types.js'

/** Appended verbatim, even when the user's command already has --output-format (the reference does). */
export const CLAUDE_STREAM_FLAGS = ['--output-format', 'stream-json', '--verbose']

/** Python's Path(argv0).stem == 'claude': `/usr/bin/claude`, `claude.exe` and `claude.cmd` all match. */
export function isClaudeCommand(argv0: string | undefined): boolean {
  return programStem(argv0) === 'claude'
}

/** Dollars as claude's --max-budget-usd reads them: never rounded up past what is left. */
export function formatBudget(usd: number): string {
  return (Math.floor(Math.max(0, usd) * 1e6) / 1e6).toString()
}

/** The command line: the reference's flags, then the caps the loop can hand to claude itself. */
export function claudeArgv(userArgv: string[], caps: AgentCaps = {}): string[] {
  const argv = [...userArgv, ...CLAUDE_STREAM_FLAGS]
  if (caps.remainingUsd !== undefined && !hasOption(userArgv, ['--max-budget-usd']))
    argv.push('--max-budget-usd', formatBudget(caps.remainingUsd))
  if (caps.maxTurns !== undefined && !hasOption(userArgv, ['--max-turns']))
    argv.push('--max-turns', String(caps.maxTurns))
  return argv
}

interface ApiUsage {
  input_tokens?: number
  output_tokens?: number
  cache_read_input_tokens?: number
  cache_creation_input_tokens?: number
  /** The writes by time to live: the 1-hour ones cost 2× input, not 1.25×. */
  cache_creation?: { ephemeral_1h_input_tokens?: number }
}

function toReport(usage: ApiUsage, model?: string): UsageReport {
  const report: UsageReport = {
    input: num(usage.input_tokens),
    output: num(usage.output_tokens),
    cache_read: num(usage.cache_read_input_tokens),
    cache_write: num(usage.cache_creation_input_tokens)
  }
  const hour = num(usage.cache_creation?.ephemeral_1h_input_tokens)
  if (hour > 0) report.cache_write_1h = hour
  if (model) report.model = model
  return report
}

/** `modelUsage` sums (every model the run used, subagents and broken streams included), or undefined. */
function modelUsageReport(modelUsage: unknown, model?: string): UsageReport | undefined {
  if (!isObject(modelUsage)) return undefined
  const entries = Object.entries(modelUsage).filter(([, v]) => isObject(v)) as [string, Json][]
  if (entries.length === 0) return undefined
  const report: UsageReport = { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  for (const [, m] of entries) {
    report.input += num(m.inputTokens)
    report.output += num(m.outputTokens)
    report.cache_read += num(m.cacheReadInputTokens)
    report.cache_write += num(m.cacheCreationInputTokens)
  }
  // The model that did most of the work names the run.
  const main = entries.reduce((a, b) => (num(b[1].outputTokens) > num(a[1].outputTokens) ? b : a))[0]
  const named = main || model
  if (named !== undefined) report.model = named
  return report
}

/** Claude Code's stream-json, also spoken by qwen-code (which prints no dollars: its tokens are priced). */
export class ClaudeStreamReader extends JsonLinesReader {
  // One assistant message arrives as several events (one per content block) with the same id and usage.
  private readonly turns = new Map<string, ApiUsage>()
  private model?: string
  private sawResult = false

  constructor(
    hooks: AgentRunHooks,
    /** The agent's name in messages. */
    private readonly agent = 'claude'
  ) {
    super(hooks)
  }

  protected override end(exit?: AgentExit): void {
    if (this.sawResult) return
    if (this.turns.size > 0) this.usage = this.cumulative()
    this.notes.push('the stream ended without a result event')
    if (exit && !exit.killed && exit.code !== 0 && !this.failure)
      this.failure = {
        kind: 'error',
        message: `${this.agent} exited with ${exit.code ?? exit.signal} without a result`
      }
  }

  private cumulative(): UsageReport {
    const sum: ApiUsage = {}
    for (const usage of this.turns.values()) {
      sum.input_tokens = num(sum.input_tokens) + num(usage.input_tokens)
      sum.output_tokens = num(sum.output_tokens) + num(usage.output_tokens)
      sum.cache_read_input_tokens = num(sum.cache_read_input_tokens) + num(usage.cache_read_input_tokens)
      sum.cache_creation_input_tokens =
        num(sum.cache_creation_input_tokens) + num(usage.cache_creation_input_tokens)
      sum.cache_creation = {
        ephemeral_1h_input_tokens:
          num(sum.cache_creation?.ephemeral_1h_input_tokens) +
          num(usage.cache_creation?.ephemeral_1h_input_tokens)
      }
    }
    return toReport(sum, this.model)
  }

  protected onJson(event: Json): void {
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
        this.onRateLimit(event)
        break
    }
  }

  private onSystem(event: Json): void {
    if (event.subtype === 'init') {
      if (typeof event.model === 'string') this.model = event.model
      this.emit({
        kind: 'notice',
        message: `[session ${String(event.session_id ?? '?')}] model ${String(event.model ?? '?')}`
      })
    } else if (event.subtype === 'api_retry') {
      this.retries++
      const status = event.error_status ?? event.error ?? '?'
      this.lastRetryError = String(event.error_status ?? event.error ?? 'unknown')
      this.emit({
        kind: 'notice',
        message: `[api retry ${String(event.attempt ?? '?')}/${String(event.max_retries ?? '?')}] status ${String(status)}`
      })
    } else if (event.subtype === 'permission_denied') {
      const tool = str(event.tool_name) ?? '?'
      const reason = str(event.decision_reason) ?? str(event.message) ?? ''
      this.emit({
        kind: 'notice',
        message: `[permission denied] ${tool}${reason ? `: ${oneLine(reason)}` : ''}`
      })
    }
  }

  private onAssistant(event: Json): void {
    const message = isObject(event.message) ? event.message : {}
    if (typeof message.model === 'string' && message.model !== '<synthetic>') this.model = message.model
    for (const block of Array.isArray(message.content) ? message.content : []) {
      if (!isObject(block)) continue
      if (block.type === 'text' && typeof block.text === 'string')
        this.emit({ kind: 'text', text: block.text })
      else if (block.type === 'tool_use')
        this.emit({ kind: 'tool_call', name: String(block.name), detail: describeToolInput(block.input) })
    }
    // A synthetic message (an API error said as text) carries no real usage.
    if (isObject(message.usage) && message.model !== '<synthetic>') {
      const id = typeof message.id === 'string' ? message.id : `turn-${this.turns.size}`
      this.turns.set(id, message.usage as ApiUsage)
      this.emit({ kind: 'usage', usage: this.cumulative() })
    }
  }

  private onUser(event: Json): void {
    const message = isObject(event.message) ? event.message : {}
    for (const block of Array.isArray(message.content) ? message.content : []) {
      if (!isObject(block) || block.type !== 'tool_result') continue
      const content = typeof block.content === 'string' ? block.content : JSON.stringify(block.content ?? '')
      this.emit({ kind: 'tool_result', ok: block.is_error !== true, detail: oneLine(content, 120) })
    }
  }

  /** `rate_limit_event`: status "rejected" means a usage limit was hit (subscription logins only). */
  private onRateLimit(event: Json): void {
    const info = isObject(event.rate_limit_info) ? event.rate_limit_info : {}
    const status = str(info.status) ?? '?'
    const resetsAt = typeof info.resetsAt === 'number' ? info.resetsAt * 1000 : undefined
    const kind = str(info.rateLimitType)
    const when = resetsAt !== undefined ? `, resets at ${new Date(resetsAt).toISOString()}` : ''
    this.emit({ kind: 'notice', message: `[rate limit] ${status}${kind ? ` (${kind})` : ''}${when}` })
    if (status === 'rejected') {
      this.failure = {
        kind: 'usage_limit',
        message: `claude's ${kind ? `${kind} ` : ''}usage limit was reached${when}`,
        ...(resetsAt !== undefined ? { resetsAt } : {})
      }
    }
  }

  private onResult(event: Json): void {
    this.sawResult = true
    const fromModels = modelUsageReport(event.modelUsage, this.model)
    const usage = fromModels ?? toReport(isObject(event.usage) ? (event.usage as ApiUsage) : {}, this.model)
    if (typeof event.total_cost_usd === 'number') usage.reportedUsd = event.total_cost_usd
    else if (typeof event.cost_usd === 'number') usage.reportedUsd = event.cost_usd
    const text = typeof event.result === 'string' ? event.result : undefined
    const isError = event.is_error === true
    this.finalMessage = text
    this.isError = isError
    this.emit({ kind: 'usage', usage })
    for (const denial of Array.isArray(event.permission_denials) ? event.permission_denials : []) {
      if (!isObject(denial)) continue
      const detail = describeToolInput(denial.tool_input)
      this.deny({ tool: str(denial.tool_name) ?? '?', ...(detail ? { detail } : {}) })
    }
    if (isError) this.failure = this.resultFailure(event, text)
    const cost = usage.reportedUsd !== undefined ? ` · $${usage.reportedUsd.toFixed(4)}` : ''
    const turns = event.num_turns !== undefined ? ` · ${String(event.num_turns)} turns` : ''
    this.emit({
      kind: 'result',
      isError,
      summary: `[result] ${String(event.subtype ?? '?')}${isError ? ' (error)' : ''}${cost}${turns}`,
      ...(text !== undefined ? { text } : {})
    })
    if (text) this.emit({ kind: 'text', text })
  }

  private resultFailure(event: Json, text: string | undefined): AgentFailure {
    const errors = Array.isArray(event.errors) ? event.errors.filter(e => typeof e === 'string') : []
    // qwen says it in `error.message` instead.
    const said = isObject(event.error) ? str(event.error.message) : undefined
    const message = oneLine(text || errors.join('; ') || said || String(event.subtype ?? 'error'), 300)
    // A rejected rate_limit_event said more (the reset time) than the result will.
    if (this.failure?.kind === 'usage_limit') return this.failure
    switch (event.subtype) {
      case 'error_max_budget_usd':
        return { kind: 'budget', message }
      case 'error_max_turns':
        return { kind: 'max_turns', message }
    }
    // A 429 alone is a rate limit claude already retried: an API error, the loop goes on.
    if (USAGE_LIMIT.test(message)) {
      const resetsAt = resetFromMessage(message)
      return { kind: 'usage_limit', message, ...(resetsAt !== undefined ? { resetsAt } : {}) }
    }
    if (
      event.terminal_reason === 'api_error' ||
      event.api_error_status != null ||
      /^\[?API Error/.test(message)
    )
      return { kind: 'api_error', message }
    return { kind: 'error', message }
  }
}

export const claudePreset: AgentPreset = {
  name: 'claude',
  jsonStream: true,
  argv: (userArgv, caps) => claudeArgv(userArgv, caps),
  read: (_prompt, hooks) => new ClaudeStreamReader(hooks)
}
