// The baseline: the gates run once before iteration 1, so the first agent run starts informed. Its failures
// fill iteration 1's placeholders as a failed iteration's would; it is recorded like an iteration 0; a green
// start either stops the loop (skip-if-green) or is said in the prompt.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { RalphError, CREDIT_TRAILER } from '../../src/ralph/index.js'
import { countRuns, harness, isAlive, pidsIn, waitForFile, type Harness } from './harness.js'

let h: Harness
beforeEach(() => {
  h = harness()
})
afterEach(() => h.cleanup())

/** An agent that keeps each prompt (prompt-N.txt) and counts its runs; it changes nothing. */
function recordingAgent(): string {
  return h.script('agent.sh', `${countRuns(h.tools)}\ncat > '${h.tools}/prompt-'$n.txt\necho "run $n"`)
}

const prompt = (n: number): string => readFileSync(path.join(h.tools, `prompt-${n}.txt`), 'utf8')
const agentRuns = (): number =>
  existsSync(path.join(h.tools, 'count')) ? Number(readFileSync(path.join(h.tools, 'count'), 'utf8')) : 0

const FAILING = `checks:
  - name: answer
    run: 'echo "line one of the failure"; echo "E: expected fixed, got nothing" >&2; exit 4'`

test("the baseline's failures fill iteration 1's ralph.failures exactly as a failed iteration's fill the next", async () => {
  h.writeRalph(
    `agent: ${recordingAgent()}\n${FAILING}`,
    'Fix it.\n\nFailures so far:\n\n{{ ralph.failures }}\n\nEnd.'
  )
  const expected =
    'Fix it.\n\nFailures so far:\n\n`answer` failed (exit code 4). The end of its output:\n\n' +
    '~~~\nline one of the failure\nE: expected fixed, got nothing\n~~~\n\nEnd.' +
    CREDIT_TRAILER
  const { result } = await h.run({ maxIterations: 2 })
  expect(prompt(1)).toBe(expected)
  expect(prompt(2)).toBe(expected)
  expect(result.baseline).toMatchObject({ verdict: 'failing', parallel: false })
  expect(result.baseline?.checks.map(c => [c.name, c.passed, c.exitCode])).toEqual([['answer', false, 4]])
  // Iterations are counted as before: the baseline is not one of them.
  expect(result.iterations.map(it => it.iteration)).toEqual([1, 2])
})

test('the baseline is recorded like an iteration 0: status.json, logs/iteration-000, progress.md', async () => {
  h.writeRalph(`agent: ${recordingAgent()}\n${FAILING}`, 'Fix it.')
  const { events } = await h.run({ maxIterations: 1 })
  const status = h.status()
  expect(status.baseline).toMatchObject({
    verdict: 'failing',
    checks: [{ name: 'answer', passed: false, log: 'logs/iteration-000/checks/answer.log' }]
  })
  expect(h.readRecord('logs/iteration-000/checks/answer.log')).toBe(
    'line one of the failure\nE: expected fixed, got nothing\n'
  )
  const progress = h.readRecord('progress.md')
  expect(progress).toMatch(
    /## Baseline \(iteration 0\): 1 of 1 checks failing\n\n- Started .* · the gates alone, before the first agent run\n- Checks: 0\/1 passing \(gates \d+\.\ds\)\n\n- FAIL `answer` \(\d+\.\ds, exit 4\)[\s\S]*## Iteration 1: checks failed/
  )
  // The overview at the top (the same renderer as the job summary's) has the baseline as row 0, each gate timed.
  expect(progress).toMatch(
    /## Overview\n\n\| # \| Verdict \| `answer` \| Cost \| Duration \|\n.*\n\| 0 \| 🔎 baseline: gates failing \| ✗ \d+\.\ds \| – \| \d+s \|\n\| 1 \| ❌ gates failed \| ✗ \d+\.\ds \|/
  )
  const types = events.map(e => e.type)
  expect(types.indexOf('baseline_started')).toBeLessThan(types.indexOf('baseline_finished'))
  expect(types.indexOf('baseline_finished')).toBeLessThan(types.indexOf('iteration_started'))
})

