// The real Gemini CLI (pinned in scripts/install-agent-clis.json) against the scripted Gemini API server:
// its stream-json as it really is, its usage only at the end, an API error, and the recorded streams.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TEST_MODELS } from '../support/agents.js'
import { always, httpError, text, toolCall } from '../support/model-server/index.js'
import { describeWithAgent, liveCli } from './live.js'

const gemini = liveCli('gemini', () => ['-y', '--output-format', 'stream-json'])

const shell = (command: string, usage: { input: number; output: number }) =>
  toolCall('run_shell_command', { command, description: 'Run a scripted command' }, { usage })

describeWithAgent('gemini')('the real gemini CLI against a scripted Gemini API server', () => {
  it('runs shell commands on a real file and reports the summed usage only in its last event', async () => {
    const usage = [
      { input: 3000, output: 120 },
      { input: 500, output: 40 },
      { input: 800, output: 25 }
    ]
    const run = await gemini.run('success: two shell calls, text', [
      shell('printf "hello from the scripted model\\n" > hello.txt', usage[0]),
      shell('cat hello.txt', usage[1]),
      text('I created hello.txt and showed it.', { usage: usage[2] })
    ])

    expect(run.exitCode).toBe(0)
    expect(readFileSync(join(gemini.workspace.cwd, 'hello.txt'), 'utf8')).toBe(
      'hello from the scripted model\n'
    )
    expect(gemini.server.problems).toEqual([])
    expect(gemini.server.requests.map(request => `${request.method} ${request.url}`)).toEqual(
      Array(3).fill(`POST /v1beta/models/${TEST_MODELS.gemini}:streamGenerateContent?alt=sse`)
    )
    const types = run.events.map(event => event.type)
    expect(types[0]).toBe('init')
    // No usage before the end: tool_use and tool_result carry none.
    expect(run.events.slice(0, -1).some(event => 'stats' in event)).toBe(false)
    const sum = (key: 'input' | 'output') => usage.reduce((total, turn) => total + turn[key], 0)
    expect(run.events.at(-1)).toMatchObject({
      type: 'result',
      status: 'success',
      stats: { input_tokens: sum('input'), output_tokens: sum('output'), tool_calls: 2 }
    })
    expect(JSON.stringify(run.events)).toContain('hello from the scripted model')
    gemini.record('gemini-live-success.jsonl', run)
  })

  it('reports an HTTP 400 as a result with status error and exits non-zero', async () => {
    const run = await gemini.run('api error: 400', always(httpError(400, 'INVALID_ARGUMENT')))

    expect(run.exitCode).not.toBe(0)
    expect(run.events.at(-1)).toMatchObject({ type: 'result', status: 'error' })
    gemini.record('gemini-live-api-error.jsonl', run)
  })
})
