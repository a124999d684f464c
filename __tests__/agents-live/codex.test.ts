// The real Codex CLI (pinned in scripts/install-agent-clis.json) against the scripted Responses API server.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import {
  codexArgs,
  codexEnv,
  CODEX_TEST_MODEL,
  survivorsInGroup,
  abortWhenRunning,
  survivorsMatching,
  runAgentCli,
  type AgentRun,
  type RunAgentOptions
} from '../support/agents.js'
import {
  abruptEnd,
  always,
  byPrompt,
  codexAddFile,
  codexExec,
  httpError,
  startResponsesServer,
  streamError,
  text,
  type Script,
  type ScriptedServer
} from '../support/model-server/index.js'
import type { AgentIsolation } from '../../src/security/index.js'
import {
  describeWithAgent,
  giveHome,
  isolateLive,
  makeWorkspace,
  releaseLive,
  recordOrCompare,
  Timings,
  type Workspace
} from './live.js'

type Event = Record<string, unknown>
type Item = { type: string; [key: string]: unknown }
const timings = new Timings()
let workspace: Workspace
let server: ScriptedServer | undefined

let isolation: AgentIsolation | undefined

beforeEach(async () => {
  workspace = makeWorkspace('codex')
  // As the action runs it by default: as its own user, the work tree its own, nothing of ours in reach.
  isolation = await isolateLive(workspace, 'codex')
})

afterEach(async () => {
  await server?.close()
  server = undefined
  await releaseLive(workspace, isolation)
  workspace.remove()
})

afterAll(() => timings.print('codex'))

type LiveOptions = { prompt?: string; maxRetries?: number } & Pick<
  RunAgentOptions,
  'onLine' | 'kill' | 'abort'
>

async function runCodex(name: string, script: Script, options: LiveOptions = {}): Promise<AgentRun> {
  const { prompt, maxRetries, ...control } = options
  server ??= await startResponsesServer({ script })
  const env = codexEnv(server.url, workspace.home, { maxRetries })
  // Its files were just written: the agent's user must own them (codex writes sessions/ beside config.toml).
  giveHome(workspace, isolation)
  const run = await runAgentCli('codex', {
    cwd: workspace.cwd,
    env,
    args: codexArgs(),
    prompt: prompt ?? 'Create hello.txt, then show it.',
    ...control,
    ...(isolation ? { as: isolation } : {})
  })
  timings.add(name, run, server)
  return run
}

function completedItems(run: AgentRun): Item[] {
  return run.events.filter(event => event.type === 'item.completed').map(event => event.item as Item)
}

function last(run: AgentRun): Event {
  return run.events.at(-1)!
}

