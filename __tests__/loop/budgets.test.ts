// Budgets enforced by force and cancellation: the agent's whole tree is killed, the loop stops with the
// right reason, the record is complete, and the enforcement latency is in the result.
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { createCostMeter, type CostMeter, type LoopEvent } from '../../src/loop/index.js'
import { pausedClock } from '../support/clock.js'
import { harness, isAlive, pidsIn, waitFor, waitForFile, type Harness } from './harness.js'

let h: Harness
beforeEach(() => {
  h = harness()
})
afterEach(() => h.cleanup())

/** An agent whose whole tree ignores SIGTERM (SIG_IGN is inherited): only SIGKILL ends it. */
function stubbornAgent(): string {
  return h.script(
    'stubborn.sh',
    `cat >/dev/null
trap '' TERM
sleep 60 &
child=$!
echo "$$ $child" > '${h.tools}/pids'
touch '${h.tools}/started'
wait $child`
  )
}

test('when the total time runs out mid-agent, the tree that ignores SIGTERM is killed and the loop stops as timeout', async () => {
  h.writeRalph(`agent: ${stubbornAgent()}`, 'Work.')
  // The budget's second starts once the agent runs, however long the loaded machine takes to start it.
  const clock = pausedClock()
  const running = h.run({ maxTimeSeconds: 1, killGraceMs: 300 }, { clock })
  await waitForFile(path.join(h.tools, 'started'))
  clock.resume()
  const { result } = await running
  expect(result.stopReason).toBe('timeout')
  expect(result.iterations).toHaveLength(1)
  const [iteration] = result.iterations
  expect(iteration.verdict).toBe('interrupted')
  expect(iteration.agent).toMatchObject({ killedBy: 'timeout', success: false, timedOut: false })
  for (const pid of pidsIn(path.join(h.tools, 'pids'))) expect(isAlive(pid)).toBe(false)
  expect(result.enforcement).toMatchObject({ cause: 'timeout', killed: 'agent' })
  // SIGTERM is ignored, so the tree lives through the 300 ms grace, then SIGKILL. (How fast the kill is
  // once due is the bench's figure: `npm run bench -- enforcement`.)
  expect(result.enforcement?.latencyMs).toBeGreaterThanOrEqual(250)
  // Ended by the kill, long before the agent's own minute.
  expect(result.durationMs).toBeLessThan(30_000)
  expect(h.status()).toMatchObject({ state: 'finished', stopReason: 'timeout' })
})

test('the time budget includes the checks: a slow check is killed and the loop stops as timeout', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null')
  const check = h.script('slow-check.sh', `touch '${h.tools}/check-started'\nexec sleep 60`)
  h.writeRalph(`agent: ${agent}\nchecks:\n  - name: slow\n    run: ${check}`, 'Work.')
  // Time stands still until the check runs: the agent's part of the budget cannot use it all up first.
  const runUntilTheCheck = async (overrides: Parameters<Harness['run']>[0]) => {
    rmSync(path.join(h.tools, 'check-started'), { force: true })
    const clock = pausedClock()
    const running = h.run({ maxTimeSeconds: 1, ...overrides }, { clock })
    await waitForFile(path.join(h.tools, 'check-started'))
    clock.resume()
    return (await running).result
  }
  const result = await runUntilTheCheck({ baseline: false })
  expect(result.stopReason).toBe('timeout')
  expect(result.iterations[0].checks[0]).toMatchObject({ name: 'slow', passed: false, killedBy: 'timeout' })
  expect(result.enforcement).toMatchObject({ cause: 'timeout', killed: 'check' })
  // With the baseline (the default), the gates before iteration 1 count too: no agent ever runs.
  const withBaseline = await runUntilTheCheck({})
  expect(withBaseline.stopReason).toBe('timeout')
  expect(withBaseline.baseline?.checks[0]).toMatchObject({ name: 'slow', killedBy: 'timeout' })
  expect(withBaseline.iterations).toEqual([])
  expect(withBaseline.enforcement).toMatchObject({ cause: 'timeout', killed: 'check' })
})

test('no iteration starts when the time budget is already spent', async () => {
  h.writeRalph(`agent: ${stubbornAgent()}`, 'Work.')
  const { result } = await h.run({ maxTimeSeconds: 0 })
  expect(result.stopReason).toBe('timeout')
  expect(result.iterations).toHaveLength(0)
  expect(existsSync(path.join(h.tools, 'started'))).toBe(false)
})

test('no iteration starts when the dollar budget is already spent', async () => {
  h.writeRalph(`agent: ${stubbornAgent()}`, 'Work.')
  const meter = createCostMeter()
  meter.beginRun()
  meter.endRun({ input: 0, output: 0, cache_read: 0, cache_write: 0, reportedUsd: 2 })
  const { result } = await h.run({ maxCostUsd: 1 }, { costMeter: meter })
  expect(result.stopReason).toBe('budget_exhausted')
  expect(result.iterations).toHaveLength(0)
})

