import { claudePreset, LineSplitter, type UsageReport } from '../../src/agents/index.js'

function run(lines: string[], chunkSize = 7) {
  const usage: UsageReport[] = []
  const transcript: string[] = []
  const reader = claudePreset.read('prompt', {
    onUsage: u => usage.push(u),
    onTranscript: l => transcript.push(l)
  })
  const stream = Buffer.from(lines.join('\n') + '\n')
  // Arbitrary chunk boundaries, as a pipe delivers them.
  for (let i = 0; i < stream.length; i += chunkSize) reader.stdout(stream.subarray(i, i + chunkSize))
  return { outcome: reader.finish(''), usage, transcript }
}

const init = JSON.stringify({ type: 'system', subtype: 'init', session_id: 's1', model: 'claude-sonnet-4-5' })
const turn = (id: string, text: string, output: number) =>
  JSON.stringify({
    type: 'assistant',
    message: {
      id,
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text }],
      usage: { input_tokens: 100, output_tokens: output, cache_read_input_tokens: 10 }
    }
  })
const toolUse = (id: string) =>
  JSON.stringify({
    type: 'assistant',
    message: {
      id,
      content: [{ type: 'tool_use', name: 'Bash', input: { command: 'npm test' } }],
      usage: { input_tokens: 100, output_tokens: 5 }
    }
  })
const result = JSON.stringify({
  type: 'result',
  subtype: 'success',
  is_error: false,
  result: 'Fixed it.\n\n<promise>COMPLETE</promise>',
  total_cost_usd: 0.0123,
  num_turns: 2,
  usage: { input_tokens: 200, output_tokens: 25, cache_read_input_tokens: 10, cache_creation_input_tokens: 3 }
})

test('the final message is the result text and the cost is the reported one', () => {
  const { outcome } = run([init, turn('m1', 'Looking.', 20), result])
  expect(outcome.finalMessage).toBe('Fixed it.\n\n<promise>COMPLETE</promise>')
  expect(outcome.isError).toBe(false)
  expect(outcome.usage).toEqual({
    input: 200,
    output: 25,
    cache_read: 10,
    cache_write: 3,
    model: 'claude-sonnet-4-5',
    reportedUsd: 0.0123
  })
})

test('per-turn usage is reported live, once per message id, summed over turns', () => {
  const { usage } = run([init, turn('m1', 'a', 20), turn('m1', 'b', 20), toolUse('m2')])
  expect(usage.map(u => u.output)).toEqual([20, 20, 25])
  expect(usage.at(-1)).toMatchObject({ input: 200, cache_read: 10, model: 'claude-sonnet-4-5' })
})

test('per-turn usage keeps the 1-hour cache writes apart, so they are priced at 2× input (#35)', () => {
  const hour = (id: string) =>
    JSON.stringify({
      type: 'assistant',
      message: {
        id,
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'a' }],
        usage: {
          input_tokens: 10,
          output_tokens: 5,
          cache_creation_input_tokens: 3000,
          cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 }
        }
      }
    })
  const { usage } = run([init, hour('m1'), hour('m2')])
  expect(usage.at(-1)).toMatchObject({ cache_write: 6000, cache_write_1h: 4000 })
})

test('a stream cut off before its result gives no final message but keeps the usage seen so far', () => {
  const { outcome } = run([init, turn('m1', 'a', 20)])
  expect(outcome.finalMessage).toBeUndefined()
  expect(outcome.usage).toMatchObject({ input: 100, output: 20 })
  expect(outcome.notes).toContain('the stream ended without a result event')
})

test('the transcript is readable: text, one line per tool call, the result', () => {
  const { transcript } = run([init, 'not json at all', turn('m1', 'Looking.', 20), toolUse('m2'), result])
  expect(transcript).toEqual([
    '[session s1] model claude-sonnet-4-5',
    'not json at all',
    'Looking.',
    '→ Bash npm test',
    '[result] success · $0.0123 · 2 turns',
    'Fixed it.\n\n<promise>COMPLETE</promise>'
  ])
})

test('is_error is read even when the subtype says success', () => {
  const { outcome } = run([
    JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: 'API Error: 500' })
  ])
  expect(outcome.isError).toBe(true)
})

test('a line too long to hold is skipped and noted, and the stream goes on', () => {
  const lines: string[] = []
  const oversized: number[] = []
  const splitter = new LineSplitter(
    l => lines.push(l),
    n => oversized.push(n),
    10
  )
  splitter.push(Buffer.from('short\n0123456789ABCDEF\nnext'))
  splitter.end()
  expect(lines).toEqual(['short', 'next'])
  expect(oversized).toEqual([16])
})
