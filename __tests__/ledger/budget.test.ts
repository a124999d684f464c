// The budget inputs: `<dollars>/day` and/or `<dollars>/month`, comma-separated; every mistake is one line
// naming the input and the fix.
import { expect, test } from '@jest/globals'
import { describeLimits, hasBudget, parseBudget, parseBudgets } from '../../src/ledger/index.js'

test.each([
  ['20/day, 300/month', { day: 20_000_000, month: 300_000_000 }],
  ['$20/day', { day: 20_000_000 }],
  ['300 / month', { month: 300_000_000 }],
  ['1/Day\n12.5/monthly', { day: 1_000_000, month: 12_500_000 }],
  ['0.29/d', { day: 290_000 }],
  ['.5/mo,', { month: 500_000 }],
  ['', {}],
  [' , ', {}]
])('%j reads as %j', (text, limits) => {
  expect(parseBudget(text, 'budget')).toEqual({ limits })
})

test('absent is no limit', () => {
  expect(parseBudget(undefined, 'budget')).toEqual({ limits: {} })
})

test.each([
  [
    '20/week',
    `Input 'budget' has "20/week" ("week" is not a window: budgets are per day or per month, UTC): give dollars per day and/or per month, comma-separated, like 20/day, 300/month.`
  ],
  [
    '20',
    `Input 'budget' has "20": give dollars per day and/or per month, comma-separated, like 20/day, 300/month.`
  ],
  [
    '20/day 300/month',
    `Input 'budget' has "20/day 300/month": separate the windows with commas, like 20/day, 300/month.`
  ],
  [
    '-5/day',
    `Input 'budget' has "-5/day": give dollars per day and/or per month, comma-separated, like 20/day, 300/month.`
  ],
  [
    '0/day',
    `Input 'budget' has "0/day": a budget must be more than $0 (to stop every run, disable the workflow).`
  ],
  [
    '20/day, 10/day',
    `Input 'budget' gives a daily budget twice ("20/day" and "10/day"): give each window once, like 20/day, 300/month.`
  ],
  [
    '1e3/day',
    `Input 'budget' has "1e3/day": give dollars per day and/or per month, comma-separated, like 20/day, 300/month.`
  ],
  ['2000000000/month', `Input 'budget' has "2000000000/month": a budget must be under $1000000000.`]
])('%j is refused in one line', (text, problem) => {
  const parsed = parseBudget(text, 'budget')
  expect(parsed).toEqual({ problem })
  expect(problem).not.toContain('\n')
})

test('the per-requester input is named in its own errors', () => {
  expect(parseBudgets({ budget: '5/day', perRequester: '2/fortnight' })).toEqual({
    problem: expect.stringMatching(/^Input 'budget-per-requester' has "2\/fortnight"/)
  })
  expect(parseBudgets({ budget: '5/day', perRequester: '2/day' })).toEqual({
    limits: { repository: { day: 5_000_000 }, perRequester: { day: 2_000_000 } }
  })
})

test('a budget is there when either input caps a window, and reads back as given', () => {
  expect(hasBudget({ repository: {}, perRequester: {} })).toBe(false)
  expect(hasBudget({ repository: {}, perRequester: { month: 1 } })).toBe(true)
  expect(describeLimits({ day: 20_000_000, month: 300_000_000 })).toBe('$20/day, $300/month')
  expect(describeLimits({ day: 2_500_000 })).toBe('$2.50/day')
  expect(describeLimits({ day: 125_000 })).toBe('$0.125/day')
})
