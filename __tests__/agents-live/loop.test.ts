// The real engine (runLoop) driving the real claude and codex CLIs against the scripted model servers:
// presets parse the real streams, the meter reads the real cost, gates decide, budgets kill.
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LoopConfig, LoopResult } from '../../src/loop/index.js'
import { agentBin, claudeEnv, codexEnv, CLAUDE_TEST_MODEL } from '../support/agents.js'
import {
  abruptEnd,
  always,
  byPrompt,
  claudeRead,
  claudeWrite,
  codexExec,
  httpError,
  startAnthropicServer,
  startResponsesServer,
  text,
  type Script,
  type ScriptedServer
} from '../support/model-server/index.js'
import { harness, isAlive, type Harness } from '../loop/harness.js'
import { describeWithAgent } from './live.js'

// claude-sonnet-4-5 at list price, USD per million tokens (the price table's row, which claude applies too).
const PRICE = { input: 3, output: 15 }
/** Tokens the scripted server reports per turn unless told otherwise (script.ts DEFAULT_USAGE). */
const TURN = { input: 100, output: 20 }

let h: Harness
let server: ScriptedServer | undefined
let home: string

beforeEach(() => {
  h = harness('live')
  home = mkdtempSync(join(tmpdir(), 'ralph-live-home-'))
})

afterEach(async () => {
  await server?.close()
  server = undefined
  h.cleanup()
  rmSync(home, { recursive: true, force: true })
})

/** claude's headless flags, without the stream flags the preset appends (as the reference does). */
const claudeAgent = (extra = ''): string =>
  `${agentBin('claude')} -p --model ${CLAUDE_TEST_MODEL} --permission-mode acceptEdits --allowedTools Bash${extra}`

const codexAgent = (): string =>
  `${agentBin('codex')} exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox ` +
  '-c check_for_update_on_startup=false -c analytics.enabled=false -c feedback.enabled=false ' +
  '--disable plugins --disable apps -'

const GATE = `checks:\n  - name: answer\n    run: 'test "$(cat answer.txt 2>/dev/null)" = 42'`
const BODY = 'Pass {{ ralph.iteration }}: put 42 in answer.txt, then say <promise>COMPLETE</promise>.'

async function runClaudeLoop(
  script: Script,
  overrides: Partial<LoopConfig>,
  options: { agent?: string; maxRetries?: number; gated?: boolean } = {}
): Promise<LoopResult> {
  server = await startAnthropicServer({ script })
  h.writeRalph(`agent: ${options.agent ?? claudeAgent()}\n${options.gated === false ? '' : GATE}`, BODY)
  const { result } = await h.run({
    agentEnv: {
      set: claudeEnv(server.url, home, { maxRetries: options.maxRetries }) as Record<string, string>
    },
    ...overrides
  })
  return result
}

const log = (iteration: number, file: string): string =>
  h.readRecord(`logs/iteration-${String(iteration).padStart(3, '0')}/${file}`)