/** A fake `claude` (the preset is chosen by the program's name) that streams per-turn usage forever. */
function spendingClaude(): string {
  const bin = path.join(h.tools, 'bin')
  mkdirSync(bin, { recursive: true })
  const script = h.script(
    'spending-claude.sh',
    `cat >/dev/null
echo "$@" > '${h.tools}/argv'
trap '' TERM
echo '{"type":"system","subtype":"init","session_id":"s","model":"test-model"}'
sleep 60 &
echo "$$ $!" > '${h.tools}/pids'
for i in $(seq 1 600); do
  echo '{"type":"assistant","message":{"id":"m'$i'","model":"test-model","content":[{"type":"text","text":"turn '$i'"}],"usage":{"input_tokens":0,"output_tokens":10}}}'
  sleep 0.05
done`
  )
  const claude = path.join(bin, 'claude')
  symlinkSync(script, claude)
  return claude
}

test('crossing the dollar budget mid-run kills the agent tree at once: budget_exhausted, latency recorded', async () => {
  h.writeRalph(`agent: ${spendingClaude()} -p`, 'Work.')
  // The agents issue brings the real price table; here 1 output token = $0.001, so each turn is $0.01.
  const meter = createCostMeter(usage => usage.output * 0.001)
  const events: LoopEvent[] = []
  // A grace longer than the agent's 30 s of turns: a budget kill must not wait it (no SIGTERM grace).
  const { result } = await h.run(
    { maxCostUsd: 0.05, killGraceMs: 60_000 },
    { costMeter: meter, emit: e => events.push(e) }
  )
  expect(result.stopReason).toBe('budget_exhausted')
  const agent = result.iterations[0].agent
  expect(agent).toMatchObject({ preset: 'claude', killedBy: 'budget_exhausted' })
  expect(agent?.usage.cost_source).toBe('estimated')
  // Turns printed before the kill landed were spent too, and are counted.
  expect(agent?.usage.cost_usd).toBeGreaterThanOrEqual(0.05)
  expect(result.cost).toMatchObject({ source: 'estimated', enforced: true, maxUsd: 0.05 })
  expect(result.enforcement).toMatchObject({ cause: 'budget_exhausted', killed: 'agent' })
  // Killed at the crossing, long before the agent's 30 s of turns would end (the latency is the bench's figure).
  expect(result.enforcement?.latencyMs).toBeLessThan(20_000)
  for (const pid of pidsIn(path.join(h.tools, 'pids'))) expect(isAlive(pid)).toBe(false)
  const updates = events.filter(e => e.type === 'cost_update')
  expect(updates.length).toBeGreaterThanOrEqual(5)
  // The reference's flags were appended to the user's command, then the budget claude can enforce itself.
  expect(readFileSync(path.join(h.tools, 'argv'), 'utf8').trim()).toBe(
    '-p --output-format stream-json --verbose --max-budget-usd 0.05'
  )
  // Raw stream and readable transcript side by side.
  expect(h.readRecord('logs/iteration-001/agent.jsonl')).toContain('"type":"assistant"')
  expect(h.readRecord('logs/iteration-001/agent.log')).toContain('turn 1\n')
})

test('a dollar budget with an agent that reports no cost is said to be unenforceable, loudly', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null')
  h.writeRalph(`agent: ${agent}`, 'Work.')
  const { result, events } = await h.run({ maxIterations: 2, maxCostUsd: 1 })
  expect(result.stopReason).toBe('max_iterations')
  expect(result.cost).toMatchObject({ source: 'unknown', enforced: false, totalUsd: 0 })
  // Said before the agent first runs (it may report its cost), then once it did not, each with the fix.
  const warnings = events.flatMap((e, i) => (e.type === 'warning' ? [{ at: i, message: e.message }] : []))
  const firstRun = events.findIndex(e => e.type === 'iteration_started')
  expect(warnings).toHaveLength(2)
  expect(warnings[0].at).toBeLessThan(firstRun)
  expect(warnings[0].message).toMatch(
    /^the \$1 budget \(max-cost\) holds only if the agent reports its cost.*--cost-pattern/
  )
  expect(warnings[1].at).toBeGreaterThan(firstRun)
  expect(warnings[1].message).toMatch(/cost is unknown.*cannot be enforced.*ralph-cost: usd=.*--cost-pattern/)
  expect(result.warnings).toEqual(warnings.map(w => w.message))
  expect(h.readRecord('progress.md')).toContain('could not be enforced')
})

