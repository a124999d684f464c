// The real engine (runLoop) driving each of the five real CLIs against its scripted model server, on the same
// scenarios: gates fixed in iteration 2, the strict completion tag, a dollar cap that kills a run mid-way, a
// time cap that kills the tree while a tool runs; the transcript and the cost source along the way. Then what
// only claude or codex has (claude's own budget flag and API errors, codex's turn.failed).
import { testTempBase } from '../support/isolation.js'
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { LoopConfig, LoopPorts, LoopResult } from '../../src/loop/index.js'
import { agentSettings } from '../../src/agents/index.js'
import { agentEnvironment, type AgentIsolation } from '../../src/security/index.js'
import { survivorsMatching } from '../support/agents.js'
import {
  abruptEnd,
  always,
  byPrompt,
  claudeWrite,
  httpError,
  text,
  type Script,
  type ScriptedServer
} from '../support/model-server/index.js'
import { harness, isAlive, waitFor, type Harness } from '../loop/harness.js'
import { DRIVERS, tableCost, type LiveDriver } from './drivers.js'
import { pausedClock } from '../support/clock.js'
import {
  describeMode,
  describeWithAgent,
  isolatedRunProcess,
  isolateLive,
  LIVE_MODES,
  releaseLive,
  type Workspace
} from './live.js'

// Per test: opencode takes 14-22 s to start on an idle 2-core runner, minutes when the machine is shared.
const TWO_RUNS_MS = 420000
const ONE_RUN_MS = 240000

/** Tokens the scripted server reports per turn unless told otherwise (script.ts DEFAULT_USAGE). */
const TURN = { input: 100, output: 20 }

let h: Harness
let server: ScriptedServer | undefined
let home: string
/** Cancels a loop that outlived its test (a timeout): its agent must not go on in a deleted folder. */
let cancel: AbortController
/** The agent's own user in the isolated mode (made per run, once the CLI's settings are written), else undefined. */
let isolation: AgentIsolation | undefined
/** Whether this test runs the loop as the agent's own user. */
let isolated = false

beforeEach(() => {
  h = harness('live')
  home = mkdtempSync(join(testTempBase(), 'ralph-live-home-'))
  cancel = new AbortController()
  isolation = undefined
  isolated = false
})

/** The repository and the CLI's home, as the isolation helpers of live.ts see a test's folders. */
const liveWorkspace = (): Workspace => ({ root: h.repo.dir, cwd: h.repo.dir, home, remove: () => {} })

afterEach(async () => {
  cancel.abort()
  await server?.close()
  server = undefined
  h.cleanup()
  rmSync(home, { recursive: true, force: true })
})

/** Kill latencies measured in this file, printed at the end (the tier's report). */
const measured: string[] = []
afterAll(() => {
  if (measured.length > 0) console.info(`Caps enforced on the real CLIs:\n${measured.join('\n')}`)
})

const GATE = `checks:\n  - name: answer\n    run: 'test "$(cat answer.txt 2>/dev/null)" = 42'`
const BODY = 'Pass {{ ralph.iteration }}: put 42 in answer.txt, then say <promise>COMPLETE</promise>.'

interface LiveRun {
  script: Script
  config: Partial<LoopConfig>
  ports?: LoopPorts
  agentExtra?: string
  gated?: boolean
}

async function runLive(d: LiveDriver, run: LiveRun): Promise<LoopResult> {
  server = await d.startServer({ script: run.script })
  const agent = d.agent(run.agentExtra)
  h.writeRalph(`agent: ${agent}\n${run.gated === false ? '' : GATE}`, BODY)
  // The CLI's files are written as the runner's user has them (HOME, XDG_CONFIG_HOME, CODEX_HOME…); isolated,
  // the agent's user gets a copy of what the product says the CLI reads (agentSettings), as the action does.
  const agentEnv = { set: d.env(server.url, home) }
  if (isolated) {
    const settings = agentSettings(agent.split(' '), agentEnvironment(process.env, agentEnv))
    isolation = await isolateLive(liveWorkspace(), d.name, settings)
    expect(isolation).toBeDefined()
  }
  const { result } = await h.run(
    { ...run.config, agentEnv },
    {
      signal: cancel.signal,
      ...(isolation
        ? { runProcess: isolatedRunProcess(isolation, agentEnv), agentEnvironment: isolation.environment }
        : {}),
      ...run.ports
    }
  )
  return result
}

