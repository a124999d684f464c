// Gemini CLI with `--output-format stream-json` (added unless the user chose a format). Events, as
// google-gemini/gemini-cli prints them (packages/core/src/output/types.ts): init{session_id, model},
// message{role, content, delta}, tool_use{tool_name, tool_id, parameters}, tool_result{tool_id, status,
// output, error}, error{severity, message}, result{status, error, stats{total_tokens, input_tokens,
// output_tokens, cached, input, duration_ms, tool_calls}}. Tokens only: the cost is estimated. The stream says
// the usage only at the end; turn by turn it comes from gemini's local telemetry file (gemini-telemetry.ts),
// so a dollar budget can stop a run mid-way, a few seconds after the response that crossed it. Fatal errors
// end with a `result` whose status is "error" and an exit code (packages/core/src/utils/errors.ts): 41 auth,
// 42 input, 44 sandbox, 52 config, 53 turn limit, 54 tool, 130 cancelled.
import { hasOption, optionValue, programStem } from './argv.js'
import { genericReader } from './generic.js'
import { GEMINI_TELEMETRY_PREFIX, GeminiTelemetry } from './gemini-telemetry.js'
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
import type { AgentExit, AgentFailure, AgentPreset, AgentRunHooks, UsageReport } from './types.js'

const FORMAT = ['--output-format', '-o']

export const isGeminiCommand = (argv: string[]): boolean => programStem(argv[0]) === 'gemini'

/** The output format the user chose, if any. */
export const geminiFormat = (argv: string[]): string | undefined => optionValue(argv, FORMAT)

export function geminiArgv(userArgv: string[]): string[] {
  return hasOption(userArgv, FORMAT) ? [...userArgv] : [...userArgv, '--output-format', 'stream-json']
}

/** Exit codes of gemini's FatalError classes. */
export const GEMINI_EXIT_FAILURES: Record<number, AgentFailure> = {
  41: { kind: 'auth_error', message: 'gemini could not authenticate (exit 41)' },
  42: { kind: 'input_error', message: 'gemini refused its input (exit 42)' },
  44: { kind: 'error', message: 'gemini could not set up its sandbox (exit 44)' },
  52: { kind: 'error', message: 'gemini found its configuration invalid (exit 52)' },
  53: { kind: 'max_turns', message: 'gemini reached its session turn limit (exit 53)' },
  54: { kind: 'error', message: 'a gemini tool failed fatally (exit 54)' },
  130: { kind: 'error', message: 'gemini was cancelled (exit 130)' }
}

function failureOf(type: string | undefined, message: string): AgentFailure {
  if (USAGE_LIMIT.test(`${type ?? ''} ${message}`)) {
    const resetsAt = resetFromMessage(message)
    return { kind: 'usage_limit', message, ...(resetsAt !== undefined ? { resetsAt } : {}) }
  }
  switch (type) {
    case 'FatalTurnLimitedError':
      return { kind: 'max_turns', message }
    case 'FatalInputError':
      return { kind: 'input_error', message }
    case 'FatalAuthenticationError':
      return { kind: 'auth_error', message }
  }
  return { kind: /api error/i.test(message) ? 'api_error' : 'error', message }
}

class GeminiStreamReader extends JsonLinesReader {
  private model?: string
  /** Assistant text of the current turn, sent as deltas. */
  private pending = ''
  private sawEvent = false
  private sawResult = false
  private readonly tools = new Map<string, string>()
  /** Usage turn by turn, from gemini's local telemetry (see gemini-telemetry.ts). */
  private readonly telemetry?: GeminiTelemetry
  readonly env?: Record<string, string>

  constructor(hooks: AgentRunHooks, agentEnv: NodeJS.ProcessEnv = {}) {
    super(hooks)
    const ownTelemetry = Object.keys(agentEnv).filter(name => name.startsWith(GEMINI_TELEMETRY_PREFIX))
    if (ownTelemetry.length > 0) {
      this.notes.push(
        `gemini's own telemetry settings are in its environment (${ownTelemetry.join(', ')}): its usage is known only when a run ends`
      )
      return
    }
    this.telemetry = new GeminiTelemetry(usage => {
      // The result's stats are the final word; what the telemetry adds afterwards was already counted.
      if (!this.sawResult)
        this.emit({ kind: 'usage', usage: { ...usage, ...(this.model ? { model: this.model } : {}) } })
    })
    this.env = this.telemetry.env
  }

  protected onJson(event: Json): void {
    if (typeof event.type !== 'string') return
    this.sawEvent = true
    if (event.type !== 'message') this.flush()
    switch (event.type) {
      case 'init':
        if (typeof event.model === 'string') this.model = event.model
        this.emit({
          kind: 'notice',
          message: `[session ${String(event.session_id ?? '?')}] model ${String(event.model ?? '?')}`
        })
        break
      case 'message':
        if (event.role === 'assistant') this.onAssistant(str(event.content) ?? '', event.delta === true)
        break
      case 'tool_use': {
        const name = str(event.tool_name) ?? '?'
        this.tools.set(String(event.tool_id ?? ''), name)
        // A tool call ends the turn's text: the final message is what comes after the last one.
        this.finalMessage = undefined
        this.emit({ kind: 'tool_call', name, detail: describeToolInput(event.parameters) })
        break
      }
      case 'tool_result': {
        const ok = event.status !== 'error'
        const error = isObject(event.error) ? str(event.error.message) : undefined
        this.emit({ kind: 'tool_result', ok, detail: oneLine(error ?? str(event.output) ?? '', 120) })
        break
      }
      case 'error': {
        const message = oneLine(str(event.message) ?? '', 300)
        if (event.severity === 'warning') this.emit({ kind: 'notice', message: `[warning] ${message}` })
        else this.emit({ kind: 'error', message })
        break
      }
      case 'result':
        this.onResult(event)
        break
    }
  }