describeWithAgent('claude')('a ralph loop on the real claude CLI', () => {
  it('fails its gate in iteration 1, passes in iteration 2; the real stream parsed, the real cost metered', async () => {
    const script = byPrompt([
      [
        /Pass 2:/,
        [
          claudeRead('answer.txt'),
          claudeWrite('answer.txt', '42\n'),
          text('Fixed it: 42.\n\n<promise>COMPLETE</promise>')
        ]
      ],
      [/Pass 1:/, [claudeWrite('answer.txt', '41\n'), text('Wrote 41.\n\n<promise>COMPLETE</promise>')]]
    ])
    const result = await runClaudeLoop(script, { maxIterations: 3, maxCostUsd: 1 })

    expect(server!.problems).toEqual([])
    expect(result.stopReason).toBe('all_checks_passed')
    expect(result.iterations.map(it => it.verdict)).toEqual(['checks_failed', 'passed'])
    expect(readFileSync(join(h.repo.dir, 'answer.txt'), 'utf8')).toBe('42\n')
    const [first, second] = result.iterations.map(it => it.agent!)
    expect(second).toMatchObject({
      preset: 'claude',
      success: true,
      isError: false,
      finalMessage: 'Fixed it: 42.\n\n<promise>COMPLETE</promise>'
    })
    expect(second.argv.slice(-5, -1)).toEqual([
      '--output-format',
      'stream-json',
      '--verbose',
      '--max-budget-usd'
    ])
    // Claude's own dollars, at list price for what the server reported: 2 turns, then 3.
    const cost = (turns: number): number =>
      (turns * TURN.input * PRICE.input + turns * TURN.output * PRICE.output) / 1e6
    expect(first.usage).toMatchObject({ input: 200, output: 40, cost_source: 'reported' })
    expect(first.usage.cost_usd).toBeCloseTo(cost(2), 10)
    expect(second.usage).toMatchObject({ input: 300, output: 60, cost_source: 'reported' })
    expect(second.usage.cost_usd).toBeCloseTo(cost(3), 10)
    expect(result.cost).toMatchObject({ source: 'reported', enforced: true })
    expect(result.cost.totalUsd).toBeCloseTo(cost(5), 10)
    // The remaining budget went to claude: $1 minus what iteration 1 spent.
    const budget = second.argv[second.argv.indexOf('--max-budget-usd') + 1]
    expect(Number(budget)).toBeCloseTo(1 - cost(2), 6)
    // Readable transcript beside the raw stream.
    expect(log(2, 'agent.log')).toContain(`→ Write ${join(h.repo.dir, 'answer.txt')}`)
    expect(log(2, 'agent.log')).toContain('[result] success')
    expect(log(2, 'agent.jsonl')).toContain('"type":"result"')
  })

  it('is killed mid-turn when its live usage crosses the dollar budget (the slow next turn never comes)', async () => {
    // The user's own, larger claude cap: claude cannot stop itself first, so the loop's kill is what ends it.
    const script = [
      claudeWrite('hello.txt', 'hi\n', { usage: { input: 100000, output: 1000 } }),
      text('never sent', { delayMs: 60000 })
    ]
    const started = Date.now()
    const result = await runClaudeLoop(
      script,
      { maxIterations: 3, maxCostUsd: 0.25 },
      { agent: claudeAgent(' --max-budget-usd 50'), gated: false }
    )

    expect(result.stopReason).toBe('budget_exhausted')
    expect(Date.now() - started).toBeLessThan(30000)
    const agent = result.iterations[0].agent!
    expect(agent.killedBy).toBe('budget_exhausted')
    // The estimate from claude's per-turn usage and the price table: 100000 input tokens = $0.30.
    expect(agent.usage).toMatchObject({ input: 100000, cost_source: 'estimated' })
    expect(agent.usage.cost_usd).toBeGreaterThanOrEqual(0.25)
    expect(agent.argv.filter(arg => arg === '--max-budget-usd')).toHaveLength(1)
    expect(result.enforcement).toMatchObject({ cause: 'budget_exhausted', killed: 'agent' })
    expect(result.enforcement!.latencyMs).toBeLessThan(5000)
    console.info(`claude killed ${result.enforcement!.latencyMs} ms after its usage crossed the budget`)
    expect(server!.requests.length).toBeLessThanOrEqual(2)
  })

  it('stops itself at the remaining budget the loop passed it (--max-budget-usd)', async () => {
    const script = [
      claudeWrite('hello.txt', 'hi\n', { usage: { input: 100000, output: 2000 } }),
      text('Done.', { delayMs: 60000 })
    ]
    const result = await runClaudeLoop(script, { maxIterations: 3, maxCostUsd: 0.05 }, { gated: false })
    expect(result.stopReason).toBe('budget_exhausted')
    const agent = result.iterations[0].agent!
    expect(agent.argv.slice(-2)).toEqual(['--max-budget-usd', '0.05'])
    // Whichever came first (claude's own stop or the loop's kill), the run's cost is known and over budget.
    expect(agent.usage.cost_usd).toBeGreaterThanOrEqual(0.05)
  })

  it('an API error (is_error, subtype "success") fails the iteration with the error named', async () => {
    const result = await runClaudeLoop(always(httpError(529, 'overloaded_error', { retry: false })), {
      maxIterations: 1,
      stopOnError: true
    })
    expect(result.stopReason).toBe('agent_error')
    const agent = result.iterations[0].agent!
    expect(agent).toMatchObject({ success: false, isError: true, failure: { kind: 'api_error' } })
    expect(agent.failure!.message).toMatch(/^API Error: 529/)
    expect(result.iterations[0].verdict).toBe('agent_failed')
    expect(log(1, 'agent.log')).toContain('[result] success (error)')
  })

  it('a stream that ends abruptly is an API error after claude retried it, and the retry is counted', async () => {
    const result = await runClaudeLoop(always(abruptEnd('end')), { maxIterations: 1 }, { maxRetries: 1 })
    const agent = result.iterations[0].agent!
    expect(agent).toMatchObject({
      success: false,
      isError: true,
      failure: { kind: 'api_error' },
      apiRetries: 1
    })
    expect(agent.usage.cost_source).toBe('reported')
    expect(log(1, 'agent.log')).toContain('[api retry 1/1]')
  })

  it('leaves no process of the killed tree behind', async () => {
    const script = [
      claudeWrite('hello.txt', 'hi\n', { usage: { input: 100000, output: 1000 } }),
      text('never sent', { delayMs: 60000 })
    ]
    await runClaudeLoop(
      script,
      { maxIterations: 1, maxCostUsd: 0.1 },
      { agent: claudeAgent(' --max-budget-usd 50'), gated: false }
    )
    expect(survivorsIn(h.repo.dir)).toEqual([])
  })
})

