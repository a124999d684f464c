// Gemini CLI's usage turn by turn. Its stream-json says what a run used only in its last `result` event, so
// alone it cannot be held to a dollar budget mid-run. Its local telemetry can: with GEMINI_TELEMETRY_TARGET=local
// and an outfile, gemini 0.61 appends a `gemini_cli.api_response` log record for every model response
// (input_token_count, cached_content_token_count, output_token_count, thoughts_token_count, tool_token_count,
// model), exported in batches every 5 seconds (the OpenTelemetry BatchLogRecordProcessor's default). The file
// holds pretty-printed JSON values one after another (packages/core/src/telemetry/file-exporters.ts); the
// records' attributes are read line by line, never the whole (large) values.
import { LineSplitter } from './lines.js'
import type { UsageReport } from './types.js'
import { WatchedFile } from './watched-file.js'

/** Variables the user may have set for gemini's telemetry: then theirs stays, and no file is read. */
export const GEMINI_TELEMETRY_PREFIX = 'GEMINI_TELEMETRY_'

/** How often the telemetry file is read (it is written every 5 s). */
const POLL_MS = 500

const ATTRIBUTE =
  /^ {4}"(event\.name|model|input_token_count|output_token_count|cached_content_token_count|thoughts_token_count|tool_token_count)": (.*?),?$/

/** Reads gemini's telemetry file as it grows; `onUsage` gets the run's totals after each model response. */
export class GeminiTelemetry {
  private readonly file: WatchedFile & { readonly path: string }
  private readonly lines: LineSplitter
  private readonly totals: UsageReport = { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  /** Attributes of the top-level value being read. */
  private record = new Map<string, string>()
  responses = 0

  constructor(private readonly onUsage: (usage: UsageReport) => void) {
    this.lines = new LineSplitter(line => this.onLine(line))
    this.file = WatchedFile.named({
      name: 'telemetry.json',
      pollMs: POLL_MS,
      mode: 'appended',
      onData: chunk => this.lines.push(chunk)
    })
  }

  /** The variables that make gemini write the file: local target, no prompts logged. */
  get env(): Record<string, string> {
    return {
      GEMINI_TELEMETRY_ENABLED: 'true',
      GEMINI_TELEMETRY_TARGET: 'local',
      GEMINI_TELEMETRY_OUTFILE: this.file.path,
      GEMINI_TELEMETRY_LOG_PROMPTS: 'false'
    }
  }

  close(): void {
    this.file.close()
    this.lines.end()
  }

  private onLine(line: string): void {
    if (line === '{') this.record = new Map()
    else if (line === '}') this.endRecord()
    else {
      const match = ATTRIBUTE.exec(line)
      if (match) this.record.set(match[1], match[2])
    }
  }

  private endRecord(): void {
    const record = this.record
    this.record = new Map()
    if (record.get('event.name') !== '"gemini_cli.api_response"') return
    const count = (name: string): number => {
      const value = Number(record.get(name) ?? 0)
      return Number.isFinite(value) && value > 0 ? value : 0
    }
    // As the final stats count them: the prompt includes the cached tokens; thoughts and tool tokens are output.
    const cached = count('cached_content_token_count')
    this.totals.input += Math.max(0, count('input_token_count') - cached)
    this.totals.cache_read += cached
    this.totals.output +=
      count('output_token_count') + count('thoughts_token_count') + count('tool_token_count')
    try {
      const model = JSON.parse(record.get('model') ?? 'null') as unknown
      if (typeof model === 'string' && model) this.totals.model = model
    } catch {
      // a model we cannot read leaves the last one
    }
    this.responses++
    this.onUsage({ ...this.totals })
  }
}