describeWithAgent('codex')('the real codex CLI against a scripted Responses API server', () => {
  it('runs commands and applies a patch to a real file, then reports the summed usage', async () => {
    const usage = [
      { input: 2000, cacheRead: 6000, output: 150, reasoning: 40 },
      { input: 300, cacheRead: 8000, output: 90, reasoning: 10 },
      { input: 200, output: 30 },
      { input: 250, cacheRead: 8200, output: 25 }
    ]
    const run = await runCodex('success: exec, apply_patch, failing exec, text', [
      codexExec('ls -a', { text: 'Let me look around first.', usage: usage[0] }),
      codexAddFile('hello.txt', 'hello from the scripted model\n', { usage: usage[1] }),
      codexExec('cat hello.txt missing.txt', { usage: usage[2] }),
      text('I created hello.txt; missing.txt does not exist.', { usage: usage[3] })
    ])

    expect(run.exitCode).toBe(0)
    expect(readFileSync(join(workspace.cwd, 'hello.txt'), 'utf8')).toBe('hello from the scripted model\n')
    // Written by the agent's own user (where this machine allows it, as CI does).
    expect(statSync(join(workspace.cwd, 'hello.txt')).uid).toBe(isolation?.user.uid ?? process.getuid?.())
    if (process.getuid?.() === 0) expect(isolation).toBeDefined()
    expect(server!.problems).toEqual([])
    // With the quiet flags codex calls nothing but the Responses API: no models list, no plugins, no update check.
    expect(server!.requests.map(request => `${request.method} ${request.url}`)).toEqual(
      Array(4).fill('POST /v1/responses')
    )
    expect((server!.requests[0].body as { model: string }).model).toBe(CODEX_TEST_MODEL)

    const items = completedItems(run)
    expect(items.map(item => item.type)).toEqual([
      'agent_message',
      'command_execution',
      'file_change',
      'command_execution',
      'agent_message'
    ])
    expect(items[1]).toMatchObject({ exit_code: 0, status: 'completed' })
    expect(items[2]).toMatchObject({ changes: [{ path: join(workspace.cwd, 'hello.txt'), kind: 'add' }] })
    expect(items[3]).toMatchObject({ exit_code: 1, status: 'failed' })
    expect(String(items[3].aggregated_output)).toContain('hello from the scripted model')
    expect(items[4]).toMatchObject({ text: 'I created hello.txt; missing.txt does not exist.' })

    const sum = (key: keyof (typeof usage)[0]): number =>
      usage.reduce((total, turn) => total + (turn[key] ?? 0), 0)
    // input_tokens counts cached tokens too, as the Responses API does; there is no dollar figure.
    expect(last(run)).toEqual({
      type: 'turn.completed',
      usage: {
        input_tokens: sum('input') + sum('cacheRead'),
        cached_input_tokens: sum('cacheRead'),
        cache_write_input_tokens: 0,
        output_tokens: sum('output'),
        reasoning_output_tokens: sum('reasoning')
      }
    })
    recordOrCompare('codex-success.jsonl', run, workspace, server!.url)
  })

  it('reports an HTTP 400 as turn.failed and exits 1 without retrying', async () => {
    const run = await runCodex(
      'turn failed: 400 invalid_request',
      always(httpError(400, 'invalid_request_error'))
    )

    expect(run.exitCode).toBe(1)
    expect(server!.requests).toHaveLength(1)
    expect(last(run)).toMatchObject({
      type: 'turn.failed',
      error: { message: expect.stringContaining('scripted') }
    })
    recordOrCompare('codex-turn-failed.jsonl', run, workspace, server!.url)
  })

  it('prints "Reconnecting... n/N" error events while it retries a 500, then turn.failed', async () => {
    const run = await runCodex('reconnecting: 500 with 2 retries', always(httpError(500, 'server_error')), {
      maxRetries: 2
    })

    expect(run.exitCode).toBe(1)
    const errors = run.events.filter(event => event.type === 'error').map(event => String(event.message))
    expect(errors.filter(message => message.startsWith('Reconnecting...')).length).toBeGreaterThan(0)
    expect(last(run)).toMatchObject({ type: 'turn.failed' })
    recordOrCompare('codex-reconnecting.jsonl', run, workspace, server!.url)
  })

  it('reports a stream that ends abruptly as turn.failed (stream disconnected before completion)', async () => {
    const run = await runCodex('abrupt end, 1 retry', always(abruptEnd('end')), { maxRetries: 1 })

    expect(run.exitCode).toBe(1)
    expect(server!.requests).toHaveLength(2)
    expect(last(run)).toMatchObject({
      type: 'turn.failed',
      error: { message: expect.stringContaining('stream disconnected before completion') }
    })
    recordOrCompare('codex-abrupt-end.jsonl', run, workspace, server!.url)
  })

  it('reports an in-stream response.failed as turn.failed', async () => {
    const run = await runCodex('response.failed in the stream', always(streamError('server_error')), {
      maxRetries: 0
    })

    expect(run.exitCode).toBe(1)
    expect(last(run)).toMatchObject({ type: 'turn.failed' })
    recordOrCompare('codex-response-failed.jsonl', run, workspace, server!.url)
  })

  it('reports a usage limit (429 usage_limit_reached) as turn.failed at once', async () => {
    const limit = httpError(429, 'usage_limit_reached', {
      message: 'The usage limit has been reached',
      errorFields: { plan_type: 'plus', resets_in_seconds: 5400 }
    })
    const run = await runCodex('usage limit: 429 usage_limit_reached', always(limit))

    expect(run.exitCode).toBe(1)
    expect(server!.requests).toHaveLength(1)
    expect(last(run)).toMatchObject({
      type: 'turn.failed',
      error: { message: expect.stringContaining('hit your usage limit') }
    })
    recordOrCompare('codex-usage-limit.jsonl', run, workspace, server!.url)
  })

  // Codex runs each command in a PTY, in a session of its own: a kill of the CLI's process group misses it, but
  // the command gets SIGHUP when the dead CLI's PTY closes (a command that ignores SIGHUP would live on).
  it('can be killed mid-run: a process-group kill takes wrapper and native binary, the PTY hangup the command', async () => {
    const marker = `ralph-live-${process.pid}-${Date.now()}`
    const abort = new AbortController()
    let running: Promise<boolean> | undefined
    const run = await runCodex(
      'killed (group) while a command runs and the next turn is slow',
      [codexExec(`sleep 30; echo ${marker}`, { text: 'Sleeping.' }), text('never sent', { delayMs: 60000 })],
      {
        kill: 'group',
        abort: abort.signal,
        // Kill as soon as the command runs, however slow the machine.
        onLine: line =>
          void (line.includes('"type":"item.started"') && (running ??= abortWhenRunning(marker, abort)))
      }
    )
    await new Promise(resolve => setTimeout(resolve, 300))
    const survivors = survivorsMatching(marker)
    survivors.forEach(pid => process.kill(pid, 'SIGKILL'))

    expect(await running).toBe(true)
    expect(run.signal).toBe('SIGKILL')
    expect(run.durationMs).toBeLessThan(20000)
    expect(survivorsInGroup(run)).toEqual([])
    expect(survivors).toEqual([])
    recordOrCompare('codex-killed-mid-run.jsonl', run, workspace, server!.url)
  })

  it('serves a two-iteration loop: a failing edit in iteration 1, the fix in iteration 2', async () => {
    const script = byPrompt([
      [/iteration 1/, [codexExec('printf "41\\n" > answer.txt'), text('Wrote 41.')]],
      [
        /iteration 2/,
        [codexExec('cat answer.txt'), codexExec('printf "42\\n" > answer.txt'), text('Fixed it: 42.')]
      ]
    ])
    const check = (): boolean => readFileSync(join(workspace.cwd, 'answer.txt'), 'utf8').trim() === '42'

    const first = await runCodex('loop iteration 1', script, {
      prompt: 'This is iteration 1. Put 42 in answer.txt.'
    })
    expect(first.exitCode).toBe(0)
    expect(check()).toBe(false)
    const second = await runCodex('loop iteration 2', script, {
      prompt: 'This is iteration 2. The check failed: answer.txt is 41, want 42.'
    })
    expect(second.exitCode).toBe(0)
    expect(check()).toBe(true)
    expect(server!.problems).toEqual([])
    expect(completedItems(second).at(-1)).toMatchObject({ type: 'agent_message', text: 'Fixed it: 42.' })
    // The server saw what the first command printed, in the second conversation.
    expect(server!.requests.at(-2)?.body).toBeDefined()
    expect(server!.requests.map(request => request.answer)).toEqual([
      'tool exec_command',
      'text',
      'tool exec_command',
      'tool exec_command',
      'text'
    ])
  })
})
