// The CLI console shows the agent live: the readable transcript of JSON-stream agents, a plain agent's output,
// then the failure and denials the preset found.
import { consoleRenderer } from '../../src/cli/console.js'
import type { AgentRun, LoopEvent } from '../../src/loop/index.js'

function render(events: LoopEvent[]): string {
  let out = ''
  const renderer = consoleRenderer({ out: text => (out += text) })
  events.forEach(renderer)
  return out
}

const run = (over: Partial<AgentRun>): AgentRun => ({
  preset: 'claude',
  argv: ['claude'],
  exitCode: 0,
  signal: null,
  timedOut: false,
  success: true,
  durationMs: 10,
  usage: { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: 0, cost_source: 'reported' },
  log: 'logs/iteration-001/agent.log',
  notes: [],
  ...over
})

test('a JSON-stream agent: the transcript lines, not the raw JSON; then what failed', () => {
  const out = render([
    {
      type: 'agent_started',
      iteration: 1,
      argv: ['claude'],
      promptFile: 'p',
      preset: 'claude',
      transcript: true
    },
    { type: 'agent_output', iteration: 1, stream: 'stdout', chunk: Buffer.from('{"type":"assistant"}\n') },
    { type: 'agent_transcript', iteration: 1, line: '→ Bash npm test' },
    { type: 'agent_transcript', iteration: 1, line: '[result] success (error) · $0.0000 · 1 turns' },
    {
      type: 'agent_finished',
      iteration: 1,
      agent: run({
        success: false,
        isError: true,
        failure: { kind: 'usage_limit', message: 'five_hour limit', resetsAt: '2026-11-22T18:00:00.000Z' },
        permissionDenials: [{ tool: 'Write', detail: '/etc/x' }]
      })
    }
  ])
  expect(out).toBe(
    '→ Bash npm test\n[result] success (error) · $0.0000 · 1 turns\n' +
      '  ✗ usage limit: five_hour limit\n  ! permission denied: Write (/etc/x)\n'
  )
})

test("a plain agent's output is shown as it arrives, a missing final newline added", () => {
  const out = render([
    {
      type: 'agent_started',
      iteration: 1,
      argv: ['a.sh'],
      promptFile: 'p',
      preset: 'generic',
      transcript: false
    },
    { type: 'agent_output', iteration: 1, stream: 'stdout', chunk: Buffer.from('working') },
    { type: 'agent_output', iteration: 1, stream: 'stderr', chunk: Buffer.from('… done') },
    { type: 'agent_finished', iteration: 1, agent: run({ preset: 'generic' }) }
  ])
  expect(out).toBe('working… done\n')
})
