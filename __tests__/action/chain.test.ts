// When a job hands its loop on (continue-jobs): a pure decision, tested with a table.
import { continuesIn } from '../../src/action/chain.js'
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
