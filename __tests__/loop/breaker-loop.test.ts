// The stagnation breaker in a running loop with gates: each rule opens the circuit and is named.
import { countRuns, harness, type Harness } from './harness.js'

let h: Harness
beforeEach(() => {
  h = harness()
})
afterEach(() => h.cleanup())

test('three iterations that leave the work tree unchanged open the circuit (no_progress)', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null')
  // The check fails differently every time, so only the no-progress rule can trip.
  h.writeRalph(
    `agent: ${agent}\nchecks:\n  - name: varies\n    run: 'echo "attempt $RANDOM$RANDOM words"; exit 1'`,
    'Work.'
  )
  const { result } = await h.run({ maxIterations: 10 })
  expect(result.stopReason).toBe('circuit_open')
  expect(result.breaker).toMatchObject({ rule: 'no_progress', count: 3 })
  expect(result.stopDetail).toBe(
    'circuit open (no_progress): the work tree did not change in 3 consecutive iterations'
  )
  expect(result.iterations.map(it => it.progressed)).toEqual([false, false, false])
})

test('three iterations failing the same way, timestamps aside, open the circuit (same_failure)', async () => {
  const agent = h.script('agent.sh', `${countRuns(h.tools)}\ncat >/dev/null\necho "attempt $n" > attempt.txt`)
  h.writeRalph(
    `agent: ${agent}\nchecks:\n  - name: test\n    run: 'echo "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ) FAIL parse.test.ts ($RANDOM ms)"; exit 1'`,
    'Work.'
  )
  const { result } = await h.run({ maxIterations: 10 })
  expect(result.stopReason).toBe('circuit_open')
  expect(result.breaker).toMatchObject({ rule: 'same_failure', count: 3 })
  expect(result.iterations.map(it => it.progressed)).toEqual([true, true, true])
  const fingerprints = new Set(result.iterations.map(it => it.failureFingerprint))
  expect(fingerprints.size).toBe(1)
})

test('three consecutive agent failures open the circuit (agent_failures)', async () => {
  const agent = h.script('agent.sh', `${countRuns(h.tools)}\ncat >/dev/null\necho $n > work.txt\nexit 2`)
  h.writeRalph(`agent: ${agent}\nchecks:\n  - name: ok\n    run: 'echo $RANDOM; exit 1'`, 'Work.')
  const { result } = await h.run({ maxIterations: 10 })
  expect(result.stopReason).toBe('circuit_open')
  expect(result.breaker).toMatchObject({ rule: 'agent_failures', count: 3 })
})

test('thresholds are configurable', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null')
  h.writeRalph(`agent: ${agent}\nchecks:\n  - name: varies\n    run: 'echo $RANDOM$RANDOM; exit 1'`, 'Work.')
  const { result } = await h.run({
    maxIterations: 10,
    breaker: { noProgress: 2, sameFailure: 0, agentFailures: 0 }
  })
  expect(result.breaker).toMatchObject({ rule: 'no_progress', count: 2 })
  expect(result.iterations).toHaveLength(2)
})

test('without gates there is no breaker: the reference loop runs to its cap', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null; exit 1')
  h.writeRalph(`agent: ${agent}`, 'Work.')
  const { result } = await h.run({ maxIterations: 5 })
  expect(result.stopReason).toBe('max_iterations')
  expect(result.iterations).toHaveLength(5)
})
