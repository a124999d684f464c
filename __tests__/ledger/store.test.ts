// The ledger in a real repository: a ref (refs/ralph/ledger) on the git server stand-in (git http-backend with
// GitHub's auth rules and fault injection), read with a fetch and written by the action's push with a lease.
// A lost race, a lost answer, a 5xx, a 403, a deleted ref, a malformed commit and a killed run, each as the
// store meets it.
import { execFileSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { beforeEach, expect, test } from '@jest/globals'
import {
  LedgerError,
  openLease,
  reserve,
  resumeLease,
  serializeLedger,
  settleLease,
  emptyLedger,
  parseLedger,
  type LeaseRequest
} from '../../src/ledger/index.js'
import { raceWaitMs } from '../../src/ledger/store.js'
import type { GitServer } from '../support/git-server.js'
import { ledgerRemote } from './remote.js'

const REF = 'refs/ralph/ledger'
const remote = ledgerRemote()
let server: GitServer
beforeEach(() => {
  server = remote.server()
})
const store = remote.store

const ONE_A_DAY: LeaseRequest['limits'] = { repository: { day: 1_000_000 }, perRequester: {} }

function leaseRequest(over: Partial<LeaseRequest> = {}): LeaseRequest {
  return {
    run: { id: '1001', attempt: 1, job: 'hunt' },
    ralph: 'hunt',
    limits: ONE_A_DAY,
    minimumUsd: 0.1,
    chunkUsd: 0.25,
    deadline: new Date(Date.now() + 6 * 3600_000),
    ...over
  }
}

/** The ledger as the remote has it, read with plain git. */
function remoteLedger() {
  return parseLedger(server.git('cat-file', 'blob', `${REF}:ledger.json`))
}

/** The ledger's commit messages, oldest first. */
function history(): string[] {
  return server
    .git('log', '--reverse', '--format=%B%x00', REF)
    .split('\0')
    .map(m => m.trim())
    .filter(Boolean)
}

/** What the commits' settle lines add up to, in micro-dollars. */
function settledInHistory(): number {
  return history()
    .flatMap(m => m.split('\n'))
    .filter(l => l.startsWith('settle '))
    .reduce((s, l) => s + Math.round(Number(/ spent=([\d.]+)/.exec(l)?.[1]) * 1e6), 0)
}

const AUTHOR = {
  GIT_AUTHOR_NAME: 'x',
  GIT_AUTHOR_EMAIL: 'x@x',
  GIT_COMMITTER_NAME: 'x',
  GIT_COMMITTER_EMAIL: 'x@x'
}

/** A commit of `files` on `parent` in the remote, as a person editing the ledger by hand would push. */
function commitLedger(files: Record<string, string>, parent: string): string {
  const bare = (args: string[], input?: string) =>
    execFileSync('git', args, {
      cwd: server.bareDir,
      encoding: 'utf8',
      input,
      env: { ...process.env, ...AUTHOR }
    }).trim()
  const entries = Object.entries(files).map(
    ([name, text]) => `100644 blob ${bare(['hash-object', '-w', '--stdin'], text)}\t${name}\n`
  )
  return bare(['commit-tree', bare(['mktree'], entries.join('')), '-p', parent, '-m', 'edited by hand'])
}

/** Someone else's commit on the ledger, as another run's write would land (no HTTP): the tree as it was. */
function advanceLedger(): void {
  const tip = server.git('rev-parse', REF).trim()
  const commit = execFileSync(
    'git',
    ['commit-tree', `${tip}^{tree}`, '-p', tip, '-m', 'ledger: another run'],
    {
      cwd: server.bareDir,
      encoding: 'utf8',
      env: { ...process.env, ...AUTHOR }
    }
  ).trim()
  server.git('update-ref', REF, commit, tip)
}

test('a first reservation starts the ledger in its own ref (no branch, no tag), with a warning, and settles', async () => {
  const s = await store()
  const opened = await openLease(s, leaseRequest({ requester: 'octocat' }))
  if (!('lease' in opened)) throw new Error(opened.refused.line)
  expect(s.warnings).toEqual([
    `The budget ledger ${REF} on acme/widgets was not there: starting it empty. If runs spent before (the ref was deleted), that spend is no longer counted.`
  ])
  expect(opened.lease.grantedUsd()).toBe(0.25)
  expect(server.git('for-each-ref', '--format=%(refname)').trim().split('\n')).toEqual([
    'refs/heads/main',
    REF
  ])
  expect(await opened.lease.cover(0.3)).toBe(true)
  expect(opened.lease.grantedUsd()).toBe(0.5)
  const settled = await opened.lease.settle(0.31)
  expect(settled).toMatchObject({
    spentUsd: 0.31,
    grantedUsd: 0.5,
    returnedUsd: 0.19,
    status: { leftUsd: 0.69 }
  })
  expect(history().map(m => m.split('\n')[0])).toEqual([
    'ledger: reserve',
    'ledger: top-up',
    'ledger: settle'
  ])
  expect(history()[0]).toMatch(
    /^ledger: reserve\n\nreserve lease=1001\.1-[0-9a-f]{6} run=1001 attempt=1 job="hunt" ralph=hunt requester=octocat usd=0\.250000$/
  )
  expect(settledInHistory()).toBe(310_000)
  expect(remoteLedger().days[new Date().toISOString().slice(0, 10)]).toEqual({
    spent: 310_000,
    byRalph: { hunt: 310_000 },
    byRequester: { octocat: 310_000 }
  })
  // The ledger's objects on the runner are in a folder of the action's user alone (the agent runs as another).
  expect(statSync(s.folder).mode & 0o777).toBe(0o700)
  // The commits are the action's: github-actions[bot].
  expect(server.git('log', '-1', '--format=%an <%ae>', REF).trim()).toBe(
    'github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>'
  )
})

test('a run that finds the budget spent is refused in one line, and nothing is written', async () => {
  const first = await openLease(await store(), leaseRequest({ chunkUsd: 0.95 }))
  expect('lease' in first).toBe(true)
  const before = server.git('rev-parse', REF).trim()
  const second = await openLease(await store(), leaseRequest())
  expect(second).toMatchObject({
    refused: {
      line: "the repository's budget of $1/day is spent or held ($0.00 spent and $0.95 held by 1 unsettled run, of $1.00; a request may cost up to $0.10); it resets at 00:00 UTC"
    },
    status: { leftUsd: 0.05 }
  })
  expect(server.git('rev-parse', REF).trim()).toBe(before)
})

test('a race lost 20 times in a row: each time the store reads the new tip and tries again, and lands once', async () => {
  const s = await store()
  await openLease(s, leaseRequest())
  let lost = 0
  server.onPush = () => {
    if (lost < 20) {
      lost++
      advanceLedger()
    }
  }
  const applied = await s.apply((ledger, now) =>
    reserve(
      ledger,
      {
        id: 'late.1-000000',
        run: { id: 'late', attempt: 1 },
        deadline: new Date(Date.now() + 3600_000),
        limits: ONE_A_DAY,
        chunk: 200_000,
        minimum: 100_000
      },
      now
    )
  )
  // Twenty pushes refused for a stale lease, then the 21st lands.
  expect(lost).toBe(20)
  expect(applied.lostRaces).toBe(20)
  expect(applied.wrote).toBe(true)
  // Written once: the reservation is in the ledger once, on top of the 20 other commits.
  expect(
    remoteLedger()
      .leases.map(l => l.id)
      .filter(id => id === 'late.1-000000')
  ).toHaveLength(1)
  expect(history().filter(m => m.startsWith('ledger: another run'))).toHaveLength(20)
})

test('a race lost more times than the bound: the change gives up in one line, and nothing is granted', async () => {
  const s = await store({ attempts: 5 })
  await openLease(s, leaseRequest())
  server.onPush = advanceLedger
  const error = await openLease(s, leaseRequest()).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(LedgerError)
  expect((error as Error).message).toBe(
    `The budget ledger ${REF} on acme/widgets could not be changed: 5 runs wrote it first, one after another (too many runs at once); the run gives up rather than wait.`
  )
  delete server.onPush
  expect(remoteLedger().leases).toHaveLength(1)
})

test('a 5xx or a reset on the push or on the read is tried again, and the change lands once', async () => {
  const s = await store()
  await openLease(s, leaseRequest())
  server.faults.clear()
  server.faults
    .add('receive-pack-refs', 1, '502')
    .add('receive-pack', 1, 'reset')
    .add('upload-pack-refs', 1, '503')
  const fresh = await store()
  const opened = await openLease(fresh, leaseRequest())
  expect('lease' in opened).toBe(true)
  expect(server.faults.injected.map(f => `${f.route}:${f.kind}`).sort()).toEqual([
    'receive-pack-refs:502',
    'receive-pack:reset',
    'upload-pack-refs:503'
  ])
  expect(remoteLedger().leases).toHaveLength(2)
})

test('a push that landed but whose answer was lost is found in the history, not written twice', async () => {
  const s = await store()
  const opened = await openLease(s, leaseRequest())
  if (!('lease' in opened)) throw new Error('refused')
  server.faults.clear()
  server.faults.add('receive-pack', 1, 'drop-response')
  await opened.lease.settle(0.1)
  expect(server.faults.injected).toHaveLength(1)
  expect(history().filter(m => m.startsWith('ledger: settle'))).toHaveLength(1)
  expect(settledInHistory()).toBe(100_000)
})

test('a top-up that landed unanswered, with another run writing on top before the store looks: found, not granted twice', async () => {
  let armed = false
  const s = await store({
    // After the lost answer, and before the store reads again, another run writes on top of its commit.
    raceWaitMs: () => {
      if (armed) advanceLedger()
      armed = false
      return 5
    }
  })
  const opened = await openLease(s, leaseRequest())
  if (!('lease' in opened)) throw new Error('refused')
  server.faults.clear()
  server.faults.add('receive-pack', 1, 'drop-response')
  armed = true
  expect(await opened.lease.cover(0.3)).toBe(true)
  expect(server.faults.injected).toHaveLength(1)
  expect(history().at(-1)).toBe('ledger: another run')
  expect(remoteLedger().leases[0].draws.map(d => d.usd)).toEqual([250_000, 250_000])
  expect(history().filter(m => m.startsWith('ledger: top-up'))).toHaveLength(1)
})

test("failing in transit every time: one line with git's reason, after the retries", async () => {
  const s = await store()
  await openLease(s, leaseRequest())
  server.faults.clear()
  for (let call = 1; call <= 20; call++) server.faults.add('receive-pack-refs', call, '502')
  const error = await openLease(s, leaseRequest()).catch((e: unknown) => e)
  expect((error as Error).message).toMatch(
    /^The budget ledger refs\/ralph\/ledger on acme\/widgets could not be written: .*502.* \(tried 4 times\)$/
  )
})

test('a token without contents: write (GitHub answers 403): one line naming contents: write, nothing granted', async () => {
  server.tokens.set('ghs_readOnly', 'read')
  const s = await store({ token: 'ghs_readOnly' })
  const error = await openLease(s, leaseRequest()).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(LedgerError)
  expect((error as Error).message).toBe(
    `The budget ledger ${REF} on acme/widgets cannot be written: the token may not push to acme/widgets. Give the job that keeps the ledger \`permissions: contents: write\` (a PAT or App token needs "Contents: read and write").`
  )
  expect(server.git('for-each-ref', REF).trim()).toBe('')
})

test('an unknown token cannot even read the ledger: one line', async () => {
  const error = await (await store({ token: 'ghs_nobody' })).read().catch((e: unknown) => e)
  expect((error as Error).message).toBe(
    'The budget ledger refs/ralph/ledger on acme/widgets could not be read: GitHub did not accept the token (missing, invalid or expired). Check the token given to the action.'
  )
})

test('the ref deleted by hand: the next run starts it again empty, with a warning; a lease held across it is counted again', async () => {
  const holder = await store()
  const held = await openLease(holder, leaseRequest({ chunkUsd: 0.4 }))
  if (!('lease' in held)) throw new Error('refused')
  await openLease(await store(), leaseRequest({ chunkUsd: 0.3 }))
  server.git('update-ref', '-d', REF)
  const next = await store()
  const opened = await openLease(next, leaseRequest({ chunkUsd: 0.5 }))
  expect('lease' in opened).toBe(true)
  expect(next.warnings).toHaveLength(1)
  expect(next.warnings[0]).toMatch(/was not there: starting it empty/)
  expect(remoteLedger().leases.map(l => l.draws[0].usd)).toEqual([500_000])
  // The run that held $0.40 before the deletion tops up: its lease is put back, and it is counted again.
  expect(await held.lease.cover(0.45)).toBe(true)
  expect(
    remoteLedger()
      .leases.map(l => l.draws.reduce((s, d) => s + d.usd, 0))
      .sort()
  ).toEqual([500_000, 500_000])
  expect(history().at(-1)).toMatch(/\nrestore lease=.* held=0\.400000 \(opened before this ledger started\)/)
  await held.lease.settle(0.42)
  expect(remoteLedger().leases).toHaveLength(1)
})

test('a malformed ledger commit: no grant, one line naming the last good commit to put back', async () => {
  const s = await store()
  await openLease(s, leaseRequest())
  const good = server.git('rev-parse', REF).trim()
  const work = commitLedger({ 'ledger.json': '{"version": 1, "unit": "micro-usd"' }, good)
  server.git('update-ref', REF, work)
  const error = await openLease(await store(), leaseRequest()).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(LedgerError)
  const message = (error as Error).message
  expect(message).not.toContain('\n')
  expect(message).toMatch(
    new RegExp(
      `^The budget ledger refs/ralph/ledger on acme/widgets is malformed at ${work.slice(0, 7)} \\(ledger\\.json is not JSON \\(.*\\)\\): no agent runs until it is fixed; put back the last good commit \\(git push --force origin ${good.slice(0, 12)}:refs/ralph/ledger\\) or delete the ref to start again empty \\(git push origin :refs/ralph/ledger\\)\\.$`
    )
  )
  expect(server.git('rev-parse', REF).trim()).toBe(work)
  // A tree with more than ledger.json is malformed too.
  server.git(
    'update-ref',
    REF,
    commitLedger({ 'ledger.json': serializeLedger(emptyLedger(new Date())), 'x.txt': 'x' }, work)
  )
  await expect(openLease(await store(), leaseRequest())).rejects.toThrow(
    /its tree must hold ledger\.json alone/
  )
})

test('a killed run (no settle, no post step): counted in full until its deadline, and after it, until its record settles it', async () => {
  // Today at 08:00 UTC: the 2.5 hours this test moves on stay in one day's window, whenever it runs.
  let now = new Date(`${new Date().toISOString().slice(0, 10)}T08:00:00.000Z`)
  const clock = () => now
  const killed = await store({ clock })
  const opened = await openLease(
    killed,
    leaseRequest({ chunkUsd: 0.8, deadline: new Date(now.getTime() + 3600_000), maxCostUsd: 0.8 })
  )
  if (!('lease' in opened)) throw new Error('refused')
  const state = opened.lease.state()
  // The runner dies here: nothing settles. Another run, half an hour later, finds $0.20 left.
  now = new Date(now.getTime() + 30 * 60_000)
  const during = await openLease(await store({ clock }), leaseRequest({ minimumUsd: 0.3 }))
  expect(during).toMatchObject({
    refused: { line: expect.stringMatching(/\$0\.80 held by 1 unsettled run/) }
  })
  // Two hours later the deadline has passed: the next write expires it, and it still holds its $0.80.
  now = new Date(now.getTime() + 2 * 3600_000)
  const later = await openLease(await store({ clock }), leaseRequest({ minimumUsd: 0.1, chunkUsd: 0.1 }))
  expect('lease' in later).toBe(true)
  expect(history().at(-1)).toMatch(
    /\nexpire lease=.* held=0\.800000 \(its run never settled: counted in full\)/
  )
  expect(remoteLedger().leases.find(l => l.id === state.lease.id)?.state).toBe('expired')
  expect(await openLease(await store({ clock }), leaseRequest({ minimumUsd: 0.15 }))).toMatchObject({
    refused: { line: expect.stringMatching(/\$0\.90 held by 2 unsettled runs/) }
  })
  // Its record says it spent $0.12: settled from it, the rest goes back.
  const settled = await settleLease(await store({ clock }), state, 0.12, 'record')
  expect(settled).toMatchObject({ spentUsd: 0.12, returnedUsd: 0.68 })
  expect(history().at(-1)).toMatch(/spent=0\.120000 granted=0\.800000 returned=0\.680000 source=record/)
  expect(await openLease(await store({ clock }), leaseRequest({ minimumUsd: 0.1 }))).toMatchObject({
    lease: expect.anything()
  })
})

test('settled by the main step, then again by the post step: the second changes nothing', async () => {
  const main = await store()
  const opened = await openLease(main, leaseRequest())
  if (!('lease' in opened)) throw new Error('refused')
  await opened.lease.settle(0.2)
  const post = resumeLease(await store(), opened.lease.state())
  const again = await post.settle(0.25)
  expect(again.note).toMatch(/^lease 1001\.1-[0-9a-f]{6} was already settled at /)
  expect(again.spentUsd).toBe(0.2)
  expect(settledInHistory()).toBe(200_000)
})

test('after a lost race a run waits anywhere in a window of rounds that doubles with each loss, up to 16 rounds', () => {
  expect(raceWaitMs(1, 100, () => 1)).toBe(100)
  expect(raceWaitMs(3, 100, () => 0.5)).toBe(200)
  expect(raceWaitMs(9, 100, () => 1)).toBe(1600)
  expect(raceWaitMs(2, 100, () => 0)).toBe(0)
  // A round is counted as 20 ms to 2 s, whatever a stalled one took.
  expect(raceWaitMs(1, 60_000, () => 1)).toBe(2000)
  expect(raceWaitMs(1, 1, () => 1)).toBe(20)
})
