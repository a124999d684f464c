// The stop decision alone, as a table: what ends the loop before an iteration and after one, most decisive
// first. The loop tests (budgets, breaker, completion) prove the same rules through runLoop.
import { decideStop, type Budgets, type IterationEnd } from '../../src/loop/stop.js'
import type { IterationRecord } from '../../src/loop/index.js'
import type { BreakerTrip } from '../../src/loop/breaker.js'

const record = (over: Partial<IterationRecord> = {}): IterationRecord => ({
  iteration: 2,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1000,
  verdict: 'checks_failed',
  commands: [],
  checks: [],
  completion: { tag: false, given: false },
  failureFingerprint: 'f',
  ...over
})

const failedAgent = (over: object = {}): NonNullable<IterationRecord['agent']> =>
  ({ success: false, exitCode: 2, timedOut: false, ...over }) as NonNullable<IterationRecord['agent']>

const budgets = (over: Partial<Budgets> = {}): Budgets => ({
  maxIterations: 5,
  maxCostUsd: 1,
  ran: 2,
  timeSpent: false,
  costSpent: false,
  finishAsked: false,
  gated: true,
  stopOnError: false,
  ...over
})

const end = (over: Partial<IterationEnd> = {}): IterationEnd => ({
  iteration: 2,
  record: record(),
  success: false,
  interrupted: false,
  ...over
})

const timeTrip = { cause: 'timeout' as const, at: 5, detail: 'the total time budget ran out' }
const noProgress: BreakerTrip = { rule: 'no_progress', count: 3, message: 'no change in 3 iterations' }

test.each<[string, IterationEnd | undefined, Partial<Budgets>, BreakerTrip | undefined, string | undefined]>([
  // Before an iteration: only budgets and requests.
  ['before: nothing stops the first iteration', undefined, { ran: 0 }, undefined, undefined],
  [
    'before: the guard fired',
    undefined,
    { trip: timeTrip },
    undefined,
    'timeout: the total time budget ran out'
  ],
  [
    'before: a finish was asked',
    undefined,
    { finishAsked: true },
    undefined,
    'cancelled: stopped after the iteration in flight, as asked'
  ],
  [
    'before: the time is spent',
    undefined,
    { timeSpent: true },
    undefined,
    'timeout: the total time budget is spent'
  ],
  [
    'before: the cost is spent',
    undefined,
    { costSpent: true },
    undefined,
    'budget_exhausted: the cost budget ($1) is spent'
  ],
  [
    'before: the guard firing wins over a finish asked',
    undefined,
    { trip: timeTrip, finishAsked: true },
    undefined,
    'timeout: the total time budget ran out'
  ],
  // After an iteration: its outcome first.
  [
    'after: a crash',
    end({ crash: 'git broke' }),
    { trip: timeTrip },
    noProgress,
    'agent_error: Run crashed: git broke'
  ],
  [
    'after: gates pass, even at the cap',
    end({ success: true }),
    { ran: 5 },
    undefined,
    'all_checks_passed: every check passed in iteration 2'
  ],
  [
    'after: without gates, the completion signal',
    end({ success: true }),
    { gated: false },
    undefined,
    'completed: the agent gave the completion signal in iteration 2'
  ],
  [
    'after: interrupted by the guard, before the breaker',
    end({ interrupted: true }),
    { trip: timeTrip },
    noProgress,
    'timeout: the total time budget ran out'
  ],
  [
    'after: a usage limit that cannot be waited out',
    end({ limitStop: 'the agent hit a usage limit and did not say when it lifts (x)' }),
    {},
    undefined,
    'agent_error: the agent hit a usage limit and did not say when it lifts (x)'
  ],
  [
    'after: stop-on-error and the agent failed',
    end({ record: record({ agent: failedAgent() }) }),
    { stopOnError: true },
    noProgress,
    'agent_error: the agent exited with 2 in iteration 2; stopping due to --stop-on-error'
  ],
  [
    'after: stop-on-error and the agent timed out',
    end({ record: record({ agent: failedAgent({ timedOut: true }) }) }),
    { stopOnError: true },
    undefined,
    'agent_error: the agent timed out in iteration 2; stopping due to --stop-on-error'
  ],
  [
    'after: stop-on-error does not count an iteration lost to a usage limit being waited out',
    end({ record: record({ agent: failedAgent() }), limitWaited: true }),
    { stopOnError: true },
    undefined,
    undefined
  ],
  [
    'after: the breaker opened, before the cap',
    end(),
    { ran: 5 },
    noProgress,
    'circuit_open: circuit open (no_progress): no change in 3 iterations'
  ],
  [
    'after: the cap',
    end(),
    { ran: 5, trip: timeTrip },
    undefined,
    'max_iterations: reached the cap of 5 iterations'
  ],
  [
    'after: the cap, with the gates green but no completion tag',
    end({ record: record({ verdict: 'checks_passed_no_tag' }) }),
    { ran: 1, maxIterations: 1, last: record({ verdict: 'checks_passed_no_tag' }) },
    undefined,
    'max_iterations: reached the cap of 1 iteration; the checks pass, but the agent has not given the completion tag'
  ],
  [
    'after: the guard fired once the iteration was over',
    end(),
    { trip: timeTrip },
    undefined,
    'timeout: the total time budget ran out'
  ],
  [
    'after: a finish was asked',
    end(),
    { finishAsked: true },
    undefined,
    'cancelled: stopped after the iteration in flight, as asked'
  ],
  ['after: nothing ends the loop', end(), {}, undefined, undefined],
  ['after: no cap, no stop', end(), { maxIterations: undefined, ran: 50 }, undefined, undefined]
])('%s', (_name, iteration, over, breaker, expected) => {
  const stop = decideStop(iteration, budgets(over), breaker)
  expect(stop && `${stop.reason}: ${stop.detail}`).toEqual(expected)
})
