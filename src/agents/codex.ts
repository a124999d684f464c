// Codex (`codex exec`). With `--json` it prints JSONL: thread.started, turn.started, item.started/updated/
// completed (agent_message, reasoning, command_execution, file_change, mcp_tool_call, web_search, todo_list,
// error), turn.completed{usage}, turn.failed{error}, and top-level `error` (also "Reconnecting... n/N").
// It names no model and no dollars: the model comes from the command line or $CODEX_HOME/config.toml,
// and the cost is estimated from the price table. The stream says the usage only in turn.completed, at the
// end; turn by turn it comes from codex's own session log, $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-
// <thread id>.jsonl, whose `token_count` events (total_token_usage) codex 0.169 writes after each model
// response: so a dollar budget can stop a codex run mid-way.
import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { hasOption, insertAfter, optionValue, programStem, subcommandIndex } from './argv.js'
import { genericReader } from './generic.js'
import { LineSplitter } from './lines.js'
import { WatchedFile } from './watched-file.js'
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
import type {
  AgentExit,
  AgentFailure,
  AgentPreset,
  AgentRunContext,
  AgentRunHooks,
  UsageReport
} from './types.js'

const EXEC = ['exec', 'e']
const JSON_FLAGS = ['--json', '--experimental-json']
/** How often the session log is read while codex runs. */
const SESSION_POLL_MS = 250

/** `codex exec …` (or its alias `codex e …`): the only codex command a loop can run headless. */
export function isCodexExec(argv: string[]): boolean {
  return programStem(argv[0]) === 'codex' && subcommandIndex(argv, EXEC) !== -1
}

/** The user's argv with `--json` right after `exec`, unless it is there already. */
export function codexArgv(userArgv: string[]): string[] {
  if (hasOption(userArgv, JSON_FLAGS)) return [...userArgv]
  return insertAfter(userArgv, subcommandIndex(userArgv, EXEC), ['--json'])
}

