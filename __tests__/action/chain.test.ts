// When a job hands its loop on (continue-jobs): a pure decision, tested with a table.
import { execFileSync } from 'node:child_process'
import { claimRef, continuesIn } from '../../src/action/chain.js'
import type { LoopResult } from '../../src/loop/index.js'

const result = (
  over: Partial<LoopResult> = {}
): Pick<LoopResult, 'stopReason' | 'success' | 'iterations' | 'cost'> => ({
  stopReason: 'timeout',
  success: false,
  iterations: new Array(3).fill({}) as LoopResult['iterations'],
  cost: {
    totalUsd: 1,
    source: 'reported',
    enforced: true,
    tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  },
  ...over
})
const inputs = { continueJobs: 3, maxIterations: 10, maxCostUsd: 5 }

test.each([
  ['out of time, with jobs, iterations and dollars left', inputs, result(), 1, false, true],
  [
    'continue-jobs 1 (the default) never continues',
    { ...inputs, continueJobs: 1 },
    result(),
    1,
    false,
    false
  ],
  [
    'a loop that succeeded',
    inputs,
    result({ success: true, stopReason: 'all_checks_passed' }),
    1,
    false,
    false
  ],
  ['a loop stopped by its iterations', inputs, result({ stopReason: 'max_iterations' }), 1, false, false],
  ['a loop stopped by its dollars', inputs, result({ stopReason: 'budget_exhausted' }), 1, false, false],
  ['a cancelled loop', inputs, result({ stopReason: 'cancelled' }), 1, false, false],
  ['the breaker', inputs, result({ stopReason: 'circuit_open' }), 1, false, false],
  ['the last job the chain may run', inputs, result(), 3, false, false],
  [
    'every iteration spent over the chain',
    inputs,
    result({ iterations: new Array(10).fill({}) as LoopResult['iterations'] }),
    2,
    false,
    false
  ],
  [
    'every dollar spent over the chain',
    inputs,
    result({ cost: { ...result().cost, totalUsd: 5 } }),
    2,
    false,
    false
  ],
  ["a person's pull request branch", inputs, result(), 1, 'pr', false],
  ['a branch that was there before the chain', inputs, result(), 1, 'existing', false]
] as const)('%s', (_, given, loop, jobs, onPr, continues) => {
  expect(continuesIn(given, loop, jobs, onPr || undefined).continues).toBe(continues)
})

test('each cap that ends a chain says which', () => {
  expect(continuesIn(inputs, result(), 3)).toEqual({
    continues: false,
    why: 'the chain has run its 3 jobs (continue-jobs)'
  })
  expect(continuesIn(inputs, result({ cost: { ...result().cost, totalUsd: 7 } }), 1)).toEqual({
    continues: false,
    why: 'the chain has spent its $5 (max-cost)'
  })
})

test("a ralph's name a chain cannot carry ends the chain at its first job, not at a refusal in the next", () => {
  expect(continuesIn({ ...inputs, ralphName: 'tâche\nnext' }, result(), 1)).toMatchObject({
    continues: false
  })
  expect(continuesIn({ ...inputs, ralphName: 'fix-tests' }, result(), 1)).toEqual({ continues: true })
})

test("the claim's ref is a valid ref for any name, and two names never share one", () => {
  const names = ['fix-tests', 'fix tests', 'v1..2', 'fix.lock', '.hidden', '-', 'a'.repeat(200)]
  const refs = names.map(ralph => claimRef({ runId: '42', runAttempt: '1', ralph }))
  for (const ref of refs) expect(() => execFileSync('git', ['check-ref-format', ref])).not.toThrow()
  expect(new Set(refs).size).toBe(names.length)
  expect(refs[0]).toMatch(/^refs\/ralph-chain\/42\/1\/fix-tests-[0-9a-f]{8}$/)
})
