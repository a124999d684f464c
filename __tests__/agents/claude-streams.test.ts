// The claude preset on the real streams of Claude Code 2.1.332 (recorded by the live tier) and one
// hand-made stream of the documented rate_limit_event.
import { claudeArgv, claudePreset, formatBudget, priceFromTable } from '../../src/agents/index.js'
import { exited, fixture, killed, replay } from './replay.js'

test('success: the result text is the final message, modelUsage the tokens, total_cost_usd the cost', () => {
  const { outcome, usage, transcript } = replay(claudePreset, fixture('claude-success.jsonl'))
  expect(outcome.finalMessage).toBe('I created hello.txt and showed it.')
  expect(outcome.isError).toBe(false)
  expect(outcome.failure).toBeUndefined()
  expect(outcome.usage).toEqual({
    input: 4300,
    output: 185,
    cache_read: 22000,
    cache_write: 2000,
    model: 'claude-sonnet-4-5',
    reportedUsd: 0.029775000000000003
  })
  // Live usage before the result: per turn, summed (claude prints output_tokens 1 there).
  expect(usage.slice(0, 3).map(u => [u.input, u.output, u.cache_read])).toEqual([
    [3000, 1, 10000],
    [3500, 2, 10000],
    [4300, 3, 22000]
  ])
  // The price table prices the final tokens exactly as claude did.
  expect(priceFromTable(outcome.usage!)).toBeCloseTo(outcome.usage!.reportedUsd!, 12)
  expect(transcript[0]).toMatch(/^\[session [0-9a-f-]+\] model claude-sonnet-4-5$/)
  expect(transcript).toContain('→ Write /tmp/ralph-live/work/hello.txt')
  expect(transcript).toContain('→ Bash cat hello.txt')
  expect(transcript.some(line => line.startsWith('← result: hello from the scripted model'))).toBe(true)
  expect(transcript).toContain('[result] success · $0.0298 · 3 turns')
})

test('an API error is a failure although the subtype says success (is_error, exit 1)', () => {
  const { outcome, transcript } = replay(claudePreset, fixture('claude-api-error.jsonl'), { exit: exited(1) })
  expect(outcome.isError).toBe(true)
  expect(outcome.failure).toMatchObject({
    kind: 'api_error',
    message: expect.stringMatching(/^API Error: 529/)
  })
  // The synthetic assistant message carries no usage; the result costs nothing.
  expect(outcome.usage).toMatchObject({ input: 0, output: 0, reportedUsd: 0 })
  expect(transcript).toContain('[result] success (error) · $0.0000 · 1 turns')
})

test('is_error counts even when the exit code is 0', () => {
  const text = fixture('claude-api-error.jsonl')
  const { outcome } = replay(claudePreset, text, { exit: exited(0) })
  expect(outcome.isError).toBe(true)
  expect(outcome.failure?.kind).toBe('api_error')
})

test('an invalid request is an API error too', () => {
  const { outcome } = replay(claudePreset, fixture('claude-invalid-request.jsonl'), { exit: exited(1) })
  expect(outcome.failure).toMatchObject({
    kind: 'api_error',
    message: 'API Error: 400 scripted invalid_request_error'
  })
})

test('API retries are counted and shown; the failure is the final API error', () => {
  const { outcome, transcript } = replay(claudePreset, fixture('claude-api-retry.jsonl'), { exit: exited(1) })
  expect(outcome.apiRetries).toBe(2)
  expect(transcript.filter(line => line.startsWith('[api retry'))).toEqual([
    '[api retry 1/2] status 529',
    '[api retry 2/2] status 529'
  ])
  expect(outcome.failure?.kind).toBe('api_error')
})

test('a retry storm is named in the notes', () => {
  const retry = (n: number) =>
    JSON.stringify({ type: 'system', subtype: 'api_retry', attempt: n, max_retries: 10, error_status: 529 })
  const { outcome } = replay(claudePreset, [1, 2, 3, 4].map(retry).join('\n') + '\n', { exit: killed })
  expect(outcome.apiRetries).toBe(4)
  expect(outcome.notes).toContain(
    'API-retry storm: the agent retried the model API 4 times (last error: 529)'
  )
})

test('a stream that broke mid-answer ends in an API error that still costs the broken requests', () => {
  const { outcome } = replay(claudePreset, fixture('claude-abrupt-end.jsonl'), { exit: exited(1) })
  expect(outcome.failure?.kind).toBe('api_error')
  expect(outcome.failure?.message).toMatch(/Connection dropped|ECONNRESET|API Error/)
  expect(outcome.apiRetries).toBe(1)
  // modelUsage counts both broken streams (12 output tokens), result.usage only the last (2).
  expect(outcome.usage).toMatchObject({ input: 200, output: 12, reportedUsd: 0.0007800000000000001 })
})