/** Living processes whose working directory is `dir` (where the agent's tree ran). */
function survivorsIn(dir: string): number[] {
  const real = realpathSync(dir)
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!/^\d+$/.test(entry) || pid === process.pid) continue
    try {
      if (realpathSync(readlinkSync(`/proc/${pid}/cwd`)) === real && isAlive(pid)) found.push(pid)
    } catch {
      // gone, or not ours to read
    }
  }
  return found
}

describeWithAgent('codex')('a ralph loop on the real codex CLI', () => {
  it('fails its gate in iteration 1, passes in iteration 2; usage from turn.completed, priced from the table', async () => {
    const script = byPrompt([
      [
        /Pass 2:/,
        [
          codexExec('cat answer.txt'),
          codexExec('printf "42\\n" > answer.txt'),
          text('Fixed it: 42.\n\n<promise>COMPLETE</promise>')
        ]
      ],
      [
        /Pass 1:/,
        [codexExec('printf "41\\n" > answer.txt'), text('Wrote 41.\n\n<promise>COMPLETE</promise>')]
      ]
    ])
    server = await startResponsesServer({ script })
    h.writeRalph(`agent: ${codexAgent()}\n${GATE}`, BODY)
    const { result } = await h.run({
      maxIterations: 3,
      agentEnv: { set: codexEnv(server.url, home) as Record<string, string> }
    })

    expect(server.problems).toEqual([])
    expect(result.stopReason).toBe('all_checks_passed')
    expect(result.iterations.map(it => it.verdict)).toEqual(['checks_failed', 'passed'])
    const [first, second] = result.iterations.map(it => it.agent!)
    expect(first.argv.slice(1, 3)).toEqual(['exec', '--json'])
    expect(second).toMatchObject({
      preset: 'codex',
      success: true,
      finalMessage: 'Fixed it: 42.\n\n<promise>COMPLETE</promise>'
    })
    // gpt-5.5 from CODEX_HOME/config.toml; 2 then 3 requests of 100 input / 20 output tokens.
    expect(first.usage).toMatchObject({ input: 200, output: 40, cost_source: 'estimated' })
    expect(first.usage.cost_usd).toBeCloseTo((200 * 5 + 40 * 30) / 1e6, 10)
    expect(second.usage).toMatchObject({ input: 300, output: 60, cost_source: 'estimated' })
    expect(result.cost).toMatchObject({ source: 'estimated', enforced: true })
    expect(log(2, 'agent.log')).toContain('→ exec ')
    expect(log(2, 'agent.jsonl')).toContain('"type":"turn.completed"')
  })

  it('turn.failed fails the iteration as an API error', async () => {
    server = await startResponsesServer({ script: always(httpError(400, 'invalid_request_error')) })
    h.writeRalph(`agent: ${codexAgent()}`, BODY)
    const { result } = await h.run({
      maxIterations: 1,
      agentEnv: { set: codexEnv(server.url, home) as Record<string, string> }
    })
    expect(result.iterations[0].agent).toMatchObject({
      success: false,
      isError: true,
      failure: { kind: 'api_error' }
    })
  })
})
