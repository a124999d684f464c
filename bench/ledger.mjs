// What the budget ledger (#38) adds to a run: milliseconds to reserve (a fresh store, as a run opens it: its
// scratch git directory, a fetch of refs/ralph/ledger, a commit, a push with a lease), to top up (the tip
// known: a push alone) and to settle, against the git server stand-in on loopback (git http-backend, HTTP);
// then eight runs reserving at once, racing for the same ref. The ledger's sources are transpiled, not bundled.
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { transpileModules } from '../scripts/transpile.mjs'
import { median, ms, progress } from './lib.mjs'

export const title = 'The budget ledger: what reserving and settling add to a run (loopback git over HTTP)'

const RUNS = Number(process.env.BENCH_LEDGER_RUNS ?? 20)
const AT_ONCE = 8

const percentile = (values, q) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((q / 100) * values.length))]

export async function run() {
  const [ledgerModule, storeModule, serverModule] = transpileModules('ledger-bench', [
    'src/ledger/index.ts',
    'src/ledger/store.ts',
    '__tests__/support/git-server.ts'
  ])
  const { LedgerStore, openLease } = await import(pathToFileURL(ledgerModule).href)
  const { raceWaitMs } = await import(pathToFileURL(storeModule).href)
  const { startGitServer, WRITE_TOKEN } = await import(pathToFileURL(serverModule).href)
  const server = await startGitServer()
  server.commitOnRemote('main', { 'README.md': 'hello\n' }, 'start')
  const storeOf = () =>
    LedgerStore.open({ serverUrl: server.url, repository: server.repository, token: WRITE_TOKEN })
  const limits = { repository: { day: 1e12 }, perRequester: {} }
  let runs = 0
  const request = () => ({
    run: { id: String(++runs), attempt: 1, job: 'bench' },
    ralph: 'bench',
    limits,
    minimumUsd: 0.1,
    chunkUsd: 0.5,
    deadline: new Date(Date.now() + 3600_000)
  })
  const reserve = []
  const topUp = []
  const settle = []
  try {
    // The first write starts the ledger; not measured.
    const first = await storeOf()
    const opened = await openLease(first, request())
    await opened.lease.settle(0)
    await first.close()
    for (let i = 0; i < RUNS; i++) {
      if (i % 5 === 0) progress(`run ${i + 1} of ${RUNS}`)
      let t = performance.now()
      const store = await storeOf()
      const { lease } = await openLease(store, request())
      reserve.push(performance.now() - t)
      t = performance.now()
      await lease.cover(0.9)
      topUp.push(performance.now() - t)
      t = performance.now()
      await lease.settle(0.42)
      settle.push(performance.now() - t)
      await store.close()
    }
    progress(`${AT_ONCE} runs reserving at once`)
    let lost = 0
    const started = performance.now()
    const racing = await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        const store = await LedgerStore.open({
          serverUrl: server.url,
          repository: server.repository,
          token: WRITE_TOKEN,
          raceWaitMs: (n, roundMs) => {
            lost++
            return raceWaitMs(n, roundMs)
          }
        })
        const t = performance.now()
        const { lease } = await openLease(store, request())
        const took = performance.now() - t
        await lease.settle(0.1)
        await store.close()
        return took
      })
    )
    const allMs = performance.now() - started
    const row = (figure, values, detail) => ({
      figure,
      display: ms(median(values)),
      goal: '',
      met: null,
      detail: `median of ${values.length}; p90 ${ms(percentile(values, 90))}${detail ? `; ${detail}` : ''}`
    })
    const added = reserve.map((r, i) => r + settle[i])
    return {
      rows: [
        row('reserve (a run opens its lease: fetch, commit, push)', reserve),
        row('top-up (the tip known: commit, push)', topUp),
        row('settle', settle),
        row('reserve + settle: what the ledger adds to a run', added),
        row(
          `reserve, ${AT_ONCE} runs at once (lost races retried)`,
          racing,
          `all ${AT_ONCE} reserved and settled in ${ms(allMs)}; ${lost} races lost in all`
        )
      ],
      notes: [
        'Against the git server stand-in on loopback: git http-backend behind node:http, no TLS, no network latency; on github.com each git round trip adds the network.',
        'A top-up is a chunk (a tenth of the tightest limit, at least two requests): a run writes the ledger a few times, not once a request.',
        'Here the eight racers, the server and its git processes share the CPUs, so a round costs what the load makes it; on GitHub each runner is a machine of its own.'
      ],
      data: { reserve, topUp, settle, racing, allMs, lost }
    }
  } finally {
    await server.close()
  }
}