test("without a body placeholder, iteration 1's loop status section shows the baseline's failures and progress", async () => {
  h.writeRalph(`agent: ${recordingAgent()}\n${FAILING}`, 'Fix it.')
  await h.run({ maxIterations: 2 })
  const first = prompt(1)
  expect(first).toContain(
    '### Failing checks now (run before this iteration)\n\n`answer` failed (exit code 4). The end of its output:'
  )
  expect(first).toMatch(
    /### Recent progress\n\n- Before iteration 1 \(the gates alone, \d+\.\ds\): checks 0\/1 passing \(failing: answer\)\n/
  )
  expect(first).not.toContain('None yet: this is the first iteration.')
  // From iteration 2 on, the previous iteration's failures, as before.
  expect(prompt(2)).toContain(
    '### Failing checks from the previous iteration\n\n`answer` failed (exit code 4).'
  )
  expect(prompt(2)).toMatch(/- Before iteration 1 [^\n]*\n- Iteration 1 \(/)
})

test('a green baseline without skip-if-green is said in the prompt, and the loop runs as asked', async () => {
  h.writeRalph(`agent: ${recordingAgent()}\nchecks:\n  - name: ok\n    run: "true"`, 'Write the docs.')
  const { result } = await h.run({ maxIterations: 2 })
  expect(result.baseline?.verdict).toBe('green')
  // The agent never gives the tag: the gates pass, the task is not said done, so both iterations run.
  expect(result.stopReason).toBe('max_iterations')
  expect(agentRuns()).toBe(2)
  expect(prompt(1)).toContain(
    '### Failing checks now (run before this iteration)\n\nNone: every check passes now (they ran before this iteration). Do what the task asks all the same.'
  )
  expect(prompt(1)).toContain('- Before iteration 1 (the gates alone, ')
  expect(prompt(1)).toContain('checks 1/1 passing')
})

test('skip-if-green on a green tree stops already_green: no agent runs, nothing is spent, success', async () => {
  h.writeRalph(`agent: ${recordingAgent()}\nchecks:\n  - name: ok\n    run: echo fine`, 'Fix whatever fails.')
  const { result, events } = await h.run({ maxIterations: 3, skipIfGreen: true })
  expect(result).toMatchObject({ stopReason: 'already_green', success: true, iterations: [] })
  expect(result.stopDetail).toBe('every check passed before any agent ran (skip-if-green), so no agent ran')
  expect(result.cost.totalUsd).toBe(0)
  expect(agentRuns()).toBe(0)
  expect(events.some(e => e.type === 'agent_started')).toBe(false)
  // The outcome and the overview (the baseline as row 0) open the file; the baseline's section follows.
  expect(h.readRecord('progress.md')).toMatch(
    /## Stopped: already_green[\s\S]*\| 0 \| ✅ baseline: gates pass \| ✓ [\s\S]*## Baseline \(iteration 0\): every check passes/
  )
})

test('skip-if-green with a failing gate runs the loop, starting informed', async () => {
  h.writeRalph(`agent: ${recordingAgent()}\n${FAILING}`, 'Fix it: {{ ralph.failures }}')
  const { result } = await h.run({ maxIterations: 1, skipIfGreen: true })
  expect(result.stopReason).toBe('max_iterations')
  expect(agentRuns()).toBe(1)
  expect(prompt(1)).toContain('E: expected fixed, got nothing')
})

test('skip-if-green is refused without gates, and without the baseline, before anything runs', async () => {
  h.writeRalph(`agent: ${recordingAgent()}`, 'Work.')
  await expect(h.run({ skipIfGreen: true })).rejects.toThrow(
    new RalphError(
      "skip-if-green needs gates (the ralph's checks:, --check or the checks input): without them nothing can be found green."
    )
  )
  h.writeRalph(`agent: ${recordingAgent()}\nchecks:\n  - name: ok\n    run: "true"`, 'Work.')
  await expect(h.run({ skipIfGreen: true, baseline: false })).rejects.toThrow(
    /skip-if-green needs the baseline/
  )
  expect(agentRuns()).toBe(0)
  expect(existsSync(h.record)).toBe(false)
})

test('with the baseline off, or without gates, there is no baseline', async () => {
  h.writeRalph(`agent: ${recordingAgent()}\n${FAILING}`, 'Fix it.')
  const off = await h.run({ maxIterations: 1, baseline: false })
  expect(off.result.baseline).toBeUndefined()
  expect(off.events.some(e => e.type === 'baseline_started')).toBe(false)
  expect(existsSync(path.join(h.record, 'logs', 'iteration-000'))).toBe(false)
  expect(prompt(1)).toContain('None yet: this is the first iteration.')

  h.writeRalph(`agent: ${recordingAgent()}`, 'Work.')
  const plain = await h.run({ maxIterations: 1 })
  expect(plain.result.baseline).toBeUndefined()
  expect(plain.events.some(e => e.type === 'baseline_started' || e.type === 'check_finished')).toBe(false)
})

test('a cancel during the baseline kills the gate, no agent runs, and the record says what was stopped', async () => {
  const marker = path.join(h.tools, 'gate.pid')
  h.writeRalph(
    `agent: ${recordingAgent()}\nchecks:\n  - name: slow\n    run: 'echo $$ > ${marker}; sleep 60'`,
    'Work.'
  )
  const cancel = new AbortController()
  const running = h.run({ maxIterations: 2 }, { signal: cancel.signal })
  await waitForFile(marker, 30_000)
  cancel.abort()
  const { result } = await running
  expect(result.stopReason).toBe('cancelled')
  expect(result.baseline).toMatchObject({
    verdict: 'interrupted',
    checks: [{ name: 'slow', passed: false, killedBy: 'cancelled' }]
  })
  expect(result.enforcement).toMatchObject({ cause: 'cancelled', killed: 'check' })
  expect(result.iterations).toEqual([])
  expect(agentRuns()).toBe(0)
  expect(pidsIn(marker).filter(isAlive)).toEqual([])
  expect(h.readRecord('progress.md')).toContain('## Baseline (iteration 0): stopped')
})
