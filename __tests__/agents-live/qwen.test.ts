// The real qwen-code CLI (pinned in scripts/install-agent-clis.json) against the scripted Chat Completions
// server: Claude Code's stream shape with per-turn usage and no dollars, an API error, the recorded streams.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TEST_MODELS } from '../support/agents.js'
import { always, httpError, text, toolCall } from '../support/model-server/index.js'
import { describeWithAgent, liveCli } from './live.js'

const qwen = liveCli('qwen', () => ['-y', '--output-format', 'stream-json'])

const shell = (command: string, usage: { input: number; output: number }) =>
  toolCall('run_shell_command', { command, description: 'Run a scripted command' }, { usage })

describeWithAgent('qwen')('the real qwen CLI against a scripted Chat Completions server', () => {
  it('runs shell commands on a real file; each turn says its usage, the result sums it, no dollars', async () => {
    const usage = [
      { input: 3000, output: 120 },
      { input: 500, output: 40 },
      { input: 800, output: 25 }
    ]
    const run = await qwen.run('success: two shell calls, text', [
      shell('printf "hello from the scripted model\\n" > hello.txt', usage[0]),
      shell('cat hello.txt', usage[1]),
      text('I created hello.txt and showed it.', { usage: usage[2] })
    ])

    expect(run.exitCode).toBe(0)
    expect(readFileSync(join(qwen.workspace.cwd, 'hello.txt'), 'utf8')).toBe(
      'hello from the scripted model\n'
    )
    expect(qwen.server.problems).toEqual([])
    expect(qwen.server.requests.map(request => `${request.method} ${request.url}`)).toEqual(
      Array(3).fill('POST /v1/chat/completions')
    )
    expect(run.events[0]).toMatchObject({ type: 'system', subtype: 'init', model: TEST_MODELS.qwen })
    const assistant = run.events.filter(event => event.type === 'assistant')
    expect(
      assistant.map(event => (event.message as { usage: { input_tokens: number } }).usage.input_tokens)
    ).toEqual(usage.map(turn => turn.input))
    const result = run.events.at(-1)!
    const sum = (key: 'input' | 'output') => usage.reduce((total, turn) => total + turn[key], 0)
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'I created hello.txt and showed it.',
      usage: { input_tokens: sum('input'), output_tokens: sum('output') }
    })
    expect('total_cost_usd' in result).toBe(false)
    qwen.record('qwen-success.jsonl', run)
  })

  // qwen registers its ripgrep-backed Grep only when its vendored rg runs (the tarball ships it 0644, which no
  // user, root included, may exec); otherwise it falls back to a JavaScript grep with another description.
  it('searches with its vendored rg: the tool it offers is the ripgrep one, and its result finds the file', async () => {
    writeFileSync(join(qwen.workspace.cwd, 'needle.txt'), 'a line with needle-7f3e in it\n')
    const run = await qwen.run('search: grep_search, text', [
      toolCall('grep_search', { pattern: 'needle-7f3e' }, { usage: { input: 900, output: 30 } }),
      text('needle.txt has it.', { usage: { input: 400, output: 10 } })
    ])

    expect(run.exitCode).toBe(0)
    expect(qwen.server.problems).toEqual([])
    type Tool = { function: { name: string; description: string } }
    const [first, second] = qwen.server.requests.map(
      request => request.body as { tools?: Tool[]; messages: unknown[] }
    )
    const grep = first.tools?.find(tool => tool.function.name === 'grep_search')
    expect(grep?.function.description).toMatch(/^A powerful search tool built on ripgrep/)
    const answer = JSON.stringify(second.messages.at(-1))
    expect(answer).toContain('needle.txt')
    expect(answer).toContain('needle-7f3e')
  })

  it('reports an HTTP 400 as an error result and exits non-zero', async () => {
    const run = await qwen.run('api error: 400', always(httpError(400, 'invalid_request_error')))

    expect(run.exitCode).not.toBe(0)
    expect(run.events.at(-1)).toMatchObject({ type: 'result', is_error: true })
    qwen.record('qwen-api-error.jsonl', run)
  })
})
