// The repository's budget as inputs (#38): `budget`, `budget-per-requester`, `ledger-ref` and `lease`, read
// as the runner hands them over; each mistake is one line naming the input and the fix.
import { expect, test } from '@jest/globals'
import { InputError, readInputs } from '../../src/action/inputs.js'
import { inputEnv } from './harness.js'

const read = (given: Record<string, string>) => readInputs(inputEnv(given))
/** The one line readInputs throws for `given`. */
const problem = (given: Record<string, string>): string => {
  const error = (() => {
    try {
      read(given)
    } catch (thrown) {
      return thrown
    }
    return undefined
  })()
  expect(error).toBeInstanceOf(InputError)
  return (error as Error).message
}

const LEASE = {
  version: 1,
  ref: 'refs/ralph/ledger',
  lease: {
    id: '77.1-abcdef',
    state: 'open',
    run: { id: '77', attempt: 1 },
    opened: '2026-11-28T10:00:00.000Z',
    draws: [{ at: '2026-11-28T10:00:00.000Z', usd: 200000 }],
    deadline: '2026-11-28T16:00:00.000Z'
  },
  limits: { repository: { day: 1000000 }, perRequester: {} },
  chunk: 100000
}

test('no budget given is no budget: nothing is reserved', () => {
  expect(read({ ralph: 'r' }).budget).toBeUndefined()
})

test('budget and budget-per-requester become the limits in micro-dollars, with the default ledger ref', () => {
  expect(
    read({ ralph: 'r', budget: '20/day, 300/month', 'budget-per-requester': '$2.50/day' }).budget
  ).toEqual({
    limits: { repository: { day: 20_000_000, month: 300_000_000 }, perRequester: { day: 2_500_000 } },
    ref: 'refs/ralph/ledger'
  })
  expect(read({ ralph: 'r', budget: '1/day', 'ledger-ref': 'refs/ralph/nightly' }).budget?.ref).toBe(
    'refs/ralph/nightly'
  )
})

test.each([
  [{ budget: '20/week' }, `Input 'budget' has "20/week" ("week" is not a window`],
  [
    { 'budget-per-requester': '0/day' },
    'Input \'budget-per-requester\' has "0/day": a budget must be more than $0'
  ],
  [
    { budget: '1/day', 'ledger-ref': 'refs/heads/ledger' },
    'Input \'ledger-ref\' cannot be "refs/heads/ledger": a branch'
  ],
  [{ budget: '1/day', 'ledger-ref': 'ledger' }, 'Input \'ledger-ref\' cannot be "ledger": give a full ref'],
  [{ budget: '1/day', mode: 'agent' }, "Input 'lease' is required with a budget in mode: agent"],
  [{ lease: '{}' }, "Input 'lease' is for mode: agent and mode: deliver"],
  [
    { mode: 'agent', lease: 'not json' },
    "Input 'lease' is not a lease: give the reserve job's output `lease` as it is."
  ],
  [{ mode: 'reserve' }, "Input 'budget' is required in mode: reserve"],
  [
    { mode: 'agent', lease: JSON.stringify(LEASE), 'ledger-ref': 'refs/ralph/other' },
    "Input 'lease' is a lease in refs/ralph/ledger, and 'ledger-ref' is refs/ralph/other"
  ]
])('%j is one line naming the input and the fix', (given, message) => {
  const line = problem({ ralph: 'r', ...given })
  expect(line).toContain(message)
  expect(line).not.toContain('\n')
})

test("mode: agent takes the reserve job's lease, its limits with it; mode: reserve is a mode", () => {
  const agent = read({ ralph: 'r', mode: 'agent', lease: JSON.stringify(LEASE) })
  expect(agent.budget?.lease?.lease.id).toBe('77.1-abcdef')
  expect(agent.budget?.limits).toEqual(LEASE.limits)
  expect(read({ ralph: 'r', mode: 'reserve', budget: '1/day' }).mode).toBe('reserve')
})
