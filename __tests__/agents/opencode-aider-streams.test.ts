// opencode and aider on hand-made output whose shape follows their source (see the fixtures README):
// anomalyco/opencode packages/opencode/src/cli/cmd/run.ts and session/message-v2.ts; Aider-AI/aider
// aider/coders/base_coder.py (calculate_and_show_tokens_and_cost) and aider/utils.py (format_tokens).
import {
  AiderUsage,
  aiderPreset,
  isAiderCommand,
  isOpencodeRun,
  opencodeArgv,
  opencodePreset,
  parseTokenCount,
  presetFor
} from '../../src/agents/index.js'
import { exited, fixture, replay } from './replay.js'

describe('opencode', () => {
  it('sums the reported cost and tokens over steps (reasoning as output); the final message is the last text', () => {
    const { outcome, usage, transcript } = replay(opencodePreset, fixture('opencode-success.jsonl'))
    expect(outcome.usage).toEqual({
      input: 3600,
      output: 255,
      cache_read: 27200,
      cache_write: 1500,
      reportedUsd: expect.closeTo(0.0164, 10)
    })
    // Live: one usage per step.
    expect(usage.map(u => u.reportedUsd)).toEqual([0.0123, expect.closeTo(0.0164, 10)])
    expect(outcome.finalMessage).toBe('answer.txt holds 42.\n\n<promise>COMPLETE</promise>')
    expect(outcome.failure).toBeUndefined()
    expect(transcript).toEqual([
      "I'll write the answer, then check it.",
      '→ write /tmp/ralph-live/work/answer.txt',
      '← result: answer.txt',
      '→ bash cat answer.txt',
      '← result: 42',
      'answer.txt holds 42.\n\n<promise>COMPLETE</promise>',
      '[done] 2 steps · $0.0164'
    ])
  })

  it('an error record is fatal; a 429 quota error is a usage limit with its retry time', () => {
    const before = Date.now()
    const { outcome, transcript } = replay(opencodePreset, fixture('opencode-error.jsonl'), {
      exit: exited(1)
    })
    expect(outcome.isError).toBe(true)
    expect(outcome.failure?.kind).toBe('usage_limit')
    expect(outcome.failure!.resetsAt! - before).toBeGreaterThanOrEqual(43500)
    expect(outcome.usage).toBeUndefined()
    expect(transcript).toContain(
      '[error] APIError: You exceeded your current quota, please check your plan and billing details. Please retry in 43.5s.'
    )
  })

  it('permissions it auto-rejected are denials', () => {
    const { outcome } = replay(opencodePreset, fixture('opencode-rejected.jsonl'))
    expect(outcome.permissionDenials).toEqual([{ tool: 'bash' }])
    expect(outcome.usage?.reportedUsd).toBe(0.002)
  })

  it('adds --format json after run, unless a format was given', () => {
    expect(isOpencodeRun(['opencode', 'run'])).toBe(true)
    expect(isOpencodeRun(['opencode'])).toBe(false)
    expect(opencodeArgv(['opencode', 'run', '-m', 'anthropic/claude-sonnet-4-5'])).toEqual([
      'opencode',
      'run',
      '--format',
      'json',
      '-m',
      'anthropic/claude-sonnet-4-5'
    ])
    expect(opencodeArgv(['opencode', 'run', '--format', 'default'])).toEqual([
      'opencode',
      'run',
      '--format',
      'default'
    ])
    expect(presetFor(['opencode', 'run', '--format', 'default'], { presets: true }).jsonStream).toBe(false)
  })
})

describe('aider', () => {
  it('reads the Tokens and Cost lines (k abbreviations, cache figures, Cost on its own line)', () => {
    const { outcome, usage } = replay(aiderPreset, fixture('aider-output.txt'), { chunkSize: 7 })
    expect(usage.at(-1)).toEqual({
      input: 13300,
      output: 190,
      cache_read: 10000,
      cache_write: 1200,
      reportedUsd: 0.05
    })
    expect(outcome.usage).toEqual(usage.at(-1))
    // The session cost after the first reply, live.
    expect(usage.map(u => u.reportedUsd)).toContain(0.0091)
  })

  it('keeps its status lines out of the final message', () => {
    const { outcome } = replay(aiderPreset, fixture('aider-output.txt'))
    expect(outcome.finalMessage).toBe('<promise>COMPLETE</promise>')
  })

  it('a model without a price gives tokens only', () => {
    const parser = new AiderUsage()
    expect(parser.line('Tokens: 116 sent, 30 received.')).toEqual({
      input: 116,
      output: 30,
      cache_read: 0,
      cache_write: 0
    })
    expect(parser.line('hello')).toBeUndefined()
    expect(parseTokenCount('2.5k')).toBe(2500)
    expect(parseTokenCount('12k')).toBe(12000)
    expect(parseTokenCount('1.2M')).toBe(1200000)
  })

  it('a quota error is a usage limit', () => {
    const { outcome } = replay(
      aiderPreset,
      'litellm.RateLimitError: AnthropicException - {"type":"error","error":{"type":"rate_limit_error","message":"You exceeded your current quota"}}\n'
    )
    expect(outcome.failure?.kind).toBe('usage_limit')
  })

  it('is recognised by name and inside a bash -c wrapper; no flag is added', () => {
    const wrapped = ['bash', '-c', 'aider --yes-always --no-pretty --message "$(cat -)"']
    expect(isAiderCommand(wrapped)).toBe(true)
    expect(isAiderCommand(['bash', '-c', 'OPENAI_API_KEY=x exec /usr/local/bin/aider --message hi'])).toBe(
      true
    )
    expect(isAiderCommand(['bash', '-c', 'echo aider'])).toBe(false)
    expect(presetFor(wrapped, { presets: true })).toMatchObject({ name: 'aider', jsonStream: false })
    expect(presetFor(wrapped, { presets: true }).argv(wrapped)).toEqual(wrapped)
  })
})