/** The uid the agent's processes must have run as: the agent's own user when isolated, else ours. */
const agentUid = (): number | undefined => isolation?.user.uid ?? process.getuid?.()

/** The real uid of a living process. */
function uidOf(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^Uid:\s+(\d+)/m)
    return line ? Number(line[1]) : undefined
  } catch {
    return undefined
  }
}

const log = (iteration: number, file: string): string =>
  h.readRecord(`logs/iteration-${String(iteration).padStart(3, '0')}/${file}`)

/** Model requests that were turns of the script (not a CLI's own side requests). */
const turnsAnswered = (): number =>
  server!.requests.filter(request => request.answer !== 'title' && request.answer !== '').length

/** `ps` lines of `pids`, for a failure's message. */
function processLines(pids: number[]): string {
  if (pids.length === 0) return 'none'
  return pids
    .map(pid => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        const [, ppid, pgrp, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        return `pid ${pid} ppid ${ppid} pgid ${pgrp} sid ${session}`
      } catch {
        return `pid ${pid} (gone)`
      }
    })
    .join('; ')
}

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

for (const mode of LIVE_MODES)
  for (const d of DRIVERS)
    describeWithAgent(d.name)(`a ralph loop on the real ${d.name} CLI`, () =>
      describeMode(mode)(mode.name, () => {
        if (mode.isolated) {
          beforeEach(() => {
            isolated = true
          })
          afterEach(async () => {
            cancel.abort()
            await releaseLive(liveWorkspace(), isolation)
          })
        }

        it(
          'fails its gate in iteration 1 and passes in iteration 2: the stream parsed, the cost metered, the transcript kept',
          async () => {
            const script = byPrompt([
              [
                /Pass 2:/,
                [
                  d.shell('cat answer.txt'),
                  d.shell('printf "42\\n" > answer.txt'),
                  text('Fixed it: 42.\n\n<promise>COMPLETE</promise>')
                ]
              ],
              [
                /Pass 1:/,
                [d.shell('printf "41\\n" > answer.txt'), text('Wrote 41.\n\n<promise>COMPLETE</promise>')]
              ]
            ])
            const result = await runLive(d, {
              script,
              config: { maxIterations: 3, maxCostUsd: 5 }
            })

            expect(server!.problems).toEqual([])
            expect(result.stopReason).toBe('all_checks_passed')
            expect(result.iterations.map(it => it.verdict)).toEqual(['checks_failed', 'passed'])
            expect(readFileSync(join(h.repo.dir, 'answer.txt'), 'utf8')).toBe('42\n')
            // Written by the agent's shell: as the agent's own user in the isolated mode.
            expect(statSync(join(h.repo.dir, 'answer.txt')).uid).toBe(agentUid())
            const [first, second] = result.iterations.map(it => it.agent!)
            expect(second).toMatchObject({
              preset: d.name,
              success: true,
              finalMessage: 'Fixed it: 42.\n\n<promise>COMPLETE</promise>'
            })
            // Two turns, then three, of TURN tokens each: priced at the table's rates, by the CLI or by us.
            for (const [run, turns] of [
              [first, 2],
              [second, 3]
            ] as const) {
              const tokens = { input: turns * TURN.input, output: turns * TURN.output }
              expect(run.usage).toMatchObject({ ...tokens, cost_source: d.costSource })
              expect(run.usage.cost_usd).toBeCloseTo(tableCost(d.name, tokens), 8)
            }
            expect(result.cost).toMatchObject({ source: d.costSource, enforced: true })
            // The readable transcript: the shell calls, and the run's closing line.
            const transcript = log(2, 'agent.log').split('\n')
            expect(transcript.filter(line => line.startsWith(`→ ${d.shellTool} `))).toHaveLength(2)
            expect(transcript.some(line => d.closingLine.test(line))).toBe(true)
            expect(log(2, 'agent.jsonl').length).toBeGreaterThan(0)
          },
          TWO_RUNS_MS
        )

        it(
          'goes on while the completion tag is only mentioned, and stops when it is given',
          async () => {
            const script = byPrompt([
              [/Pass 2:/, [text('All done.\n\n<promise>COMPLETE</promise>')]],
              [
                /Pass 1:/,
                [
                  d.shell('printf "one\\n" > notes.txt'),
                  text('I will not say <promise>COMPLETE</promise> until the notes are checked.')
                ]
              ]
            ])
            const result = await runLive(d, {
              script,
              config: { maxIterations: 3 },
              gated: false
            })

            expect(server!.problems).toEqual([])
            expect(result.stopReason).toBe('completed')
            expect(result.iterations.map(it => [it.verdict, it.completion.tag])).toEqual([
              ['ran', false],
              ['completed', true]
            ])
            expect(statSync(join(h.repo.dir, 'notes.txt')).uid).toBe(agentUid())
            expect(result.iterations[0].agent?.finalMessage).toBe(
              'I will not say <promise>COMPLETE</promise> until the notes are checked.'
            )
          },
          TWO_RUNS_MS
        )

        it(
          'is killed mid-run when its usage crosses the dollar budget (the slow next turn never comes)',
          async () => {
            const big = { input: 100000, output: 1000 }
            const budget = tableCost(d.name, big) / 2
            const started = Date.now()
            const result = await runLive(d, {
              script: [
                d.shell('printf "hi\\n" > hello.txt', { usage: big }),
                text('never sent', { delayMs: 120000 })
              ],
              config: { maxIterations: 3, maxCostUsd: budget },
              // claude would stop itself at the budget the loop hands it: a larger cap of the user's keeps it going.
              agentExtra: d.name === 'claude' ? ' --max-budget-usd 50' : '',
              gated: false
            })

            expect(result.stopReason).toBe('budget_exhausted')
            expect(Date.now() - started).toBeLessThan(100000)
            const agent = result.iterations[0].agent!
            expect(agent.killedBy).toBe('budget_exhausted')
            expect(agent.usage.input).toBeGreaterThanOrEqual(big.input)
            expect(agent.usage.cost_usd).toBeGreaterThanOrEqual(budget)
            expect(result.enforcement).toMatchObject({ cause: 'budget_exhausted', killed: 'agent' })
            expect(turnsAnswered()).toBeLessThanOrEqual(2)
            await waitFor(() => survivorsIn(h.repo.dir).length === 0, 'the killed tree being gone', 10000)
            // From the first model request to the crossing: how late the CLI's usage reaches the meter.
            const firstRequest = server!.requests.find(request => request.answer !== 'title')!.at.getTime()
            const seen = Date.parse(result.enforcement!.crossedAt) - firstRequest
            measured.push(
              `  ${d.name.padEnd(8)} dollar cap: usage seen ${seen} ms after the turn's request, tree killed in ${result.enforcement!.latencyMs} ms`
            )
          },
          ONE_RUN_MS
        )

        it(
          'is killed with its whole tree when the time budget runs out while a tool runs',
          async () => {
            const marker = `ralph-live-time-${d.name}-${process.pid}-${Date.now()}`
            // Time stands still until the tool runs; then the budget's one second runs out while it does.
            const clock = pausedClock()
            const running = runLive(d, {
              script: [d.shell(`node -e 'setTimeout(() => {}, 600000)' ${marker}`), text('never sent')],
              config: { maxIterations: 3, maxTimeSeconds: 1 },
              ports: { clock },
              gated: false
            })
            // The deadline, set an hour off, comes the moment the tool's process exists.
            await waitFor(
              () => survivorsMatching(marker).length > 0,
              `${d.name}'s tool starting`,
              ONE_RUN_MS - 30000
            )
            // The tool (and the shell around it) runs as the agent's user.
            const tool = survivorsMatching(marker)
            expect(tool.map(uidOf).filter(uid => uid !== undefined && uid !== agentUid())).toEqual([])
            clock.resume()
            const result = await running

            expect(result.stopReason).toBe('timeout')
            expect(result.iterations[0].agent?.killedBy).toBe('timeout')
            expect(result.enforcement).toMatchObject({ cause: 'timeout', killed: 'agent' })
            await waitFor(
              () => survivorsMatching(marker).length === 0,
              `the tool being gone (left: ${processLines(survivorsMatching(marker))})`,
              10000
            )
            await waitFor(() => survivorsIn(h.repo.dir).length === 0, 'the killed tree being gone', 10000)
            measured.push(
              `  ${d.name.padEnd(8)} time cap:   tree (the tool's process included) killed in ${result.enforcement!.latencyMs} ms`
            )
          },
          ONE_RUN_MS
        )
      })
    )