test('denied permissions are recorded with the tool and what it tried; the run itself succeeds', () => {
  const { outcome, transcript } = replay(claudePreset, fixture('claude-permission-denied.jsonl'))
  expect(outcome.permissionDenials).toEqual([{ tool: 'Write', detail: '/etc/ralph-live-denied.txt' }])
  expect(outcome.isError).toBe(false)
  expect(outcome.failure).toBeUndefined()
  expect(transcript).toContain('[permission denied] Write: Path is outside allowed working directories')
})

test('claude stopping at --max-budget-usd is a budget failure, priced by claude', () => {
  const { outcome } = replay(claudePreset, fixture('claude-max-budget.jsonl'), { exit: exited(1) })
  expect(outcome.failure).toMatchObject({ kind: 'budget', message: 'Reached maximum budget ($0.05)' })
  expect(outcome.usage).toMatchObject({ input: 100000, output: 2000, reportedUsd: 0.33000000000000007 })
})

test('a run killed mid-turn has no result: no final message, the per-turn usage so far, no failure', () => {
  const { outcome } = replay(claudePreset, fixture('claude-killed-mid-run.jsonl'), { exit: killed })
  expect(outcome.finalMessage).toBeUndefined()
  expect(outcome.failure).toBeUndefined()
  expect(outcome.usage).toEqual({
    input: 100000,
    output: 1,
    cache_read: 0,
    cache_write: 0,
    model: 'claude-sonnet-4-5'
  })
  expect(outcome.notes).toContain('the stream ended without a result event')
  // Estimated from the price table while no dollar figure exists.
  expect(priceFromTable(outcome.usage!)).toBeCloseTo(0.300015, 9)
})

test('a rejected rate_limit_event (hand-made from the documented shape) is a usage limit with its reset time', () => {
  const { outcome, transcript } = replay(claudePreset, fixture('claude-usage-limit.jsonl'), {
    exit: exited(1)
  })
  expect(outcome.isError).toBe(true)
  expect(outcome.failure).toEqual({
    kind: 'usage_limit',
    message: "claude's five_hour usage limit was reached, resets at 2026-11-22T18:00:00.000Z",
    resetsAt: 1795370400 * 1000
  })
  expect(transcript).toContain('[rate limit] rejected (five_hour), resets at 2026-11-22T18:00:00.000Z')
})

test('a usage-limit result without a rate_limit_event takes its reset time from the message', () => {
  const result = JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: true,
    result: "You've hit your limit · resets 6pm (UTC)",
    api_error_status: 429
  })
  const { outcome } = replay(claudePreset, result + '\n', { exit: exited(1) })
  expect(outcome.failure?.kind).toBe('usage_limit')
  expect(new Date(outcome.failure!.resetsAt!).getUTCHours()).toBe(18)
  expect(outcome.failure!.resetsAt!).toBeGreaterThan(Date.now())
})

describe('claude argv', () => {
  it('keeps the reference flags first, then the caps, only when set and not already given', () => {
    expect(claudeArgv(['claude', '-p'])).toEqual([
      'claude',
      '-p',
      '--output-format',
      'stream-json',
      '--verbose'
    ])
    expect(claudeArgv(['claude', '-p'], { remainingUsd: 0.4213337, maxTurns: 12 })).toEqual([
      'claude',
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--max-budget-usd',
      '0.421333',
      '--max-turns',
      '12'
    ])
    expect(
      claudeArgv(['claude', '-p', '--max-budget-usd=1', '--max-turns', '3'], {
        remainingUsd: 0.5,
        maxTurns: 9
      })
    ).toEqual([
      'claude',
      '-p',
      '--max-budget-usd=1',
      '--max-turns',
      '3',
      '--output-format',
      'stream-json',
      '--verbose'
    ])
  })

  it('never rounds the remaining budget up', () => {
    expect(formatBudget(0.1234569)).toBe('0.123456')
    expect(formatBudget(-1)).toBe('0')
    expect(formatBudget(5)).toBe('5')
  })
})

test('a per-minute rate limit (429) that claude gave up retrying is an API error, not a usage limit', () => {
  const result = JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: true,
    result:
      'API Error: 429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit',
    api_error_status: 429
  })
  expect(replay(claudePreset, result + '\n', { exit: exited(1) }).outcome.failure?.kind).toBe('api_error')
})

test('a context-window message is not taken for a usage limit', () => {
  const result = JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: true,
    result: 'Context limit reached'
  })
  expect(replay(claudePreset, result + '\n', { exit: exited(1) }).outcome.failure?.kind).toBe('error')
})