test('a dollar budget with codex naming no model is said to be unenforceable before codex runs, naming the model proxy', async () => {
  // A stand-in codex (its config.toml, in an empty CODEX_HOME, names no model either).
  const codex = h.script('codex', 'cat >/dev/null')
  h.writeRalph(`agent: ${codex} exec -`, 'Work.')
  const { result, events } = await h.run({
    maxIterations: 1,
    maxCostUsd: 3,
    agentEnv: { set: { CODEX_HOME: h.tools } }
  })
  const firstRun = events.findIndex(e => e.type === 'iteration_started')
  const early = events.slice(0, firstRun).flatMap(e => (e.type === 'warning' ? [e.message] : []))
  expect(early).toEqual([
    expect.stringMatching(
      /^the agent's cost cannot be known \(codex names no model .*\$3 budget.*model-proxy: true; the CLI: --model-proxy/
    )
  ])
  expect(result.warnings[0]).toBe(early[0])
})

test('a run cancelled mid-agent kills the tree and leaves a complete record saying cancelled', async () => {
  h.writeRalph(`agent: ${stubbornAgent()}`, 'Work.')
  const controller = new AbortController()
  const running = h.run({ maxIterations: 5 }, { signal: controller.signal })
  await waitForFile(path.join(h.tools, 'started'))
  // While the agent runs, status.json soon names the iteration in flight.
  await waitFor(() => h.status().inFlight === 1)
  expect(h.status()).toMatchObject({ state: 'running', iterations: [] })
  controller.abort()
  const { result } = await running
  expect(result.stopReason).toBe('cancelled')
  expect(result.iterations[0]).toMatchObject({ verdict: 'interrupted', agent: { killedBy: 'cancelled' } })
  for (const pid of pidsIn(path.join(h.tools, 'pids'))) expect(isAlive(pid)).toBe(false)
  const status = h.status()
  expect(status).toMatchObject({
    state: 'finished',
    stopReason: 'cancelled',
    enforcement: { cause: 'cancelled' }
  })
  expect(status.inFlight).toBeUndefined()
  expect(h.readRecord('logs/iteration-001/prompt.md')).toBe(
    'Work.\n\n---\n\nIMPORTANT: When you make any git commits, include the following trailer at the end of your commit message:\n\nCo-authored-by: Ralphify <noreply@ralphify.co>'
  )
  expect(existsSync(path.join(h.record, 'logs/iteration-001/agent.log'))).toBe(true)
  expect(h.readRecord('progress.md')).toMatch(
    /## Stopped: cancelled[\s\S]*the agent was stopped \d+ ms after the cancel\n[\s\S]*## Iteration 1: interrupted/
  )
})

test('cancelling during the delay cuts it short', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null')
  h.writeRalph(`agent: ${agent}`, 'Work.')
  const controller = new AbortController()
  const started = Date.now()
  const { result } = await h.run(
    { maxIterations: 3, delaySeconds: 30 },
    { signal: controller.signal, emit: e => e.type === 'waiting' && controller.abort() }
  )
  expect(result.stopReason).toBe('cancelled')
  expect(result.iterations).toHaveLength(1)
  // Cut short: far less than the 30 s delay.
  expect(Date.now() - started).toBeLessThan(20_000)
})

test('a cost meter supplied by a port sees every agent run', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null')
  h.writeRalph(`agent: ${agent}`, 'Work.')
  const calls: string[] = []
  const real = createCostMeter()
  const meter: CostMeter = {
    ...real,
    beginRun: () => {
      calls.push('begin')
      real.beginRun()
    },
    endRun: final => {
      calls.push('end')
      return real.endRun(final)
    }
  }
  await h.run({ maxIterations: 2 }, { costMeter: meter })
  expect(calls).toEqual(['begin', 'end', 'begin', 'end'])
})

test('the finish signal lets the iteration in flight finish, then stops as cancelled', async () => {
  const agent = h.script(
    'agent.sh',
    `cat >/dev/null\ntouch '${h.tools}/started'\nuntil [ -e '${h.tools}/go' ]; do sleep 0.02; done\necho finished`
  )
  h.writeRalph(`agent: ${agent}`, 'Work.')
  const finish = new AbortController()
  const running = h.run({ maxIterations: 5 }, { finishSignal: finish.signal })
  await waitForFile(path.join(h.tools, 'started'))
  finish.abort()
  // Only now may the agent finish: the signal certainly came while it was in flight.
  writeFileSync(path.join(h.tools, 'go'), '')
  const { result } = await running
  expect(result.stopReason).toBe('cancelled')
  expect(result.stopDetail).toBe('stopped after the iteration in flight, as asked')
  expect(result.iterations).toHaveLength(1)
  expect(result.iterations[0].agent).toMatchObject({ exitCode: 0, success: true })
  expect(result.iterations[0].agent?.killedBy).toBeUndefined()
})
