// Any program that reads the prompt on stdin. Its output is plain text; the final message is its end.
// It may report its cost two ways (README, "Cost of your own agent"): a line on stdout or stderr
// (`ralph-cost: usd=0.0123 input=1200 output=340`, or any line matching a configured pattern with named
// groups), or a JSON file at the path in $RALPH_COST_FILE. Each report is the run's total so far.
import { LineSplitter } from './lines.js'
import { RETRY_STORM } from './stream.js'
import { WatchedFile } from './watched-file.js'
import type {
  AgentExit,
  AgentFailure,
  AgentOutcome,
  AgentPreset,
  AgentRunHooks,
  AgentRunReader,
  UsageReport
} from './types.js'

/** Characters of the prompt's end looked for in the output to recognise an echo of the prompt. */
const ECHO_PROBE_CHARS = 200

/**
 * The final message of a plain-text agent, precisely:
 * 1. stdout only (stderr is logs and tool noise), with CRLF/CR read as LF;
 * 2. when the output contains the end of the prompt (the last 200 characters of the trimmed prompt),
 *    only what follows its last occurrence counts: an agent that echoes the prompt (`cat`, a CLI that
 *    prints the user turn) never answers with the prompt's own words;
 * 3. of that, the last paragraph: the lines after the last blank line, trailing blank lines ignored;
 *    when that paragraph closes a `---RALPH_STATUS---` block that began earlier, the whole block.
 * Undefined when nothing is left.
 */
export function finalMessageFromOutput(stdout: string, prompt: string): string | undefined {
  let text = stdout.replace(/\r\n?/g, '\n')
  const probe = prompt.replace(/\r\n?/g, '\n').trimEnd().slice(-ECHO_PROBE_CHARS)
  if (probe.trim() !== '') {
    const echoed = text.lastIndexOf(probe)
    if (echoed !== -1) text = text.slice(echoed + probe.length)
  }
  text = text.trimEnd()
  if (text.trim() === '') return undefined
  const lines = text.split('\n')
  let start = lines.length - 1
  while (start > 0 && lines[start - 1].trim() !== '') start--
  const paragraph = lines.slice(start)
  const closesBlock = paragraph.some(line => line.trim() === '---END_RALPH_STATUS---')
  const opensBlock = paragraph.some(line => line.trim() === '---RALPH_STATUS---')
  if (closesBlock && !opensBlock) {
    for (let i = start - 1; i >= 0; i--) {
      if (lines[i].trim() === '---RALPH_STATUS---') {
        start = i
        break
      }
    }
  }
  return lines.slice(start).join('\n')
}

/** How a generic agent reports its cost. */
export interface AgentCostOptions {
  /**
   * A regular expression (JavaScript syntax) tried on every line of stdout and stderr, with named groups
   * `usd`, `input`, `output`, `cache_read`, `cache_write` and `model` (any of them). Each match is the run's
   * total so far. The built-in `ralph-cost:` line is always read as well.
   */
  pattern?: string
  /** The variable that carries the cost file's path; default RALPH_COST_FILE, '' = no file. */
  fileEnv?: string
}

export const COST_FILE_ENV = 'RALPH_COST_FILE'
/** How often the cost file is read while the agent runs (live enforcement of the dollar budget). */
export const COST_FILE_POLL_MS = 250

const COST_LINE = /^\s*ralph-cost:\s*(.*)$/i
const FIELDS = ['usd', 'input', 'output', 'cache_read', 'cache_write'] as const

/** A cost report's fields from JSON or `key=value` pairs; undefined when it holds nothing usable. */
export function parseCostReport(text: string): UsageReport | undefined {
  const values: Record<string, string> = {}
  const trimmed = text.trim()
  if (trimmed.startsWith('{')) {
    try {
      const json = JSON.parse(trimmed) as Record<string, unknown>
      for (const [key, value] of Object.entries(json))
        if (typeof value === 'number' || typeof value === 'string') values[key] = String(value)
    } catch {
      return undefined
    }
  } else {
    for (const match of trimmed.matchAll(/([A-Za-z_]+)\s*=\s*("[^"]*"|\S+)/g))
      values[match[1].toLowerCase()] = match[2].replace(/^"|"$/g, '')
    const bare = /^\$?(\d+(?:\.\d+)?)\s*(?:usd)?$/i.exec(trimmed)
    if (bare) values.usd = bare[1]
  }
  return costFromValues(values)
}

function costFromValues(values: Record<string, string | undefined>): UsageReport | undefined {
  const usdText = values.usd ?? values.cost_usd ?? values.total_cost_usd
  const number = (key: string): number => {
    const n = Number((values[key] ?? '').replace(/[$,_]/g, ''))
    return Number.isFinite(n) && n >= 0 ? n : 0
  }
  const report: UsageReport = {
    input: number('input'),
    output: number('output'),
    cache_read: number('cache_read'),
    cache_write: number('cache_write')
  }
  if (usdText !== undefined) {
    const usd = Number(usdText.replace(/[$,_]/g, ''))
    if (Number.isFinite(usd) && usd >= 0) report.reportedUsd = usd
  }
  if (values.model) report.model = values.model
  const anything = report.reportedUsd !== undefined || FIELDS.some(f => values[f] !== undefined)
  return anything ? report : undefined
}

/** The cost line pattern, compiled once: one that does not compile is a configuration error. */
export function compileCostPattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern)
  } catch (error) {
    throw new Error(
      `The cost pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${(error as Error).message}`,
      { cause: error }
    )
  }
}

