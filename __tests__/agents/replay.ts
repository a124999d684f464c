// Feeds a recorded stream through a preset the way a pipe delivers it (arbitrary chunks), and collects what
// the preset made of it: normalised events, transcript lines, live usage, the outcome.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type {
  AgentEvent,
  AgentExit,
  AgentOutcome,
  AgentPreset,
  AgentRunContext,
  UsageReport
} from '../../src/agents/index.js'

export const STREAMS = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'streams')

export const fixture = (name: string): string => readFileSync(join(STREAMS, name), 'utf8')

export interface Replay {
  outcome: AgentOutcome
  events: AgentEvent[]
  transcript: string[]
  usage: UsageReport[]
}

export function replay(
  preset: AgentPreset,
  text: string,
  options: { exit?: AgentExit; context?: AgentRunContext; chunkSize?: number; prompt?: string } = {}
): Replay {
  const events: AgentEvent[] = []
  const transcript: string[] = []
  const usage: UsageReport[] = []
  const reader = preset.read(
    options.prompt ?? 'prompt',
    {
      onUsage: u => usage.push(u),
      onTranscript: line => transcript.push(line),
      onEvent: event => events.push(event)
    },
    options.context
  )
  const bytes = Buffer.from(text)
  const size = options.chunkSize ?? 97
  for (let i = 0; i < bytes.length; i += size) reader.stdout(bytes.subarray(i, i + size))
  const outcome = reader.finish(text, options.exit ?? { code: 0, signal: null, killed: false })
  return { outcome, events, transcript, usage }
}

export const exited = (code: number): AgentExit => ({ code, signal: null, killed: false })
export const killed: AgentExit = { code: null, signal: 'SIGKILL', killed: true }
