// What every JSON-stream preset shares: lines read as they arrive, normalised events, a readable
// transcript, and an outcome assembled from what the events said.
import { LineSplitter } from './lines.js'
import type {
  AgentEvent,
  AgentExit,
  AgentFailure,
  AgentOutcome,
  AgentRunHooks,
  AgentRunReader,
  PermissionDenial,
  UsageReport
} from './types.js'

export type Json = Record<string, unknown>

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
export const num = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) ? value : 0
export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

/** Text on one line, at most `max` characters. */
export function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** The part of a tool's input worth a transcript line: the command, the path, the pattern… */
export function describeToolInput(input: unknown): string {
  if (typeof input === 'string') return oneLine(input)
  if (!isObject(input)) return ''
  for (const key of ['command', 'cmd', 'file_path', 'filePath', 'path', 'pattern', 'url', 'description']) {
    const value = input[key]
    if (typeof value === 'string') return oneLine(value)
    if (Array.isArray(value) && value.every(v => typeof v === 'string')) return oneLine(value.join(' '))
  }
  return oneLine(JSON.stringify(input))
}

/** The readable transcript line of an event; undefined for events that have none (usage). */
export function transcriptLine(event: AgentEvent): string | undefined {
  switch (event.kind) {
    case 'text':
      return event.text
    case 'tool_call':
      return `→ ${event.name}${event.detail ? ` ${event.detail}` : ''}`
    case 'tool_result':
      return `← ${event.ok ? 'result' : 'error'}: ${event.detail}`
    case 'usage':
      return undefined
    case 'result':
      return event.summary
    case 'error':
      return `[error] ${event.message}`
    case 'notice':
      return event.message
  }
}

const UNITS: Record<string, number> = { d: 86400, h: 3600, m: 60, min: 60, s: 1, sec: 1, ms: 0.001 }

/** Seconds in a duration like `1h2m3s`, `27.4s`, `90 seconds`, `2 hours`; undefined when there is none. */
export function parseDuration(text: string): number | undefined {
  const compact = /(\d+(?:\.\d+)?)(ms|[dhms])(?![a-z])/gi
  let total = 0
  let found = false
  for (const match of text.matchAll(compact)) {
    total += Number(match[1]) * UNITS[match[2].toLowerCase()]
    found = true
  }
  if (found) return total
  const words = /(\d+(?:\.\d+)?)\s*(day|hour|minute|min|second|sec)s?\b/gi
  for (const match of text.matchAll(words)) {
    const unit = match[2].toLowerCase()
    total +=
      Number(match[1]) * (unit === 'day' ? 86400 : unit === 'hour' ? 3600 : unit.startsWith('min') ? 60 : 1)
    found = true
  }
  return found ? total : undefined
}

/** When a usage-limit message says the limit lifts: "resets after 1h2m", "try again in 27s", an ISO date. */
export function resetFromMessage(message: string, now = Date.now()): number | undefined {
  const relative =
    /(?:resets?(?: after| in)?|retry (?:in|after)|try again in)\s+((?:\d+(?:\.\d+)?\s*[a-z]+[\s,]*(?:and\s+)?)+)/i.exec(
      message
    )
  if (relative) {
    const seconds = parseDuration(relative[1])
    if (seconds !== undefined) return now + seconds * 1000
  }
  // Claude's older "Claude AI usage limit reached|1760000000" (epoch seconds).
  const epoch = /limit reached\|(\d{10})\b/i.exec(message)
  if (epoch) return Number(epoch[1]) * 1000
  // "resets 3pm (UTC)" (claude), "try again at 3:45 PM" (codex): the next such time of day (local unless UTC).
  const clock = /(?:resets?(?: at)?|try again at) (\d{1,2})(?::(\d{2}))?\s*(am|pm)\b/i.exec(message)
  if (clock) {
    const hour = (Number(clock[1]) % 12) + (clock[3].toLowerCase() === 'pm' ? 12 : 0)
    const minute = Number(clock[2] ?? 0)
    const at = new Date(now)
    const utc = /\bUTC\b/.test(message)
    if (utc) at.setUTCHours(hour, minute, 0, 0)
    else at.setHours(hour, minute, 0, 0)
    if (at.getTime() <= now) at.setTime(at.getTime() + 24 * 3600 * 1000)
    return at.getTime()
  }
  const iso = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))\b/.exec(message)
  if (iso) {
    const at = Date.parse(iso[1])
    if (Number.isFinite(at)) return at
  }
  return undefined
}

