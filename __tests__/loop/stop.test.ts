// The stop decision alone, as a table: what ends the loop before an iteration and after one, most decisive
// first. The loop tests (budgets, breaker, completion) prove the same rules through runLoop.
import { decideStop, type Budgets, type IterationEnd } from '../../src/loop/stop.js'
import type { CheckRun, IterationRecord, VerificationRecord } from '../../src/loop/index.js'
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

/** A clean checkout whose gate failed with `tail`, after the setup commands `setup` (none: no setup ran). */
const gate = (run: string, passed: boolean, tail = ''): CheckRun => ({
  name: run,
  run,
  passed,
  exitCode: passed ? 0 : 1,
  timedOut: false,
  durationMs: 1,
  outputBytes: tail.length,
  tail,
  log: 'x'
})
const verified = (tail: string, setup: string[] = []): VerificationRecord => ({
  commit: 'abcdef0123456789',
  iteration: 2,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 10,
  verdict: 'failed',
  setup: setup.map(run => gate(run, true)),
  checks: [gate('npm test', false, tail)],
  checksMs: 1
})
const noSum = "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'sum' imported from /w/calc.test.js"
const missingSetup =
  "verify_failed: the gates passed in the loop's tree in iteration 2 but failed on a clean checkout of abcdef012345; a gate there could not find a module or a command and no setup ran: what an install left in the loop's tree (node_modules) is never in a clean checkout, so give setup the project's install command (a JavaScript project's: setup: npm ci); no agent can fix that, so the loop stopped there"

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
    'after: a clean checkout missed a module and no setup ran: no agent can fix it, so the first stops the loop, naming setup',
    end({ record: record({ verification: verified(noSum) }) }),
    {},
    undefined,
    missingSetup
  ],
  [
    'after: a clean checkout missed a command and no setup ran, before the breaker',
    end({ record: record({ verification: verified('sh: 1: jest: not found') }) }),
    {},
    noProgress,
    missingSetup
  ],
  ...[
    "Error: Cannot find module 'sum'\nRequire stack:\n- /w/calc.test.js",
    "Cannot find module 'lodash' from 'calc.test.js'",
    "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/w/node_modules/sum/index.js' imported from /w/calc.js",
    'bash: line 1: vitest: command not found'
  ].map((tail): [string, IterationEnd, Partial<Budgets>, undefined, string] => [
    `after: a clean checkout missed what an install puts there (${tail.split('\n')[0]}) and no setup ran: the loop stops`,
    end({ record: record({ verification: verified(tail) }) }),
    {},
    undefined,
    missingSetup
  ]),
  // What the agent itself left out of its commit (a file git ignores), it can commit: the loop goes on.
  ...[
    "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/w/answer.js' imported from /w/calc.js",
    "Cannot find module './answer' from 'calc.test.js'",
    'sh: 1: ./answer.sh: not found',
    "ModuleNotFoundError: No module named 'answer'"
  ].map((tail): [string, IterationEnd, Partial<Budgets>, undefined, undefined] => [
    `after: a clean checkout missed what may be the agent's own ignored file (${tail}): the loop goes on`,
    end({ record: record({ verification: verified(tail) }) }),
    {},
    undefined,
    undefined
  ]),
  [
    'after: a clean checkout missed a module although setup ran: the agent may fix it, the loop goes on',
    end({ record: record({ verification: verified(noSum, ['npm ci']) }) }),
    {},
    undefined,
    undefined
  ],
  [
    'after: a clean checkout failed otherwise (an assertion): the loop goes on',
    end({ record: record({ verification: verified('AssertionError: 3 !== -1') }) }),
    {},
    undefined,
    undefined
  ],
  [
    'after: the guard fired, before a missing setup',
    end({ interrupted: true, record: record({ verification: verified(noSum) }) }),
    { trip: timeTrip },
    undefined,
    'timeout: the total time budget ran out'
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
