import { StagnationBreaker } from '../../src/loop/breaker.js'

const thresholds = { noProgress: 3, sameFailure: 3, agentFailures: 3 }
const ok = { progressed: true, failureFingerprint: '', agentFailed: false }

test('three iterations without a change to the work tree open the circuit', () => {
  const breaker = new StagnationBreaker(thresholds)
  expect(breaker.record({ ...ok, progressed: false })).toBeUndefined()
  expect(breaker.record({ ...ok, progressed: false })).toBeUndefined()
  expect(breaker.record({ ...ok, progressed: false })).toMatchObject({ rule: 'no_progress', count: 3 })
})

test('progress resets the no-progress count', () => {
  const breaker = new StagnationBreaker(thresholds)
  breaker.record({ ...ok, progressed: false })
  breaker.record({ ...ok, progressed: false })
  breaker.record(ok)
  expect(breaker.record({ ...ok, progressed: false })).toBeUndefined()
})

test('without git (progress unknown) the no-progress rule never trips', () => {
  const breaker = new StagnationBreaker(thresholds)
  for (let i = 0; i < 5; i++) expect(breaker.record({ ...ok, progressed: undefined })).toBeUndefined()
})

test('three iterations failing with the same fingerprint open the circuit; a different one restarts the count', () => {
  const breaker = new StagnationBreaker(thresholds)
  breaker.record({ ...ok, failureFingerprint: 'aaa' })
  breaker.record({ ...ok, failureFingerprint: 'bbb' })
  breaker.record({ ...ok, failureFingerprint: 'bbb' })
  expect(breaker.record({ ...ok, failureFingerprint: 'bbb' })).toMatchObject({
    rule: 'same_failure',
    count: 3
  })
})

test('three consecutive agent failures open the circuit and are named before the other rules', () => {
  const breaker = new StagnationBreaker(thresholds)
  const failing = { progressed: false, failureFingerprint: 'x', agentFailed: true }
  breaker.record(failing)
  breaker.record(failing)
  expect(breaker.record(failing)).toMatchObject({ rule: 'agent_failures', count: 3 })
})

test('a threshold of 0 turns its rule off', () => {
  const breaker = new StagnationBreaker({ noProgress: 0, sameFailure: 0, agentFailures: 0 })
  for (let i = 0; i < 5; i++)
    expect(breaker.record({ progressed: false, failureFingerprint: 'x', agentFailed: true })).toBeUndefined()
})