describeWithAgent('claude')('what only the real claude CLI does in a loop', () => {
  const claude = DRIVERS.find(d => d.name === 'claude')!

  it('stops itself at the remaining budget the loop passed it (--max-budget-usd)', async () => {
    const script = [
      claudeWrite('hello.txt', 'hi\n', { usage: { input: 100000, output: 2000 } }),
      text('Done.', { delayMs: 60000 })
    ]
    const result = await runLive(claude, {
      script,
      config: { maxIterations: 3, maxCostUsd: 0.05 },
      gated: false
    })
    expect(result.stopReason).toBe('budget_exhausted')
    const agent = result.iterations[0].agent!
    expect(agent.argv.slice(-2)).toEqual(['--max-budget-usd', '0.05'])
    // Whichever came first (claude's own stop or the loop's kill), the run's cost is known and over budget.
    expect(agent.usage.cost_usd).toBeGreaterThanOrEqual(0.05)
  })

  it('an API error (is_error, subtype "success") fails the iteration with the error named', async () => {
    const result = await runLive(claude, {
      script: always(httpError(529, 'overloaded_error', { retry: false })),
      config: { maxIterations: 1, stopOnError: true }
    })
    expect(result.stopReason).toBe('agent_error')
    const agent = result.iterations[0].agent!
    expect(agent).toMatchObject({ success: false, isError: true, failure: { kind: 'api_error' } })
    expect(agent.failure!.message).toMatch(/^API Error: 529/)
    expect(result.iterations[0].verdict).toBe('agent_failed')
    expect(log(1, 'agent.log')).toContain('[result] success (error)')
  })

  it('a stream that ends abruptly is an API error after claude retried it, and the retry is counted', async () => {
    server = await claude.startServer({ script: always(abruptEnd('end')) })
    h.writeRalph(`agent: ${claude.agent()}`, BODY)
    const { result } = await h.run(
      {
        maxIterations: 1,
        agentEnv: { set: { ...claude.env(server.url, home), CLAUDE_CODE_MAX_RETRIES: '1' } }
      },
      { signal: cancel.signal }
    )
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
})

describeWithAgent('codex')('what only the real codex CLI does in a loop', () => {
  it('turn.failed fails the iteration as an API error', async () => {
    const codex = DRIVERS.find(d => d.name === 'codex')!
    const result = await runLive(codex, {
      script: always(httpError(400, 'invalid_request_error')),
      config: { maxIterations: 1 },
      gated: false
    })
    expect(result.iterations[0].agent).toMatchObject({
      success: false,
      isError: true,
      failure: { kind: 'api_error' }
    })
  })
})
