// The codex preset on the real streams of codex 0.169.0 (recorded by the live tier).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  codexArgv,
  codexModel,
  codexPreset,
  isCodexExec,
  modelInConfigToml,
  priceFromTable,
  type AgentRunContext
} from '../../src/agents/index.js'
import { exited, fixture, killed, replay } from './replay.js'

const context = (argv: string[], env: NodeJS.ProcessEnv = {}): AgentRunContext => ({ argv, env, cwd: '/tmp' })
const withModel = context(['codex', 'exec', '--json', '-m', 'gpt-5.5', '-'])

test('success: the last agent_message is the final message; turn.completed usage, cached input priced apart', () => {
  const { outcome, transcript, usage } = replay(codexPreset, fixture('codex-success.jsonl'), {
    context: withModel
  })
  expect(outcome.finalMessage).toBe('I created hello.txt; missing.txt does not exist.')
  expect(outcome.failure).toBeUndefined()
  // input_tokens 24950 includes the 22200 cached ones.
  expect(outcome.usage).toEqual({
    input: 2750,
    output: 295,
    cache_read: 22200,
    cache_write: 0,
    model: 'gpt-5.5'
  })
  // Usage arrives once, at the end: codex cannot be metered while it runs.
  expect(usage).toHaveLength(1)
  expect(priceFromTable(outcome.usage!)).toBeCloseTo((2750 * 5 + 295 * 30 + 22200 * 0.5) / 1e6, 12)
  expect(transcript).toEqual([
    expect.stringMatching(/^\[thread [0-9a-f-]+\] model gpt-5\.5$/),
    'Let me look around first.',
    "→ exec /bin/bash -lc 'ls -a'",
    '← result: exit 0 . ..',
    '→ apply_patch add /tmp/ralph-live/work/hello.txt',
    "→ exec /bin/bash -lc 'cat hello.txt missing.txt'",
    '← error: exit 1 hello from the scripted model cat: missing.txt: No such file or directory',
    'I created hello.txt; missing.txt does not exist.',
    '[turn completed] 2750 input · 22200 cached · 295 output tokens'
  ])
})

test('without a model it cannot be priced, and says why', () => {
  const { outcome } = replay(codexPreset, fixture('codex-success.jsonl'), {
    context: context(['codex', 'exec', '-'])
  })
  expect(outcome.usage?.model).toBeUndefined()
  expect(priceFromTable(outcome.usage!)).toBeUndefined()
  expect(outcome.notes.some(note => note.includes('did not say its model'))).toBe(true)
})

test('turn.failed is an API error with the error message', () => {
  const { outcome } = replay(codexPreset, fixture('codex-turn-failed.jsonl'), {
    exit: exited(1),
    context: withModel
  })
  expect(outcome.isError).toBe(true)
  expect(outcome.failure).toMatchObject({
    kind: 'api_error',
    message: expect.stringContaining('scripted invalid_request_error')
  })
})

test('"Reconnecting... n/N" errors are API retries, then the failure', () => {
  const { outcome, transcript } = replay(codexPreset, fixture('codex-reconnecting.jsonl'), {
    exit: exited(1)
  })
  expect(outcome.apiRetries).toBe(2)
  expect(transcript.filter(line => line.startsWith('[api retry]'))).toHaveLength(2)
  expect(outcome.failure).toMatchObject({
    kind: 'api_error',
    message: expect.stringContaining('high demand')
  })
})

test('a stream that ended abruptly and a response.failed are API errors', () => {
  for (const name of ['codex-abrupt-end.jsonl', 'codex-response-failed.jsonl']) {
    const { outcome } = replay(codexPreset, fixture(name), { exit: exited(1) })
    expect(outcome.failure).toMatchObject({
      kind: 'api_error',
      message: expect.stringContaining('stream disconnected')
    })
  }
})

test('a usage limit is named as one (codex says no reset time here)', () => {
  const { outcome } = replay(codexPreset, fixture('codex-usage-limit.jsonl'), { exit: exited(1) })
  expect(outcome.failure).toEqual({
    kind: 'usage_limit',
    message: expect.stringContaining('hit your usage limit')
  })
  expect(outcome.failure?.resetsAt).toBeUndefined()
})

test('a usage limit that says when to try again gets a reset time', () => {
  const failed = JSON.stringify({
    type: 'turn.failed',
    error: { message: "You've hit your usage limit. Upgrade to Pro or try again in 2 hours 5 minutes." }
  })
  const before = Date.now()
  const { outcome } = replay(codexPreset, failed + '\n', { exit: exited(1) })
  expect(outcome.failure?.kind).toBe('usage_limit')
  expect(outcome.failure!.resetsAt! - before).toBeGreaterThanOrEqual(7500 * 1000)
  expect(outcome.failure!.resetsAt! - before).toBeLessThan(7510 * 1000)
})

test('a run killed mid-command has no usage at all', () => {
  const { outcome } = replay(codexPreset, fixture('codex-killed-mid-run.jsonl'), {
    exit: killed,
    context: withModel
  })
  expect(outcome.usage).toBeUndefined()
  expect(outcome.failure).toBeUndefined()
  expect(outcome.notes).toContain('codex was stopped before turn.completed: its usage is unknown')
})

describe('codex argv and model', () => {
  it('recognises codex exec (and its alias e), not the interactive codex', () => {
    expect(isCodexExec(['codex', 'exec', '-'])).toBe(true)
    expect(isCodexExec(['/usr/local/bin/codex', '-c', 'x=1', 'e', '-'])).toBe(true)
    expect(isCodexExec(['codex'])).toBe(false)
    expect(isCodexExec(['codex-wrapper', 'exec'])).toBe(false)
  })

  it('puts --json right after exec, and never twice', () => {
    expect(codexArgv(['codex', 'exec', '--sandbox', 'danger-full-access', '-'])).toEqual([
      'codex',
      'exec',
      '--json',
      '--sandbox',
      'danger-full-access',
      '-'
    ])
    expect(codexArgv(['codex', 'exec', '-', '--json'])).toEqual(['codex', 'exec', '-', '--json'])
    expect(codexArgv(['codex', 'exec', '--experimental-json', '-'])).toEqual([
      'codex',
      'exec',
      '--experimental-json',
      '-'
    ])
  })

  it('reads the model from -m, -c model=…, then $CODEX_HOME/config.toml', () => {
    const home = mkdtempSync(join(tmpdir(), 'ralph-codex-home-'))
    try {
      writeFileSync(
        join(home, 'config.toml'),
        '# c\nmodel = "gpt-5.4-mini"\n[model_providers.x]\nmodel = "no"\n'
      )
      expect(codexModel(['codex', 'exec', '-m', 'gpt-5.5', '-'], { CODEX_HOME: home })).toBe('gpt-5.5')
      expect(codexModel(['codex', '-c', 'model="o3"', 'exec', '-'], { CODEX_HOME: home })).toBe('o3')
      expect(codexModel(['codex', 'exec', '-'], { CODEX_HOME: home })).toBe('gpt-5.4-mini')
      expect(codexModel(['codex', 'exec', '-'], { HOME: home })).toBeUndefined()
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
    expect(modelInConfigToml('[profiles.a]\nmodel = "x"\n')).toBeUndefined()
  })
})