/** What a plain-text preset's line parser may say about the run. */
export interface PlainSink {
  report(usage: UsageReport): void
  fail(failure: AgentFailure): void
  retried(): void
}

interface PlainReaderOptions {
  cost?: AgentCostOptions
  /** Extra line parsing (aider's "Tokens: … Cost: …"), for stdout and stderr lines alike. */
  onLine?: (line: string, sink: PlainSink) => void
  /** What the final message may not contain (aider's status lines). */
  clean?: (stdout: string) => string
  /** Exit codes the agent documents, as failures (gemini's 41, 42, 53…). */
  exitFailures?: Record<number, AgentFailure>
}

class PlainReader implements AgentRunReader {
  readonly env?: Record<string, string>
  private readonly out: LineSplitter
  private readonly err: LineSplitter
  private readonly pattern?: RegExp
  private usage?: UsageReport
  private failure?: AgentFailure
  private retries = 0
  private readonly notes: string[] = []
  private readonly sink: PlainSink = {
    report: usage => this.report(usage),
    fail: failure => (this.failure = failure),
    retried: () => this.retries++
  }
  private costFile?: WatchedFile

  constructor(
    private readonly prompt: string,
    private readonly hooks?: AgentRunHooks,
    private readonly options: PlainReaderOptions = {}
  ) {
    const onLine = (line: string): void => this.onLine(line)
    this.out = new LineSplitter(onLine)
    this.err = new LineSplitter(onLine)
    if (options.cost?.pattern) this.pattern = compileCostPattern(options.cost.pattern)
    const fileEnv = options.cost?.fileEnv ?? COST_FILE_ENV
    if (hooks && options.cost && fileEnv !== '') {
      const costFile = WatchedFile.named({
        name: 'cost.json',
        pollMs: COST_FILE_POLL_MS,
        mode: 'rewritten',
        onChange: (text, final) => this.onCostFile(text, final, fileEnv)
      })
      this.costFile = costFile
      this.env = { [fileEnv]: costFile.path }
    }
  }

  stdout(chunk: Buffer): void {
    this.out.push(chunk)
  }

  stderr(chunk: Buffer): void {
    this.err.push(chunk)
  }

  finish(stdoutText: string, exit?: AgentExit): AgentOutcome {
    this.out.end()
    this.err.end()
    this.costFile?.close()
    const text = this.options.clean ? this.options.clean(stdoutText) : stdoutText
    const finalMessage = finalMessageFromOutput(text, this.prompt)
    const outcome: AgentOutcome = {
      ...(finalMessage !== undefined ? { finalMessage } : {}),
      notes: this.notes
    }
    if (this.usage) outcome.usage = this.usage
    const byExit =
      exit && !exit.killed && exit.code !== null ? this.options.exitFailures?.[exit.code] : undefined
    const failure = this.failure ?? byExit
    if (failure) outcome.failure = failure
    if (this.retries > 0) outcome.apiRetries = this.retries
    if (this.retries >= RETRY_STORM)
      this.notes.push(`API-retry storm: the agent retried the model API ${this.retries} times`)
    return outcome
  }

  private report(usage: UsageReport): void {
    this.usage = usage
    this.hooks?.onUsage(usage)
    this.hooks?.onEvent?.({ kind: 'usage', usage })
  }

  private onLine(line: string): void {
    if (!this.hooks) return
    const builtIn = this.options.cost ? COST_LINE.exec(line) : null
    if (builtIn) {
      const usage = parseCostReport(builtIn[1])
      if (usage) this.report(usage)
      return
    }
    if (this.pattern) {
      const match = this.pattern.exec(line)
      if (match?.groups) {
        const usage = costFromValues(match.groups)
        if (usage) this.report(usage)
        return
      }
    }
    this.options.onLine?.(line, this.sink)
  }

  /** A new version of the cost file; `final` (the run is over) notes a file that holds no report. */
  private onCostFile(text: string, final: boolean, variable: string): boolean {
    const usage = parseCostReport(text)
    if (usage) this.report(usage)
    // While the agent runs, a half-written file is read again at the next poll.
    else if (final)
      this.notes.push(`the cost file ($${variable}) held no cost report: ${text.trim().slice(0, 120)}`)
    return usage !== undefined
  }
}

/** A reader of plain-text output (the generic final message; cost lines and the cost file when hooked). */
export function genericReader(
  prompt: string,
  hooks?: AgentRunHooks,
  options: PlainReaderOptions = {}
): AgentRunReader {
  return new PlainReader(prompt, hooks, options)
}

export { PlainReader }
export type { PlainReaderOptions }

/** The generic preset, reading cost reports as `cost` says. */
export function genericPresetWith(cost: AgentCostOptions = {}): AgentPreset {
  if (cost.pattern) compileCostPattern(cost.pattern)
  return {
    name: 'generic',
    jsonStream: false,
    argv: userArgv => [...userArgv],
    read: (prompt, hooks) => genericReader(prompt, hooks, { cost })
  }
}

export const genericPreset: AgentPreset = genericPresetWith()
