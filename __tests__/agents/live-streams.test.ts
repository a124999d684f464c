// The presets on what the real gemini, opencode and qwen CLIs printed against the scripted servers (recorded by
// the live tier with RECORD_STREAMS=1; the live tests check each recording still has the stream's shape).
import { geminiPreset, opencodePreset, priceFromTable, qwenPreset } from '../../src/agents/index.js'
import { exited, fixture, replay } from './replay.js'

describe('qwen (0.24.4): Claude Code’s shape, no dollars', () => {
  it('success: the result’s text is the final message; each turn’s usage is metered, priced from the table', () => {
    const { outcome, usage, transcript } = replay(qwenPreset, fixture('qwen-success.jsonl'), {
      chunkSize: 61
    })
    expect(outcome).toMatchObject({ finalMessage: 'I created hello.txt and showed it.', isError: false })
    expect(outcome.failure).toBeUndefined()
    // Cumulative after each turn (the server reported 3000/120, 500/40, 800/25), then the result's sums.
    expect(usage.map(u => [u.input, u.output])).toEqual([
      [3000, 120],
      [3500, 160],
      [4300, 185],
      [4300, 185]
    ])
    expect(outcome.usage).toEqual({
      input: 4300,
      output: 185,
      cache_read: 0,
      cache_write: 0,
      model: 'qwen3-coder-plus'
    })
    expect(outcome.usage?.reportedUsd).toBeUndefined()
    expect(priceFromTable(outcome.usage!)).toBeCloseTo((4300 * 1 + 185 * 5) / 1e6, 12)
    expect(transcript.filter(line => line.startsWith('→ '))).toEqual([
      '→ run_shell_command printf "hello from the scripted model\\n" > hello.txt',
      '→ run_shell_command cat hello.txt'
    ])
    expect(transcript).toContain('[result] success · 3 turns')
  })

  it('an API error: is_error with the error named, as an API error', () => {
    const { outcome } = replay(qwenPreset, fixture('qwen-api-error.jsonl'), { exit: exited(1) })
    expect(outcome).toMatchObject({
      isError: true,
      failure: { kind: 'api_error', message: '[API Error: 400 scripted invalid_request_error]' }
    })
  })
})

describe('gemini (0.61.0)', () => {
  it('success: the text after the last tool call; usage from the result’s stats', () => {
    const { outcome, transcript } = replay(geminiPreset, fixture('gemini-live-success.jsonl'), {
      chunkSize: 29
    })
    expect(outcome.finalMessage).toBe('I created hello.txt and showed it.')
    expect(outcome.usage).toMatchObject({ input: 4300, output: 185, model: 'gemini-2.5-flash' })
    expect(transcript.filter(line => line.startsWith('→ '))).toHaveLength(2)
    expect(transcript.at(-1)).toBe('[result] success · 2 tool calls')
  })

  it('an API error: a result with status error, named an API error', () => {
    const { outcome } = replay(geminiPreset, fixture('gemini-live-api-error.jsonl'), { exit: exited(1) })
    expect(outcome).toMatchObject({ isError: true, failure: { kind: 'api_error' } })
    expect(outcome.failure?.message).toContain('scripted INVALID_ARGUMENT')
  })
})

describe('opencode (1.18.33)', () => {
  it('success: the steps’ reported dollars summed, the transcript closed by [done]', () => {
    const { outcome, transcript } = replay(opencodePreset, fixture('opencode-live-success.jsonl'))
    expect(outcome.finalMessage).toBe('I created hello.txt.')
    const cost = (3000 * 3 + 120 * 15 + 800 * 3 + 25 * 15) / 1e6
    // No model in its steps: none is needed, the dollars are its own.
    expect(outcome.usage).toMatchObject({ input: 3800, output: 145 })
    expect(outcome.usage?.reportedUsd).toBeCloseTo(cost, 10)
    expect(transcript.at(-1)).toBe(`[done] 2 steps · $${cost.toFixed(4)}`)
  })

  it('an API error: an APIError record, named an API error', () => {
    const { outcome } = replay(opencodePreset, fixture('opencode-live-api-error.jsonl'), { exit: exited(1) })
    expect(outcome).toMatchObject({
      isError: true,
      failure: { kind: 'api_error', message: 'scripted invalid_request_error' }
    })
  })
})
