// The real Claude Code CLI (pinned in scripts/install-agent-clis.json) against the scripted Anthropic server.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import {
  claudeArgs,
  claudeEnv,
  CLAUDE_TEST_MODEL,
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
  claudeBash,
  claudeRead,
  claudeWrite,
  httpError,
  pickTurn,
  startAnthropicServer,
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

// List prices of claude-sonnet-4-5 in USD per million tokens, as claude 2.1.332 applies them.
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }

type Event = Record<string, unknown>
const timings = new Timings()
let workspace: Workspace
let server: ScriptedServer | undefined

let isolation: AgentIsolation | undefined

beforeEach(async () => {
  workspace = makeWorkspace('claude')
  // As the action runs it by default: as its own user, the work tree its own, nothing of ours in reach.
  isolation = await isolateLive(workspace, 'claude')
})

afterEach(async () => {
  await server?.close()
  server = undefined
  await releaseLive(workspace, isolation)
  workspace.remove()
})

afterAll(() => timings.print('claude'))

type LiveOptions = { prompt?: string; maxRetries?: number; extra?: string[] } & Pick<
  RunAgentOptions,
  'onLine' | 'kill' | 'abort'
>

async function runClaude(name: string, script: Script, options: LiveOptions = {}): Promise<AgentRun> {
  const { prompt, maxRetries, extra, ...control } = options
  server ??= await startAnthropicServer({ script })
  const env = claudeEnv(server.url, workspace.home, { maxRetries })
  // Its files were just written: the agent's user must own them (codex writes sessions/ beside config.toml).
  giveHome(workspace, isolation)
  const run = await runAgentCli('claude', {
    cwd: workspace.cwd,
    env,
    args: claudeArgs({ extra }),
    prompt: prompt ?? 'Create hello.txt, then show it.',
    ...control,
    ...(isolation ? { as: isolation } : {})
  })
  timings.add(name, run, server)
  return run
}

function result(run: AgentRun): Event {
  const last = run.events.at(-1)
  expect(last?.type).toBe('result')
  return last!
}

function ofType(run: AgentRun, type: string, subtype?: string): Event[] {
  return run.events.filter(
    event => event.type === type && (subtype === undefined || event.subtype === subtype)
  )
}

