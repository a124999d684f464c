// The interface the action and the model proxy call: a lease is written a few times a run (a chunk at a
// time), its top-ups are one write at a time however many requests ask at once, it fails closed when the
// ledger cannot be written, and it moves between steps and jobs as JSON.
import { beforeEach, expect, test } from '@jest/globals'
import {
  chunkFor,
  fixedCap,
  LedgerError,
  LedgerStore,
  openLease,
  parseLeaseState,
  resumeLease,
  type Lease,
  type LeaseRequest
} from '../../src/ledger/index.js'
import { WRITE_TOKEN, type GitServer } from '../support/git-server.js'
import { ledgerRemote } from './remote.js'

const remote = ledgerRemote()
let server: GitServer
beforeEach(() => {
  server = remote.server()
})

const store = (token = WRITE_TOKEN): Promise<LedgerStore> => remote.store({ token })

const commits = (): number => Number(server.git('rev-list', '--count', 'refs/ralph/ledger').trim())

async function lease(over: Partial<LeaseRequest> = {}, s?: LedgerStore): Promise<Lease> {
  const opened = await openLease(s ?? (await store()), {
    run: { id: '77', attempt: 2 },
    ralph: 'hunt',
    limits: { repository: { day: 20_000_000 }, perRequester: {} },
    minimumUsd: 0.05,
    deadline: new Date(Date.now() + 3600_000),
    ...over
  })
  if (!('lease' in opened)) throw new Error(opened.refused.line)
  return opened.lease
}

test('forty requests of $0.03 write the ledger twice (a reservation, a settlement), a hundred three times (one top-up)', async () => {
  const l = await lease()
  expect(l.grantedUsd()).toBe(2)
  let spent = 0
  for (let i = 0; i < 40; i++) {
    expect(await l.cover(spent + 0.03)).toBe(true)
    spent += 0.03
  }
  await l.settle(spent)
  expect(commits()).toBe(2)
  // Past the chunk, one top-up per chunk.
  const l2 = await lease()
  spent = 0
  for (let i = 0; i < 100; i++) {
    expect(await l2.cover(spent + 0.03)).toBe(true)
    spent += 0.03
  }
  await l2.settle(spent)
  expect(commits()).toBe(2 + 3)
})

test('requests asking at once share one top-up', async () => {
  const l = await lease({ chunkUsd: 0.1 })
  const before = commits()
  const answers = await Promise.all([0.12, 0.15, 0.11, 0.18, 0.2].map(total => l.cover(total)))
  expect(answers).toEqual([true, true, true, true, true])
  expect(l.grantedUsd()).toBeCloseTo(0.2, 6)
  expect(commits() - before).toBe(1)
})

test('a lease settled covers nothing more, and says so', async () => {
  const l = await lease({ chunkUsd: 0.1 })
  await l.settle(0.05)
  expect(await l.cover(0.05)).toBe(true)
  expect(await l.cover(0.5)).toBe(false)
  expect(l.refusal()?.line).toBe(`lease ${l.id} is settled`)
})

test('the ledger cannot be written (the token lost write access): the request is refused, with the reason', async () => {
  const s = await store()
  const l = await lease({ chunkUsd: 0.1 }, s)
  server.tokens.set(WRITE_TOKEN, 'read')
  expect(await l.cover(0.5)).toBe(false)
  expect(l.refusal()?.line).toMatch(
    /^The budget ledger refs\/ralph\/ledger on acme\/widgets cannot be written: .*`permissions: contents: write`/
  )
  expect(l.grantedUsd()).toBeCloseTo(0.1, 6)
})

test("another job's lease, as a fixed cap: it covers what was granted and nothing more", async () => {
  const l = await lease({ chunkUsd: 0.3, maxCostUsd: 0.3 })
  const state = parseLeaseState(JSON.stringify(l.state()))
  if ('problem' in state) throw new Error(state.problem)
  const cap = fixedCap(state)
  expect(cap.grantedUsd()).toBeCloseTo(0.3, 6)
  expect(await cap.cover(0.3)).toBe(true)
  expect(await cap.cover(0.31)).toBe(false)
  expect(cap.refusal()?.line).toBe(
    `the lease the reserve job took ($0.30, lease ${l.id}) is spent: this job cannot top it up`
  )
})

test('a lease resumed by a later step tops up and settles the same lease', async () => {
  const l = await lease({ chunkUsd: 0.1 })
  const later = resumeLease(await store(), l.state())
  expect(await later.cover(0.15)).toBe(true)
  const settled = await later.settle(0.12)
  expect(settled).toMatchObject({ spentUsd: 0.12, grantedUsd: 0.2 })
  expect(settled.returnedUsd).toBeCloseTo(0.08, 6)
})

test('a lease of another ledger ref is not resumed: one line', async () => {
  const l = await lease()
  const other = await remote.store({ ref: 'refs/ralph/other' })
  expect(() => resumeLease(other, l.state())).toThrow(
    new LedgerError(
      `The lease ${l.id} is in refs/ralph/ledger, not in refs/ralph/other: give the same ledger-ref to every job.`
    )
  )
})

test.each([
  ['not JSON', '{', "Input 'lease' is not a lease: give the reserve job's output `lease` as it is."],
  [
    'another version',
    '{"version":2,"ref":"refs/ralph/ledger"}',
    "Input 'lease' is not a lease (it is not a lease of version 1): give the reserve job's output `lease` as it is."
  ],
  [
    'a lease without draws',
    JSON.stringify({
      version: 1,
      ref: 'refs/ralph/ledger',
      chunk: 1,
      limits: { repository: {}, perRequester: {} },
      lease: {
        id: 'x',
        state: 'open',
        run: { id: '1', attempt: 1 },
        opened: '2026-12-01T00:00:00.000Z',
        deadline: '2026-12-01T00:00:00.000Z',
        draws: []
      }
    }),
    "Input 'lease' is not a lease (lease.draws must be a list of at least one draw, got []): give the reserve job's output `lease` as it is."
  ]
])('a lease handed between jobs that is %s: one line', (_what, text, problem) => {
  expect(parseLeaseState(text)).toEqual({ problem })
})

test('the chunk: a tenth of the tightest limit, at least two requests, at most $5', () => {
  expect(chunkFor({ repository: { day: 20_000_000, month: 300_000_000 }, perRequester: {} }, 0.1)).toBe(2)
  expect(chunkFor({ repository: { day: 1_000_000 }, perRequester: {} }, 0.07)).toBeCloseTo(0.14, 9)
  expect(chunkFor({ repository: { month: 1_000_000_000 }, perRequester: { day: 100_000_000 } }, 0.1)).toBe(5)
  expect(chunkFor({ repository: {}, perRequester: {} }, 0.1)).toBe(5)
})

test("a meter's impossible figure fails closed: a NaN or infinite total is refused, such a spend settles in full", async () => {
  const l = await lease({ chunkUsd: 0.1 })
  expect(await l.cover(Number.NaN)).toBe(false)
  expect(await l.cover(Infinity)).toBe(false)
  expect(await l.settle(Number.NaN)).toMatchObject({ spentUsd: 0.1, returnedUsd: 0 })
})
