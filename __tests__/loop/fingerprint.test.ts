import { tmpdir } from 'node:os'
import { failureFingerprint, normaliseFailureOutput } from '../../src/loop/fingerprint.js'

test('timestamps, durations, hex addresses, temp paths and stack-frame line numbers are normalised away', () => {
  const run1 = [
    '2026-11-02T10:11:12.345Z FAIL src/parse.test.ts (1.234 s)',
    '  at parse (/work/src/parse.ts:12:5)',
    `  wrote ${tmpdir()}/jest-abc123/out.txt`,
    '  object at 0x7ffd1234 id 3f9a2b7c9d',
    'Tests: 1 failed, 3 passed, in 2.5s at 10:11:14'
  ].join('\n')
  const run2 = [
    '2026-11-03T08:01:02.001Z FAIL src/parse.test.ts (0.987 s)',
    '  at parse (/work/src/parse.ts:14:9)',
    '  wrote /tmp/jest-zz99/out.txt',
    '  object at 0x55aa0011 id 77ab2b7c01',
    'Tests: 1 failed, 3 passed, in 900ms at 08:01:03'
  ].join('\n')
  expect(normaliseFailureOutput(run1)).toBe(normaliseFailureOutput(run2))
  expect(failureFingerprint([{ name: 'test', output: run1 }])).toBe(
    failureFingerprint([{ name: 'test', output: run2 }])
  )
})

test('a different failure gives a different fingerprint', () => {
  const a = failureFingerprint([{ name: 'test', output: 'Tests: 1 failed, 3 passed' }])
  const b = failureFingerprint([{ name: 'test', output: 'Tests: 2 failed, 2 passed' }])
  expect(a).not.toBe(b)
})

test('the same output from a different check is a different failure', () => {
  expect(failureFingerprint([{ name: 'lint', output: 'x' }])).not.toBe(
    failureFingerprint([{ name: 'test', output: 'x' }])
  )
})

test('the order of the failing checks does not matter, and no failures give an empty fingerprint', () => {
  const a = { name: 'a', output: 'one' }
  const b = { name: 'b', output: 'two' }
  expect(failureFingerprint([a, b])).toBe(failureFingerprint([b, a]))
  expect(failureFingerprint([])).toBe('')
})

test('a long output whose length shifts by a few characters keeps its fingerprint', () => {
  const lines = (ms: number): string =>
    Array.from({ length: 500 }, (_, i) => `case ${i} ok (${ms} ms)`).join('\n') + '\nFAIL'
  expect(failureFingerprint([{ name: 't', output: lines(5) }])).toBe(
    failureFingerprint([{ name: 't', output: lines(12345) }])
  )
})

test('ANSI colours do not matter', () => {
  expect(normaliseFailureOutput('\x1b[31mFAIL\x1b[0m x')).toBe(normaliseFailureOutput('FAIL x'))
})