describeWithAgent('claude')('the real claude CLI against a scripted Anthropic server', () => {
  it('edits a real file through Write, runs Bash, and prices the reported usage at list price', async () => {
    const usage = [
      { input: 3000, output: 120, cacheRead: 10000, cacheWrite: 2000 },
      { input: 500, output: 40 },
      { input: 800, output: 25, cacheRead: 12000 }
    ]
    const run = await runClaude('success: Write, Bash, text', [
      claudeWrite('hello.txt', 'hello from the scripted model\n', { usage: usage[0] }),
      claudeBash('cat hello.txt', { usage: usage[1] }),
      text('I created hello.txt and showed it.', { usage: usage[2] })
    ])

    expect(run.exitCode).toBe(0)
    expect(readFileSync(join(workspace.cwd, 'hello.txt'), 'utf8')).toBe('hello from the scripted model\n')
    // Written by the agent's own user (where this machine allows it, as CI does).
    expect(statSync(join(workspace.cwd, 'hello.txt')).uid).toBe(isolation?.user.uid ?? process.getuid?.())
    if (process.getuid?.() === 0) expect(isolation).toBeDefined()
    expect(server!.problems).toEqual([])
    // At start-up and after, the CLI calls nothing but the Messages API (non-essential traffic is off).
    expect(server!.requests.map(request => `${request.method} ${request.url}`)).toEqual(
      Array(3).fill('POST /v1/messages?beta=true')
    )
    expect(ofType(run, 'system', 'init')[0]).toMatchObject({
      model: CLAUDE_TEST_MODEL,
      permissionMode: 'acceptEdits'
    })
    const bashResult = JSON.stringify(ofType(run, 'user')[1])
    expect(bashResult).toContain('hello from the scripted model')

    const final = result(run)
    const sum = (key: keyof (typeof usage)[0]): number =>
      usage.reduce((total, turn) => total + (turn[key] ?? 0), 0)
    const expected =
      (sum('input') * PRICE.input +
        sum('output') * PRICE.output +
        sum('cacheRead') * PRICE.cacheRead +
        sum('cacheWrite') * PRICE.cacheWrite) /
      1e6
    expect(final).toMatchObject({
      subtype: 'success',
      is_error: false,
      result: 'I created hello.txt and showed it.',
      num_turns: 3,
      usage: { input_tokens: sum('input'), output_tokens: sum('output') }
    })
    expect(final.total_cost_usd).toBeCloseTo(expected, 10)
    expect((final.modelUsage as Record<string, { costUSD: number }>)[CLAUDE_TEST_MODEL].costUSD).toBeCloseTo(
      expected,
      10
    )
    recordOrCompare('claude-success.jsonl', run, workspace, server!.url)
  })

  it('reports an API error as is_error:true with subtype "success" and exit 1, at once when told not to retry', async () => {
    const run = await runClaude(
      'api error: 529, x-should-retry false',
      always(httpError(529, 'overloaded_error', { retry: false }))
    )

    expect(run.exitCode).toBe(1)
    expect(server!.requests).toHaveLength(1)
    expect(result(run)).toMatchObject({
      subtype: 'success',
      is_error: true,
      api_error_status: 529,
      terminal_reason: 'api_error',
      total_cost_usd: 0
    })
    expect(String(result(run).result)).toMatch(/^API Error: 529/)
    recordOrCompare('claude-api-error.jsonl', run, workspace, server!.url)
  })

  it('fails fast on 400 invalid_request, after retrying with fewer beta headers', async () => {
    const run = await runClaude(
      'api error: 400 invalid_request',
      always(httpError(400, 'invalid_request_error'))
    )

    expect(run.exitCode).toBe(1)
    expect(ofType(run, 'system', 'api_retry')).toEqual([])
    // Not an api_retry storm: a handful of immediate fallbacks that drop beta features.
    expect(server!.requests.length).toBeGreaterThan(1)
    expect(server!.requests.length).toBeLessThanOrEqual(8)
    expect(result(run)).toMatchObject({ is_error: true, api_error_status: 400, terminal_reason: 'api_error' })
    recordOrCompare('claude-invalid-request.jsonl', run, workspace, server!.url)
  })

  it('retries a 529 CLAUDE_CODE_MAX_RETRIES times, printing system/api_retry events, then gives up', async () => {
    const run = await runClaude(
      'api retries: 529 with CLAUDE_CODE_MAX_RETRIES=2',
      always(httpError(529, 'overloaded_error')),
      {
        maxRetries: 2
      }
    )

    expect(run.exitCode).toBe(1)
    const retries = ofType(run, 'system', 'api_retry')
    expect(retries.map(event => [event.attempt, event.max_retries, event.error_status])).toEqual([
      [1, 2, 529],
      [2, 2, 529]
    ])
    expect(server!.requests).toHaveLength(3)
    expect(result(run)).toMatchObject({ is_error: true, api_error_status: 529 })
    recordOrCompare('claude-api-retry.jsonl', run, workspace, server!.url)
  })

  it('reports a stream that ends abruptly as is_error:true after one retry and a non-streaming fallback', async () => {
    const run = await runClaude('abrupt end, CLAUDE_CODE_MAX_RETRIES=1', always(abruptEnd('end')), {
      maxRetries: 1
    })

    expect(run.exitCode).toBe(1)
    expect(server!.requests.map(request => (request.body as { stream: boolean }).stream)).toEqual([
      true,
      true,
      false
    ])
    expect(result(run)).toMatchObject({ subtype: 'success', is_error: true, terminal_reason: 'api_error' })
    expect(String(result(run).result)).toMatch(/^API Error/)
    recordOrCompare('claude-abrupt-end.jsonl', run, workspace, server!.url)
  })

  it('recovers when only the first stream breaks', async () => {
    const turns = [claudeWrite('hello.txt', 'hi\n'), text('Done.')]
    // Every first attempt breaks; the CLI's retry of the same step gets the real turn.
    const run = await runClaude('abrupt end once per turn, then recovered', request =>
      request.attempt === 0 ? abruptEnd('reset') : pickTurn(turns, request).turn
    )

    expect(run.exitCode).toBe(0)
    expect(readFileSync(join(workspace.cwd, 'hello.txt'), 'utf8')).toBe('hi\n')
    expect(ofType(run, 'system', 'api_retry').length).toBeGreaterThan(0)
    expect(result(run)).toMatchObject({ is_error: false, result: 'Done.' })
  })

  it('denies a write outside the working directory and lists it in permission_denials', async () => {
    const run = await runClaude('permission denied', [
      claudeWrite('/etc/ralph-live-denied.txt', 'no\n'),
      text('Could not write.')
    ])

    expect(run.exitCode).toBe(0)
    expect(ofType(run, 'system', 'permission_denied')[0]).toMatchObject({ tool_name: 'Write' })
    expect(result(run).permission_denials).toEqual([
      expect.objectContaining({
        tool_name: 'Write',
        tool_input: expect.objectContaining({ file_path: '/etc/ralph-live-denied.txt' })
      })
    ])
    recordOrCompare('claude-permission-denied.jsonl', run, workspace, server!.url)
  })

  it('stops itself at --max-budget-usd with error_max_budget_usd, before running the tool', async () => {
    const run = await runClaude(
      'max budget',
      [claudeWrite('hello.txt', 'hi\n', { usage: { input: 100000, output: 2000 } }), text('Done.')],
      { extra: ['--max-budget-usd', '0.05'] }
    )

    expect(run.exitCode).toBe(1)
    expect(result(run)).toMatchObject({
      subtype: 'error_max_budget_usd',
      is_error: true,
      terminal_reason: 'budget_exhausted',
      errors: ['Reached maximum budget ($0.05)']
    })
    expect(result(run).total_cost_usd).toBeCloseTo((100000 * PRICE.input + 2000 * PRICE.output) / 1e6, 10)
    recordOrCompare('claude-max-budget.jsonl', run, workspace, server!.url)
  })

  it('can be killed mid-run on the per-turn usage in its stream while the model is slow', async () => {
    const budgetUsd = 0.25
    let spent = 0
    let killedAt = 0
    const run = await runClaude(
      'killed on usage while the next turn is slow (60 s)',
      [
        claudeWrite('hello.txt', 'hi\n', { usage: { input: 100000, output: 1000 } }),
        text('never sent', { delayMs: 60000 })
      ],
      {
        onLine: line => {
          const event = JSON.parse(line) as { type: string; message?: { usage?: Record<string, number> } }
          if (event.type !== 'assistant' || !event.message?.usage) return false
          const usage = event.message.usage
          spent += (usage.input_tokens * PRICE.input + usage.output_tokens * PRICE.output) / 1e6
          if (spent < budgetUsd) return false
          killedAt = performance.now()
          return true
        }
      }
    )

    expect(run.signal).toBe('SIGKILL')
    expect(killedAt).toBeGreaterThan(0)
    // The goal for the engine: from the usage event that crosses the budget to the tree gone, ≤ 1 s.
    expect(run.killLatencyMs).toBeLessThan(1000)
    expect(survivorsInGroup(run)).toEqual([])
    expect(run.events.some(event => event.type === 'result')).toBe(false)
    recordOrCompare('claude-killed-mid-run.jsonl', run, workspace, server!.url)
  })

  // Claude starts each Bash command in a new session: a kill of its process group alone leaves the command running.
  it.each([
    ['group', 'outlives'],
    ['tree', 'dies with']
  ] as const)('a Bash command, on a %s kill, %s the CLI (it runs in its own session)', async (kill, fate) => {
    const marker = `ralph-live-${process.pid}-${kill}-${Date.now()}`
    const abort = new AbortController()
    let running: Promise<boolean> | undefined
    const run = await runClaude(
      `killed (${kill}) while a Bash command runs`,
      [claudeBash(`node -e 'setTimeout(() => {}, 30000)' ${marker}`), text('never sent')],
      {
        kill,
        abort: abort.signal,
        // Once claude says the task started, kill as soon as the command runs, however slow the machine.
        onLine: line =>
          void (line.includes('"subtype":"task_started"') && (running ??= abortWhenRunning(marker, abort)))
      }
    )
    await new Promise(resolve => setTimeout(resolve, 300))
    const survivors = survivorsMatching(marker)
    survivors.forEach(pid => process.kill(pid, 'SIGKILL'))

    expect(await running).toBe(true)
    expect(run.signal).toBe('SIGKILL')
    expect(survivors.length > 0).toBe(fate === 'outlives')
  })

  it('serves a two-iteration loop: a failing edit in iteration 1, the fix in iteration 2', async () => {
    const script = byPrompt([
      [/iteration 1/, [claudeWrite('answer.txt', '41\n'), text('Wrote 41.')]],
      [/iteration 2/, [claudeRead('answer.txt'), claudeWrite('answer.txt', '42\n'), text('Fixed it: 42.')]]
    ])
    const check = (): boolean => readFileSync(join(workspace.cwd, 'answer.txt'), 'utf8').trim() === '42'

    const first = await runClaude('loop iteration 1', script, {
      prompt: 'This is iteration 1. Put 42 in answer.txt.'
    })
    expect(first.exitCode).toBe(0)
    expect(check()).toBe(false)
    const second = await runClaude('loop iteration 2', script, {
      prompt: 'This is iteration 2. The check failed: answer.txt is 41, want 42.'
    })
    expect(second.exitCode).toBe(0)
    expect(check()).toBe(true)
    expect(server!.problems).toEqual([])
    expect(result(second)).toMatchObject({ is_error: false, result: 'Fixed it: 42.' })
    // Each CLI run is its own conversation: the server saw turns 0,1 then 0,1,2.
    expect(server!.requests.map(request => request.answer)).toEqual([
      'tool Write',
      'text',
      'tool Read',
      'tool Write',
      'text'
    ])
  })
})
