// Usage turn by turn for the agents whose stream says it only at the end: gemini (its local telemetry
// file) and codex (its session log), read while the agent runs so a dollar budget can stop it mid-way.
// Fed with what the real CLIs wrote (recorded by the live tier's probes, paths normalised).
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { codexPreset, geminiPreset, type AgentRunReader, type UsageReport } from '../../src/agents/index.js'
import { codexSessionLog } from '../../src/agents/codex.js'
import { waitFor } from '../loop/harness.js'
import { exited, fixture, killed } from './replay.js'

let home: string
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'live-usage-'))
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

function reader(
  preset: typeof geminiPreset,
  env: NodeJS.ProcessEnv
): { read: AgentRunReader; usage: UsageReport[]; transcript: string[] } {
  const usage: UsageReport[] = []
  const transcript: string[] = []
  const read = preset.read(
    'prompt',
    { onUsage: u => usage.push(u), onTranscript: line => transcript.push(line) },
    { argv: [preset.name], env, cwd: home }
  )
  return { read, usage, transcript }
}

/** The telemetry fixture's top-level values (pretty-printed JSON, one after another). */
const telemetryValues = (): string[] =>
  fixture('gemini-telemetry.json')
    .split(/(?<=^\})\n/m)
    .filter(value => value.trim() !== '')
    .map(value => `${value.trimEnd()}\n`)

describe('gemini: its local telemetry file', () => {
  it('says each response’s usage while the stream says none; the result’s stats stay the final word', async () => {
    const { read, usage } = reader(geminiPreset, {})
    const file = read.env?.GEMINI_TELEMETRY_OUTFILE
    expect(read.env).toMatchObject({ GEMINI_TELEMETRY_ENABLED: 'true', GEMINI_TELEMETRY_TARGET: 'local' })
    expect(file).toBeDefined()
    read.stdout(Buffer.from('{"type":"init","session_id":"s","model":"gemini-2.5-flash"}\n'))
    const [config, fallback, first, second] = telemetryValues()
    // As gemini's exporter writes it: a batch at a time, a value split across writes.
    appendFileSync(file!, config + fallback + first.slice(0, 1000))
    appendFileSync(file!, first.slice(1000))
    await waitFor(() => usage.length === 1, 'the first response’s usage')
    expect(usage[0]).toEqual({
      input: 1000,
      output: 50,
      cache_read: 0,
      cache_write: 0,
      model: 'gemini-2.5-flash'
    })
    appendFileSync(file!, second)
    await waitFor(() => usage.length === 2, 'the second response’s usage')
    expect(usage[1]).toMatchObject({ input: 2200, output: 80 })

    read.stdout(
      Buffer.from(
        '{"type":"result","status":"success","stats":{"input_tokens":2200,"output_tokens":80,"total_tokens":2280}}\n'
      )
    )
    const outcome = read.finish('', exited(0))
    expect(outcome.usage).toMatchObject({ input: 2200, output: 80, model: 'gemini-2.5-flash' })
    expect(usage).toHaveLength(3)
    // The file lived in a folder of its own, removed with the run.
    expect(existsSync(dirname(file!))).toBe(false)
  })

  it('a killed run’s usage is what the telemetry said so far (the last batch read at the end)', () => {
    const { read } = reader(geminiPreset, {})
    const [, , first] = telemetryValues()
    appendFileSync(read.env!.GEMINI_TELEMETRY_OUTFILE, first)
    const outcome = read.finish('', killed)
    expect(outcome.usage).toMatchObject({ input: 1000, output: 50 })
  })

  it('leaves a user’s own telemetry settings alone: no file, and the record says why usage waits for the end', () => {
    const { read } = reader(geminiPreset, { GEMINI_TELEMETRY_TARGET: 'gcp' })
    expect(read.env).toBeUndefined()
    const outcome = read.finish('', exited(0))
    expect(outcome.notes).toContain(
      "gemini's own telemetry settings are in its environment (GEMINI_TELEMETRY_TARGET): its usage is known only when a run ends"
    )
  })
})

describe('codex: its session log', () => {
  const thread = '01a2165b-a1c8-7f82-990b-db63bf15ca96'
  const today = (): string => {
    const now = new Date()
    const pad = (n: number): string => String(n).padStart(2, '0')
    return join(String(now.getFullYear()), pad(now.getMonth() + 1), pad(now.getDate()))
  }

  it('gives the usage after each model response, before turn.completed; turn.completed settles it', async () => {
    const log = join(home, 'sessions', today(), `rollout-2026-11-26T05-37-13-${thread}.jsonl`)
    const { read, usage } = reader(codexPreset, { CODEX_HOME: home, HOME: home })
    read.stdout(Buffer.from(`{"type":"thread.started","thread_id":"${thread}"}\n`))
    // codex makes its log a moment after it names the thread.
    mkdirSync(dirname(log), { recursive: true })
    const lines = fixture('codex-session-log.jsonl').split('\n')
    const firstCount = lines.findIndex(line => line.includes('"token_count"'))
    writeFileSync(log, `${lines.slice(0, firstCount + 1).join('\n')}\n`)
    await waitFor(() => usage.length === 1, 'the first response’s usage')
    expect(usage[0]).toEqual({ input: 1000, output: 50, cache_read: 0, cache_write: 0 })
    appendFileSync(log, `${lines.slice(firstCount + 1).join('\n')}\n`)
    await waitFor(() => usage.length === 2, 'the second response’s usage')
    expect(usage[1]).toMatchObject({ input: 1100, output: 70 })

    read.stdout(
      Buffer.from(
        '{"type":"turn.completed","usage":{"input_tokens":1100,"cached_input_tokens":0,"output_tokens":70}}\n'
      )
    )
    const outcome = read.finish('', exited(0))
    expect(outcome.usage).toMatchObject({ input: 1100, output: 70 })
    // The same totals again from turn.completed: reported once more as the final word, not added.
    expect(usage.at(-1)).toMatchObject({ input: 1100, output: 70 })
    expect(existsSync(log)).toBe(true)
  })

  it('a run killed before turn.completed keeps what its session log said', async () => {
    const log = join(home, 'sessions', today(), `rollout-x-${thread}.jsonl`)
    mkdirSync(dirname(log), { recursive: true })
    writeFileSync(log, fixture('codex-session-log.jsonl'))
    const { read } = reader(codexPreset, { CODEX_HOME: home })
    read.stdout(Buffer.from(`{"type":"thread.started","thread_id":"${thread}"}\n`))
    const outcome = read.finish('', killed)
    expect(outcome.usage).toMatchObject({ input: 1100, output: 70 })
    expect(outcome.notes).toContain(
      'codex was stopped before turn.completed: its usage is what its session log said so far'
    )
  })

  it('finds the log in the folder of the day before (a run that crossed midnight)', () => {
    const now = Date.parse('2026-11-26T00:00:30')
    const dir = join(home, 'sessions', '2026', '11', '25')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, `rollout-2026-11-25T23-59-59-${thread}.jsonl`), '')
    expect(codexSessionLog(home, thread, now)).toBe(join(dir, `rollout-2026-11-25T23-59-59-${thread}.jsonl`))
    expect(codexSessionLog(home, 'another-thread', now)).toBeUndefined()
  })
})
