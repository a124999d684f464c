// opencode (`opencode run`) with `--format json` (added unless the user gave a format). Each line is
// `{type, timestamp, sessionID, …}` as anomalyco/opencode prints it (packages/opencode/src/cli/cmd/run.ts):
// step_start, text, reasoning, tool_use and step_finish carry a `part`; `error` carries `error{name, data}`;
// newer builds end with `done{reason, rejected}` (permissions it auto-rejected). step_finish's part has the
// step's `cost` in dollars and `tokens{input, output, reasoning, cache{read, write}}` (message-v2.ts
// StepFinishPart): the cost is reported, summed over steps (tokens.total, when present, is cumulative and
// is not summed).
import { hasOption, insertAfter, optionValue, programStem, subcommandIndex } from './argv.js'
import { genericReader } from './generic.js'
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

export const isOpencodeRun = (argv: string[]): boolean =>
  programStem(argv[0]) === 'opencode' && subcommandIndex(argv, ['run']) !== -1

/** The output format the user chose, if any. */
export const opencodeFormat = (argv: string[]): string | undefined => optionValue(argv, ['--format'])

export function opencodeArgv(userArgv: string[]): string[] {
  if (hasOption(userArgv, ['--format'])) return [...userArgv]
  return insertAfter(userArgv, subcommandIndex(userArgv, ['run']), ['--format', 'json'])
}

class OpencodeStreamReader extends JsonLinesReader {
  private readonly totals: UsageReport = {
    input: 0,
    output: 0,
    cache_read: 0,
    cache_write: 0,
    reportedUsd: 0
  }
  private steps = 0
  /** Text parts since the last tool call: the final message. */
  private tail: string[] = []

  constructor(hooks: AgentRunHooks) {
    super(hooks)
  }

  protected onJson(event: Json): void {
    const part = isObject(event.part) ? event.part : {}
    switch (event.type) {
      case 'text': {
        const text = str(part.text) ?? ''
        this.tail.push(text)
        this.finalMessage = this.tail.join('\n\n')
        this.emit({ kind: 'text', text })
        break
      }
      case 'tool_use':
        this.onTool(part)
        break
      case 'step_finish':
        this.onStep(part)
        break
      case 'error':
        this.onError(isObject(event.error) ? event.error : {})
        break
      case 'done':
        for (const permission of Array.isArray(event.rejected) ? event.rejected : [])
          if (typeof permission === 'string') this.deny({ tool: permission })
        if (this.denials.length > 0)
          this.emit({
            kind: 'notice',
            message: `[permission denied] ${this.denials.map(d => d.tool).join(', ')}`
          })
        break
    }
  }

  private onTool(part: Json): void {
    const state = isObject(part.state) ? part.state : {}
    const name = str(part.tool) ?? '?'
    this.tail = []
    this.finalMessage = undefined
    this.emit({
      kind: 'tool_call',
      name,
      detail: describeToolInput(state.input) || oneLine(str(state.title) ?? '')
    })
    const ok = state.status !== 'error'
    const detail = ok ? str(state.output) || str(state.title) || '' : str(state.error) || 'failed'
    this.emit({ kind: 'tool_result', ok, detail: oneLine(detail, 120) })
  }

  private onStep(part: Json): void {
    this.steps++
    const tokens = isObject(part.tokens) ? part.tokens : {}
    const cache = isObject(tokens.cache) ? tokens.cache : {}
    this.totals.input += num(tokens.input)
    // Reasoning tokens are billed as output.
    this.totals.output += num(tokens.output) + num(tokens.reasoning)
    this.totals.cache_read += num(cache.read)
    this.totals.cache_write += num(cache.write)
    this.totals.reportedUsd = (this.totals.reportedUsd ?? 0) + num(part.cost)
    const model = isObject(part.model) ? str(part.model.modelID) : undefined
    if (model) this.totals.model = model
    this.emit({ kind: 'usage', usage: { ...this.totals } })
  }

  private onError(error: Json): void {
    const data = isObject(error.data) ? error.data : {}
    const name = str(error.name) ?? 'Error'
    const message = oneLine(str(data.message) ?? name, 300)
    this.isError = true
    this.failure = this.failureOf(name, message, data.statusCode)
    this.emit({ kind: 'error', message: `${name}: ${message}` })
  }

  private failureOf(name: string, message: string, status: unknown): AgentFailure {
    // A 429 is a usage limit only when it says quota; a per-minute rate limit is an API error.
    if (USAGE_LIMIT.test(message) || (status === 429 && /quota/i.test(message))) {
      const resetsAt = resetFromMessage(message)
      return { kind: 'usage_limit', message, ...(resetsAt !== undefined ? { resetsAt } : {}) }
    }
    if (name === 'ProviderAuthError') return { kind: 'auth_error', message }
    if (name === 'APIError') return { kind: 'api_error', message }
    return { kind: 'error', message }
  }

  protected override end(exit?: AgentExit): void {
    if (this.steps === 0 && !exit?.killed)
      this.notes.push('opencode reported no step_finish: its cost is unknown')
    const summary = `[done] ${this.steps} steps · $${(this.totals.reportedUsd ?? 0).toFixed(4)}`
    if (this.steps > 0) this.emit({ kind: 'result', isError: this.isError === true, summary })
  }
}

export const opencodePreset: AgentPreset = {
  name: 'opencode',
  jsonStream: true,
  argv: userArgv => opencodeArgv(userArgv),
  read: (_prompt, hooks) => new OpencodeStreamReader(hooks)
}

export const opencodePlainPreset: AgentPreset = {
  name: 'opencode',
  jsonStream: false,
  argv: userArgv => [...userArgv],
  read: prompt => genericReader(prompt)
}