/** Messages that mean a usage or quota limit rather than a passing API failure. */
export const USAGE_LIMIT =
  /usage limit|hit your (?:(?:usage|session|weekly|daily|monthly) )?limit|quota (?:exceeded|exhausted)|exceeded your (?:current )?quota|exhausted your (?:daily )?(?:quota|capacity)|RESOURCE_EXHAUSTED|TerminalQuotaError|usage_limit_reached|insufficient_quota/i

/** Retries reported in one run from which the record calls it an API-retry storm. */
export const RETRY_STORM = 3

/**
 * The shared reader of a JSON-lines stream. Subclasses handle parsed objects (`onJson`) and emit
 * normalised events; the outcome is assembled from what they recorded.
 */
export abstract class JsonLinesReader implements AgentRunReader {
  protected readonly notes: string[] = []
  protected usage?: UsageReport
  protected finalMessage: string | undefined
  protected isError?: boolean
  protected failure?: AgentFailure
  protected readonly denials: PermissionDenial[] = []
  protected retries = 0
  /** The last API error seen in a retry, for the storm's note. */
  protected lastRetryError?: string
  private stderrTail = ''
  private readonly lines: LineSplitter

  constructor(protected readonly hooks: AgentRunHooks) {
    this.lines = new LineSplitter(
      line => this.onLine(line),
      bytes => this.notes.push(`a stream line of ${bytes} bytes was too long to read and was skipped`)
    )
  }

  stdout(chunk: Buffer): void {
    this.lines.push(chunk)
  }

  stderr(chunk: Buffer): void {
    // Kept for the failure message of an agent that dies without saying why on stdout.
    this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000)
  }

  finish(_stdoutText: string, exit?: AgentExit): AgentOutcome {
    this.lines.end()
    this.end(exit)
    if (this.retries >= RETRY_STORM)
      this.notes.push(
        `API-retry storm: the agent retried the model API ${this.retries} times` +
          (this.lastRetryError ? ` (last error: ${this.lastRetryError})` : '')
      )
    if (!this.failure && exit && !exit.killed && exit.code !== null && exit.code !== 0) {
      const said = oneLine(this.stderrTail.trim().split('\n').slice(-3).join(' '), 300)
      this.failure = this.exitFailure(exit.code, said)
    }
    const outcome: AgentOutcome = { notes: this.notes }
    if (this.finalMessage !== undefined) outcome.finalMessage = this.finalMessage
    if (this.usage) outcome.usage = this.usage
    if (this.isError !== undefined) outcome.isError = this.isError
    if (this.failure) outcome.failure = this.failure
    if (this.denials.length > 0) outcome.permissionDenials = this.denials
    if (this.retries > 0) outcome.apiRetries = this.retries
    return outcome
  }

  /** The failure of a non-zero exit that the stream did not explain. */
  protected exitFailure(code: number, stderr: string): AgentFailure {
    return { kind: 'error', message: `the agent exited with ${code}${stderr ? `: ${stderr}` : ''}` }
  }

  /** Called once the stream has ended, before the outcome is assembled. */
  protected end(_exit?: AgentExit): void {}

  protected abstract onJson(event: Json): void

  /** A line that is not JSON (a warning printed on stdout): kept in the transcript as is. */
  protected onPlainLine(line: string): void {
    this.emit({ kind: 'text', text: line })
  }

  protected emit(event: AgentEvent): void {
    if (event.kind === 'usage') {
      this.usage = event.usage
      this.hooks.onUsage(event.usage)
    }
    this.hooks.onEvent?.(event)
    const line = transcriptLine(event)
    if (line !== undefined) this.hooks.onTranscript(line)
  }

  protected deny(denial: PermissionDenial): void {
    const same = this.denials.some(d => d.tool === denial.tool && d.detail === denial.detail)
    if (!same) this.denials.push(denial)
  }

  private onLine(line: string): void {
    if (line.trim() === '') return
    let event: unknown
    try {
      event = JSON.parse(line)
    } catch {
      this.onPlainLine(line)
      return
    }
    if (isObject(event)) this.onJson(event)
  }
}
