// The completion signal in a running loop: only the agent's final message counts.
import { mkdirSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { harness, type Harness } from './harness.js'

let h: Harness
beforeEach(() => {
  h = harness()
})
afterEach(() => h.cleanup())

function agentSaying(text: string): string {
  return h.script('agent.sh', `cat >/dev/null\ncat <<'ANSWER'\n${text}\nANSWER`)
}

test('without gates, the tag in the final message ends the loop as completed', async () => {
  h.writeRalph(`agent: ${agentSaying('Everything is done.\n\n<promise>COMPLETE</promise>')}`, 'Work.')
  const { result } = await h.run({ maxIterations: 5 })
  expect(result).toMatchObject({ stopReason: 'completed', success: true })
  expect(result.iterations).toHaveLength(1)
  expect(result.iterations[0]).toMatchObject({ verdict: 'completed', completion: { tag: true, given: true } })
  expect(result.iterations[0].agent?.finalMessage).toBe('<promise>COMPLETE</promise>')
})

test('a negated tag does not end the loop', async () => {
  h.writeRalph(`agent: ${agentSaying('I will not output <promise>COMPLETE</promise> yet')}`, 'Work.')
  const { result } = await h.run({ maxIterations: 2 })
  expect(result.stopReason).toBe('max_iterations')
  expect(result.iterations.every(it => !it.completion.given)).toBe(true)
})

test('a quoted tag does not end the loop', async () => {
  h.writeRalph(
    `agent: ${agentSaying('The loop wants me to print `<promise>COMPLETE</promise>` when done.')}`,
    'Work.'
  )
  const { result } = await h.run({ maxIterations: 1 })
  expect(result.stopReason).toBe('max_iterations')
})

test('an agent that echoes a prompt holding the tag does not end the loop', async () => {
  h.writeRalph('agent: cat\ncredit: false', 'Fix things. When done, print:\n\n<promise>COMPLETE</promise>')
  const { result } = await h.run({ maxIterations: 2 })
  expect(result.stopReason).toBe('max_iterations')
  expect(result.iterations.map(it => it.completion.given)).toEqual([false, false])
})

test("an agent that echoes the loop status section's tag does not pass the gates' tag requirement", async () => {
  h.writeRalph('agent: cat\nchecks:\n  - name: ok\n    run: "true"', 'Fix things.')
  const { result } = await h.run({ maxIterations: 2 })
  expect(result.stopReason).toBe('max_iterations')
  expect(result.iterations.map(it => it.verdict)).toEqual(['checks_passed_no_tag', 'checks_passed_no_tag'])
  expect(result.iterations.map(it => it.completion.given)).toEqual([false, false])
})

test('the tag on stderr is not the final message', async () => {
  const agent = h.script('agent.sh', "cat >/dev/null; echo '<promise>COMPLETE</promise>' >&2; echo 'working'")
  h.writeRalph(`agent: ${agent}`, 'Work.')
  const { result } = await h.run({ maxIterations: 1 })
  expect(result.stopReason).toBe('max_iterations')
})

test('a tag followed by more paragraphs of a plain agent is not at the end of its output', async () => {
  h.writeRalph(`agent: ${agentSaying('<promise>COMPLETE</promise>\n\nThen I ran more tools:\nok')}`, 'Work.')
  const { result } = await h.run({ maxIterations: 1 })
  expect(result.stopReason).toBe('max_iterations')
})

test('a RALPH_STATUS block with EXIT_SIGNAL: true completes the loop', async () => {
  const block =
    '---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTESTS_STATUS: PASSING\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---'
  h.writeRalph(`agent: ${agentSaying(`Summary of work.\n\n${block}`)}`, 'Work.')
  const { result } = await h.run({ maxIterations: 3 })
  expect(result.stopReason).toBe('completed')
  expect(result.iterations[0].completion).toEqual({ tag: false, statusExit: true, given: true })
})

test('EXIT_SIGNAL: false overrides STATUS: COMPLETE', async () => {
  const block = '---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---'
  h.writeRalph(`agent: ${agentSaying(block)}`, 'Work.')
  const { result } = await h.run({ maxIterations: 1 })
  expect(result.stopReason).toBe('max_iterations')
  expect(result.iterations[0].completion).toEqual({ tag: false, statusExit: false, given: false })
})

test('a configured tag replaces COMPLETE', async () => {
  h.writeRalph(`agent: ${agentSaying('<promise>SHIPPED</promise>')}\ncompletion_tag: SHIPPED`, 'Work.')
  const { result } = await h.run({ maxIterations: 2 })
  expect(result.stopReason).toBe('completed')
})

function fakeClaude(lines: string[]): string {
  const bin = path.join(h.tools, 'bin')
  mkdirSync(bin, { recursive: true })
  const script = h.script('claude.sh', `cat >/dev/null\ncat <<'STREAM'\n${lines.join('\n')}\nSTREAM`)
  symlinkSync(script, path.join(bin, 'claude'))
  return path.join(bin, 'claude')
}

test("claude: the result text is the final message; the tag in tool output or earlier turns doesn't count", async () => {
  const tagInTool = JSON.stringify({
    type: 'user',
    message: { content: [{ type: 'tool_result', content: 'grep: <promise>COMPLETE</promise>' }] }
  })
  const turn = JSON.stringify({
    type: 'assistant',
    message: {
      id: 'm1',
      content: [{ type: 'text', text: '<promise>COMPLETE</promise>' }],
      usage: { output_tokens: 3 }
    }
  })
  const notDone = JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: 'Not done.',
    total_cost_usd: 0.25
  })
  h.writeRalph(`agent: ${fakeClaude([tagInTool, turn, notDone])} -p`, 'Work.')
  const { result } = await h.run({ maxIterations: 2 })
  expect(result.stopReason).toBe('max_iterations')
  expect(result.cost).toMatchObject({ totalUsd: 0.5, source: 'reported', enforced: true })
  expect(result.iterations[0].agent).toMatchObject({
    finalMessage: 'Not done.',
    stream: 'logs/iteration-001/agent.jsonl'
  })
})

test('claude: the tag in the result text completes the loop', async () => {
  const done = JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: 'All done.\n\n<promise>COMPLETE</promise>',
    total_cost_usd: 0.01
  })
  h.writeRalph(`agent: ${fakeClaude([done])} -p`, 'Work.')
  const { result } = await h.run({ maxIterations: 3 })
  expect(result.stopReason).toBe('completed')
  expect(result.cost.totalUsd).toBe(0.01)
})