  private onAssistant(content: string, delta: boolean): void {
    if (!delta) this.flush()
    this.pending += content
    this.finalMessage = (this.finalMessage ?? '') + content
    if (!delta) this.flush()
  }

  /** The turn's text so far becomes one transcript entry. */
  private flush(): void {
    if (this.pending === '') return
    this.emit({ kind: 'text', text: this.pending })
    this.pending = ''
  }

  private onResult(event: Json): void {
    this.sawResult = true
    if (isObject(event.stats)) this.emit({ kind: 'usage', usage: this.usageOf(event.stats) })
    const isError = event.status === 'error'
    this.isError = isError
    const error = isObject(event.error) ? event.error : undefined
    if (isError) {
      const message = oneLine(str(error?.message) ?? 'gemini reported an error', 300)
      this.failure = failureOf(str(error?.type), message)
    }
    const calls =
      isObject(event.stats) && event.stats.tool_calls !== undefined
        ? ` · ${String(event.stats.tool_calls)} tool calls`
        : ''
    this.emit({
      kind: 'result',
      isError,
      summary: `[result] ${String(event.status ?? '?')}${error ? `: ${oneLine(str(error.message) ?? '', 200)}` : ''}${calls}`
    })
  }

  /** input_tokens counts the cached ones; total_tokens also counts thinking and tool tokens (billed as output). */
  private usageOf(stats: Json): UsageReport {
    const prompt = num(stats.input_tokens)
    const cached = num(stats.cached)
    const output = num(stats.output_tokens)
    const extra = Math.max(0, num(stats.total_tokens) - prompt - output)
    const report: UsageReport = {
      input: stats.input !== undefined ? num(stats.input) : Math.max(0, prompt - cached),
      output: output + extra,
      cache_read: cached,
      cache_write: 0
    }
    if (this.model) report.model = this.model
    return report
  }

  protected override end(): void {
    this.flush()
  }

  override finish(stdoutText: string, exit?: AgentExit) {
    // A last read first: a killed run's usage is what its telemetry said so far.
    this.telemetry?.close()
    // `--output-format json` prints one (pretty-printed) object at the end instead of a stream.
    if (!this.sawEvent) this.readJsonOutput(stdoutText)
    if (!this.sawResult && this.sawEvent && !exit?.killed)
      this.notes.push('the stream ended without a result event')
    return super.finish(stdoutText, exit)
  }

  protected override exitFailure(code: number, stderr: string): AgentFailure {
    const known = GEMINI_EXIT_FAILURES[code]
    if (known) return { kind: known.kind, message: `${known.message}${stderr ? `: ${stderr}` : ''}` }
    return super.exitFailure(code, stderr)
  }

  private readJsonOutput(text: string): void {
    let json: unknown
    try {
      json = JSON.parse(text.trim())
    } catch {
      return
    }
    if (!isObject(json)) return
    if (typeof json.response === 'string') this.finalMessage = json.response
    const stats = isObject(json.stats) && isObject(json.stats.models) ? json.stats.models : undefined
    if (stats) {
      const usage: UsageReport = { input: 0, output: 0, cache_read: 0, cache_write: 0 }
      let main: [string, number] = ['', -1]
      for (const [model, metrics] of Object.entries(stats)) {
        const tokens = isObject(metrics) && isObject(metrics.tokens) ? metrics.tokens : {}
        const cached = num(tokens.cached)
        usage.input += Math.max(0, num(tokens.prompt) - cached)
        usage.cache_read += cached
        usage.output += num(tokens.candidates) + num(tokens.thoughts) + num(tokens.tool)
        if (num(tokens.candidates) > main[1]) main = [model, num(tokens.candidates)]
      }
      if (main[0]) usage.model = main[0]
      this.emit({ kind: 'usage', usage })
    }
    if (isObject(json.error)) {
      this.isError = true
      this.failure = failureOf(str(json.error.type), oneLine(str(json.error.message) ?? 'error', 300))
      this.emit({ kind: 'error', message: this.failure.message })
    }
  }
}

/** gemini with a JSON output format (stream-json added unless the user chose one). */
export const geminiPreset: AgentPreset = {
  name: 'gemini',
  jsonStream: true,
  argv: userArgv => geminiArgv(userArgv),
  read: (_prompt, hooks, context) => new GeminiStreamReader(hooks, context?.env)
}

/** gemini run exactly as written with text output: read as plain text. */
export const geminiPlainPreset: AgentPreset = {
  name: 'gemini',
  jsonStream: false,
  argv: userArgv => [...userArgv],
  read: (prompt, hooks) => genericReader(prompt, hooks, { exitFailures: GEMINI_EXIT_FAILURES })
}
