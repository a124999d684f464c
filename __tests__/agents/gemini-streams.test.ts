// The gemini preset on hand-made streams whose shape follows gemini-cli's source (see the fixtures README):
// packages/core/src/output/types.ts (events), stream-json-formatter.ts (stats), cli/src/utils/errors.ts
// (error results and exit codes).
import {
  geminiArgv,
  geminiPreset,
  isGeminiCommand,
  presetFor,
  priceFromTable
} from '../../src/agents/index.js'
import { exited, fixture, replay } from './replay.js'

test('success: deltas make one text per turn; the final message is the text after the last tool call', () => {
  const { outcome, transcript } = replay(geminiPreset, fixture('gemini-success.jsonl'), { chunkSize: 13 })
  expect(outcome.finalMessage).toBe('answer.txt now holds 42.\n\n<promise>COMPLETE</promise>')
  expect(outcome.isError).toBe(false)
  expect(outcome.failure).toBeUndefined()
  expect(transcript).toEqual([
    expect.stringMatching(/^\[session .+\] model gemini-2\.5-pro$/),
    "I'll write the answer now.",
    '→ write_file /tmp/ralph-live/work/answer.txt',
    '← result: Successfully created and wrote to new file: /tmp/ralph-live/work/answer.txt.',
    '→ run_shell_command cat answer.txt missing.txt',
    '← error: Command exited with code 1: cat: missing.txt: No such file or directory',
    'answer.txt now holds 42.\n\n<promise>COMPLETE</promise>',
    '[result] success · 2 tool calls'
  ])
})

test('usage: cached input priced apart, thinking tokens (total minus input minus output) as output', () => {
  const { outcome } = replay(geminiPreset, fixture('gemini-success.jsonl'))
  expect(outcome.usage).toEqual({
    input: 5800,
    output: 570,
    cache_read: 9000,
    cache_write: 0,
    model: 'gemini-2.5-pro'
  })
  expect(priceFromTable(outcome.usage!)).toBeCloseTo((5800 * 1.25 + 570 * 10 + 9000 * 0.125) / 1e6, 12)
})

test('the turn limit (exit 53) is a max_turns failure, from the error result', () => {
  const { outcome } = replay(geminiPreset, fixture('gemini-turn-limit.jsonl'), { exit: exited(53) })
  expect(outcome.isError).toBe(true)
  expect(outcome.failure).toMatchObject({
    kind: 'max_turns',
    message: expect.stringContaining('max session turns')
  })
})

test('the exit code alone says what failed when the stream does not (42: input, 53: turns)', () => {
  const init = JSON.stringify({ type: 'init', session_id: 's', model: 'gemini-2.5-pro' }) + '\n'
  expect(replay(geminiPreset, init, { exit: exited(42) }).outcome.failure?.kind).toBe('input_error')
  expect(replay(geminiPreset, init, { exit: exited(53) }).outcome.failure?.kind).toBe('max_turns')
  expect(replay(geminiPreset, init, { exit: exited(41) }).outcome.failure?.kind).toBe('auth_error')
  expect(replay(geminiPreset, init, { exit: exited(1) }).outcome.failure?.kind).toBe('error')
})

test('an exhausted quota is a usage limit with its reset time', () => {
  const before = Date.now()
  const { outcome } = replay(geminiPreset, fixture('gemini-quota.jsonl'), { exit: exited(1) })
  expect(outcome.failure?.kind).toBe('usage_limit')
  expect(outcome.failure!.resetsAt! - before).toBeGreaterThanOrEqual(9000 * 1000)
  expect(outcome.failure!.resetsAt! - before).toBeLessThan(9010 * 1000)
})

test('--output-format json: the one object at the end gives the response and the usage', () => {
  const json = JSON.stringify(
    {
      session_id: 's',
      response: 'Done.\n<promise>COMPLETE</promise>',
      stats: {
        models: {
          'gemini-2.5-flash': {
            tokens: { prompt: 1000, candidates: 50, total: 1080, cached: 400, thoughts: 30, tool: 0 }
          }
        }
      }
    },
    null,
    2
  )
  const { outcome } = replay(geminiPreset, json)
  expect(outcome.finalMessage).toBe('Done.\n<promise>COMPLETE</promise>')
  expect(outcome.usage).toEqual({
    input: 600,
    output: 80,
    cache_read: 400,
    cache_write: 0,
    model: 'gemini-2.5-flash'
  })
})

describe('gemini argv', () => {
  it('adds --output-format stream-json unless a format was chosen', () => {
    expect(isGeminiCommand(['/opt/bin/gemini', '-y'])).toBe(true)
    expect(geminiArgv(['gemini', '-y'])).toEqual(['gemini', '-y', '--output-format', 'stream-json'])
    expect(geminiArgv(['gemini', '-o', 'json'])).toEqual(['gemini', '-o', 'json'])
    expect(geminiArgv(['gemini', '--output-format=stream-json'])).toEqual([
      'gemini',
      '--output-format=stream-json'
    ])
  })

  it('runs text output as plain text, and as written in reference mode', () => {
    expect(presetFor(['gemini', '-o', 'text'], { presets: true })).toMatchObject({
      name: 'gemini',
      jsonStream: false
    })
    expect(presetFor(['gemini', '-y'], { presets: true, flags: 'reference' }).argv(['gemini', '-y'])).toEqual(
      ['gemini', '-y']
    )
    expect(presetFor(['gemini', '-o', 'stream-json'], { presets: true, flags: 'reference' }).jsonStream).toBe(
      true
    )
  })
})
