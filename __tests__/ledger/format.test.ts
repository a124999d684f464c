// ledger.json is read strictly: whatever is out of place is one line naming the field, never a guess.
import { expect, test } from '@jest/globals'
import {
  emptyLedger,
  LedgerFormatError,
  MAX_LEDGER_BYTES,
  parseLedger,
  serializeLedger,
  type Ledger
} from '../../src/ledger/index.js'

const NOW = new Date('2026-12-01T10:00:00.000Z')

function sample(): Ledger {
  return {
    ...emptyLedger(NOW),
    limits: { repository: { day: 1_000_000 }, perRequester: {}, at: NOW.toISOString() },
    days: { '2026-12-01': { spent: 250_000, byRalph: { hunt: 250_000 }, byRequester: { octocat: 100_000 } } },
    months: { '2026-12': { spent: 250_000, byRalph: { hunt: 250_000 }, byRequester: { octocat: 100_000 } } },
    leases: [
      {
        id: '123.1-abcdef',
        state: 'open',
        run: { id: '123', attempt: 1, job: 'agent (hunt)', workflow: 'Nightly hunts' },
        ralph: 'hunt',
        requester: 'octocat',
        opened: NOW.toISOString(),
        deadline: '2026-12-01T16:00:00.000Z',
        maxCost: 5_000_000,
        draws: [{ at: NOW.toISOString(), usd: 200_000 }]
      }
    ],
    settled: [{ id: '122.1-000000', at: NOW.toISOString(), spent: 250_000 }]
  }
}

test('a ledger reads back exactly as it was written', () => {
  const ledger = sample()
  expect(parseLedger(serializeLedger(ledger))).toEqual(ledger)
  expect(parseLedger(serializeLedger(emptyLedger(NOW)))).toEqual(emptyLedger(NOW))
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reaching into JSON to break it
const mutate = (change: (json: Record<string, any>) => void): string => {
  const json = JSON.parse(serializeLedger(sample()))
  change(json)
  return JSON.stringify(json)
}

test.each<[string, string, string]>([
  ['not JSON', '{', 'ledger.json is not JSON ('],
  ['not an object', '[]', 'ledger.json: the file must be an object, got []'],
  [
    'a newer version',
    mutate(j => (j.version = 2)),
    'ledger.json: it is version 2, newer than this ralph-action reads (1): use the newer ralph-action in every workflow of the repository'
  ],
  ['no version', mutate(j => delete j.version), 'ledger.json: version must be 1, got nothing'],
  ['another unit', mutate(j => (j.unit = 'usd')), 'ledger.json: unit must be "micro-usd", got "usd"'],
  ['an unknown field', mutate(j => (j.extra = 1)), 'ledger.json: the file has an unknown field "extra"'],
  ['no leases', mutate(j => delete j.leases), 'ledger.json: the file has no leases'],
  [
    'a day that does not exist',
    mutate(j => (j.days['2026-02-30'] = j.days['2026-12-01'])),
    'ledger.json: days key must be a day like 2026-12-01, got "2026-02-30"'
  ],
  [
    'a month that does not exist',
    mutate(j => (j.months['2026-13'] = j.months['2026-12'])),
    'ledger.json: months key must be a month like 2026-12, got "2026-13"'
  ],
  [
    'a negative amount',
    mutate(j => (j.days['2026-12-01'].spent = -1)),
    'ledger.json: days.2026-12-01.spent must be a whole number of micro-dollars, 0 or more, got -1'
  ],
  [
    'a fraction of a micro-dollar',
    mutate(j => (j.days['2026-12-01'].spent = 0.5)),
    'ledger.json: days.2026-12-01.spent must be a whole number of micro-dollars, 0 or more, got 0.5'
  ],
  [
    'an amount as text',
    mutate(j => (j.days['2026-12-01'].spent = '5')),
    'ledger.json: days.2026-12-01.spent must be a whole number of micro-dollars, 0 or more, got "5"'
  ],
  [
    'a ralph name with a space',
    mutate(j => (j.months['2026-12'].byRalph['a b'] = 1)),
    'ledger.json: months.2026-12.byRalph key must be a name of letters, digits and _.-[] (at most 100), got "a b"'
  ],
  [
    'an unknown lease state',
    mutate(j => (j.leases[0].state = 'closed')),
    'ledger.json: leases[0].state must be "open" or "expired", got "closed"'
  ],
  [
    'a lease with no draw',
    mutate(j => (j.leases[0].draws = [])),
    'ledger.json: leases[0].draws must be a list of at least one draw, got []'
  ],
  [
    'a time that is not UTC ISO',
    mutate(j => (j.leases[0].draws[0].at = 'yesterday')),
    'ledger.json: leases[0].draws[0].at must be a UTC time like 2026-12-01T10:00:00.000Z, got "yesterday"'
  ],
  [
    'attempt 0',
    mutate(j => (j.leases[0].run.attempt = 0)),
    'ledger.json: leases[0].run.attempt must be a whole number of at least 1, got 0'
  ],
  [
    'a bidi control in a job name',
    mutate(j => (j.leases[0].run.job = 'a\u202eb')),
    'ledger.json: leases[0].run.job must be a name of one line (at most 200 characters), got "a\u202eb"'
  ],
  [
    'a login with a slash',
    mutate(j => (j.leases[0].requester = '../x')),
    'ledger.json: leases[0].requester must be a name of letters, digits and _.-[] (at most 100), got "../x"'
  ],
  [
    'a lease twice',
    mutate(j => j.leases.push(j.leases[0])),
    'ledger.json: lease 123.1-abcdef is there twice'
  ],
  [
    'a settlement with no amount',
    mutate(j => (j.settled[0].spent = null)),
    'ledger.json: settled[0].spent must be a whole number of micro-dollars, 0 or more, got null'
  ],
  [
    'a limit per week',
    mutate(j => (j.limits.repository.week = 1)),
    'ledger.json: limits.repository has an unknown field "week"'
  ]
])('malformed (%s): one line naming the field', (_what, text, message) => {
  let error: unknown
  try {
    parseLedger(text)
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(LedgerFormatError)
  expect((error as Error).message.startsWith(message)).toBe(true)
  expect((error as Error).message).not.toContain('\n')
})

test('a ledger over the size bound is refused unread', () => {
  const big = `${serializeLedger(sample()).slice(0, -2)}${' '.repeat(MAX_LEDGER_BYTES)}}`
  expect(() => parseLedger(big)).toThrow('ledger.json is over 1024 KB')
})

test("a ralph called __proto__ or constructor is a name like any other, never the map's prototype", () => {
  const text = mutate(j => {
    j.months['2026-12'].byRalph = JSON.parse('{"__proto__": 7, "constructor": 9}')
  })
  const ledger = parseLedger(text)
  expect(Object.entries(ledger.months['2026-12'].byRalph)).toEqual([
    ['__proto__', 7],
    ['constructor', 9]
  ])
  expect(parseLedger(serializeLedger(ledger))).toEqual(ledger)
})