const unquote = (value: string): string => value.trim().replace(/^["']|["']$/g, '')

/** The top-level `model = "…"` of a config.toml (before its first [table]). */
export function modelInConfigToml(text: string): string | undefined {
  for (const line of text.split('\n')) {
    if (/^\s*\[/.test(line)) return undefined
    const match = /^\s*model\s*=\s*(["'])([^"']+)\1/.exec(line)
    if (match) return match[2]
  }
  return undefined
}

/** $CODEX_HOME, or ~/.codex. */
export const codexHomeOf = (env: NodeJS.ProcessEnv): string =>
  env.CODEX_HOME || path.join(env.HOME || os.homedir(), '.codex')

const pad = (n: number): string => String(n).padStart(2, '0')

/**
 * The session log of thread `threadId`, once codex has made it. Its folder is named after the date codex
 * saw (local time); a run near midnight, or a clock in another zone, is found a day apart too.
 */
export function codexSessionLog(codexHome: string, threadId: string, now = Date.now()): string | undefined {
  const days = new Set<string>()
  for (const offset of [0, -1, 1]) {
    const day = new Date(now + offset * 86400000)
    days.add(path.join(String(day.getFullYear()), pad(day.getMonth() + 1), pad(day.getDate())))
    days.add(path.join(String(day.getUTCFullYear()), pad(day.getUTCMonth() + 1), pad(day.getUTCDate())))
  }
  for (const day of days) {
    const dir = path.join(codexHome, 'sessions', day)
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      continue
    }
    const name = names.find(file => file.startsWith('rollout-') && file.endsWith(`-${threadId}.jsonl`))
    if (name) return path.join(dir, name)
  }
  return undefined
}

/** The model codex will use: `-m`/`--model`, `-c model=…`, then $CODEX_HOME/config.toml (~/.codex). */
export function codexModel(argv: string[], env: NodeJS.ProcessEnv): string | undefined {
  const flag = optionValue(argv, ['-m', '--model'])
  if (flag) return flag
  let fromConfig: string | undefined
  const tokens = argv.slice(1)
  tokens.forEach((token, i) => {
    const setting =
      token === '-c' || token === '--config'
        ? tokens[i + 1]
        : token.startsWith('--config=')
          ? token.slice(9)
          : undefined
    const match = setting ? /^model\s*=\s*(.+)$/.exec(setting) : null
    if (match) fromConfig = unquote(match[1])
  })
  if (fromConfig) return fromConfig
  try {
    return modelInConfigToml(readFileSync(path.join(codexHomeOf(env), 'config.toml'), 'utf8'))
  } catch {
    return undefined
  }
}

interface CodexTotals {
  input: number
  cached: number
  cacheWrite: number
  output: number
}

class CodexStreamReader extends JsonLinesReader {
  private readonly totals: CodexTotals = { input: 0, cached: 0, cacheWrite: 0, output: 0 }
  private sawUsage = false
  private lastError?: string
  /** The session log, read while codex runs: usage after each model response. */
  private session?: WatchedFile
  private liveTokens = 0

  constructor(
    hooks: AgentRunHooks,
    private readonly model: string | undefined,
    private readonly codexHome?: string
  ) {
    super(hooks)
  }

  override finish(stdoutText: string, exit?: AgentExit) {
    this.session?.close()
    return super.finish(stdoutText, exit)
  }

  /** Follows the thread's session log from the moment the stream names the thread. */
  private followSession(threadId: string): void {
    const home = this.codexHome
    if (!home || this.session || !/^[\w-]+$/.test(threadId)) return
    const lines = new LineSplitter(line => this.onSessionLine(line))
    this.session = new WatchedFile({
      find: () => codexSessionLog(home, threadId),
      pollMs: SESSION_POLL_MS,
      mode: 'appended',
      onData: chunk => lines.push(chunk)
    })
  }

  private onSessionLine(line: string): void {
    if (!line.includes('"token_count"')) return
    let event: unknown
    try {
      event = JSON.parse(line)
    } catch {
      return
    }
    const payload = isObject(event) && isObject(event.payload) ? event.payload : {}
    const info = isObject(payload.info) ? payload.info : {}
    const total = isObject(info.total_token_usage) ? info.total_token_usage : undefined
    if (payload.type !== 'token_count' || !total) return
    const tokens = num(total.input_tokens) + num(total.output_tokens)
    // turn.completed already said as much (or more): the stream is the final word.
    if (tokens <= this.liveTokens) return
    this.liveTokens = tokens
    this.emit({
      kind: 'usage',
      usage: this.report({
        input: num(total.input_tokens),
        cached: num(total.cached_input_tokens),
        cacheWrite: num(total.cache_write_input_tokens),
        output: num(total.output_tokens)
      })
    })
  }

  /** input_tokens counts the cached ones too (as the Responses API does): priced apart. */
  private report(totals: CodexTotals): UsageReport {
    const report: UsageReport = {
      input: Math.max(0, totals.input - totals.cached - totals.cacheWrite),
      output: totals.output,
      cache_read: totals.cached,
      cache_write: totals.cacheWrite
    }
    if (this.model) report.model = this.model
    return report
  }

  protected override end(exit?: AgentExit): void {
    if (!this.sawUsage && !exit?.killed) this.notes.push('codex reported no usage (no turn.completed)')
    if (exit?.killed && !this.sawUsage)
      this.notes.push(
        this.liveTokens > 0
          ? 'codex was stopped before turn.completed: its usage is what its session log said so far'
          : 'codex was stopped before turn.completed: its usage is unknown'
      )
    if (!this.model)
      this.notes.push(
        'codex did not say its model (set -m or model in config.toml) so its tokens cannot be priced'
      )
    if (this.session && this.session.path === undefined)
      this.notes.push(
        `codex's session log (${this.codexHome}/sessions/…) was not found: its usage was known only at the end`
      )
  }

  protected onJson(event: Json): void {
    switch (event.type) {
      case 'thread.started':
        if (typeof event.thread_id === 'string') this.followSession(event.thread_id)
        this.emit({
          kind: 'notice',
          message: `[thread ${String(event.thread_id ?? '?')}] model ${this.model ?? '?'}`
        })
        break
      case 'item.started':
        if (isObject(event.item)) this.onItemStarted(event.item)
        break
      case 'item.completed':
        if (isObject(event.item)) this.onItemCompleted(event.item)
        break
      case 'turn.completed':
        this.onUsage(isObject(event.usage) ? event.usage : {})
        break
      case 'turn.failed':
        this.onTurnFailed(isObject(event.error) ? str(event.error.message) : undefined)
        break
      case 'error':
        this.onError(str(event.message) ?? JSON.stringify(event))
        break
    }
  }

  private onItemStarted(item: Json): void {
    if (item.type === 'command_execution')
      this.emit({ kind: 'tool_call', name: 'exec', detail: oneLine(str(item.command) ?? '') })
    else if (item.type === 'mcp_tool_call')
      this.emit({
        kind: 'tool_call',
        name: `${String(item.server ?? 'mcp')}.${String(item.tool ?? '?')}`,
        detail: describeToolInput(item.arguments)
      })
  }

  private onItemCompleted(item: Json): void {
    switch (item.type) {
      case 'agent_message': {
        const text = str(item.text) ?? ''
        this.finalMessage = text
        this.emit({ kind: 'text', text })
        break
      }
      case 'command_execution': {
        const output = oneLine(str(item.aggregated_output) ?? '', 120)
        const code = item.exit_code
        this.emit({
          kind: 'tool_result',
          ok: code === 0,
          detail: `exit ${code === null || code === undefined ? '?' : String(code)}${output ? ` ${output}` : ''}`
        })
        break
      }
      case 'file_change': {
        const changes = Array.isArray(item.changes) ? item.changes.filter(isObject) : []
        const detail = changes.map(c => `${String(c.kind ?? '?')} ${String(c.path ?? '?')}`).join(', ')
        this.emit({ kind: 'tool_call', name: 'apply_patch', detail: oneLine(detail) })
        if (item.status === 'failed')
          this.emit({ kind: 'tool_result', ok: false, detail: 'the patch failed' })
        break
      }
      case 'mcp_tool_call':
        this.emit({
          kind: 'tool_result',
          ok: item.status !== 'failed',
          detail: oneLine(JSON.stringify(item.result ?? item.error ?? ''), 120)
        })
        break
      case 'web_search':
        this.emit({ kind: 'tool_call', name: 'web_search', detail: oneLine(str(item.query) ?? '') })
        break
      case 'error':
        this.emit({ kind: 'error', message: oneLine(str(item.message) ?? '', 300) })
        break
    }
  }

  private onUsage(usage: Json): void {
    this.sawUsage = true
    this.totals.input += num(usage.input_tokens)
    this.totals.cached += num(usage.cached_input_tokens)
    this.totals.cacheWrite += num(usage.cache_write_input_tokens)
    this.totals.output += num(usage.output_tokens)
    this.liveTokens = Math.max(this.liveTokens, this.totals.input + this.totals.output)
    const report = this.report(this.totals)
    this.emit({ kind: 'usage', usage: report })
    const cached = report.cache_read > 0 ? ` · ${report.cache_read} cached` : ''
    this.emit({
      kind: 'result',
      isError: false,
      summary: `[turn completed] ${report.input} input${cached} · ${report.output} output tokens`
    })
  }

  private onError(message: string): void {
    if (/^Reconnecting\.\.\./.test(message)) {
      this.retries++
      this.lastRetryError = oneLine(message.replace(/^Reconnecting\.\.\.\s*\S+\s*/, ''), 160)
      this.emit({ kind: 'notice', message: `[api retry] ${oneLine(message, 200)}` })
      return
    }
    this.lastError = message
    this.emit({ kind: 'error', message: oneLine(message, 300) })
  }

  private onTurnFailed(message: string | undefined): void {
    const said = oneLine(message ?? this.lastError ?? 'turn failed', 300)
    this.isError = true
    this.failure = this.failureOf(said)
    this.emit({ kind: 'result', isError: true, summary: `[turn failed] ${said}` })
  }

  private failureOf(message: string): AgentFailure {
    if (USAGE_LIMIT.test(message)) {
      const resetsAt = resetFromMessage(message)
      return { kind: 'usage_limit', message, ...(resetsAt !== undefined ? { resetsAt } : {}) }
    }
    return { kind: 'api_error', message }
  }
}

/** codex exec with --json (added unless the user gave it): the JSONL reader. */
export const codexPreset: AgentPreset = {
  name: 'codex',
  jsonStream: true,
  argv: userArgv => codexArgv(userArgv),
  read: (_prompt, hooks, context?: AgentRunContext) =>
    new CodexStreamReader(
      hooks,
      context ? codexModel(context.argv, context.env) : undefined,
      context ? codexHomeOf(context.env) : undefined
    )
}

/** codex exec run exactly as written, without --json (ralphify's argv): read as plain text. */
export const codexPlainPreset: AgentPreset = {
  name: 'codex',
  jsonStream: false,
  argv: userArgv => [...userArgv],
  read: prompt => genericReader(prompt)
}

/** Whether the user already asked codex for JSON output. */
export const codexAskedForJson = (argv: string[]): boolean => hasOption(argv, JSON_FLAGS)
