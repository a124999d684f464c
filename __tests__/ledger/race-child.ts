// One run of the race (race.test.ts), as a process of its own: `one-job` reserves, spends through the lease
// (each request billed by the test's upstream) and settles; a two-job run is three processes: `reserve` (prints
// the lease), `agent` (no token: spends only what the lease holds) and `deliver` (settles the agent's spend).
// Prints one JSON line; the upstream's count is the truth the test checks the ledger against.
import {
  fixedCap,
  LedgerStore,
  openLease,
  parseLeaseState,
  settleLease,
  type SpendingCap
} from '../../src/ledger/index.js'

const [mode, ...args] = process.argv.slice(2)
const env = process.env
const COST = Number(env.RACE_COST_USD)
const WANTED = Number(env.RACE_REQUESTS)

const print = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value)}\n`)

function store(): Promise<LedgerStore> {
  return LedgerStore.open({
    serverUrl: env.RACE_SERVER_URL as string,
    repository: env.RACE_REPOSITORY as string,
    token: env.RACE_TOKEN as string
  })
}

/** Sends requests while the cap covers the next one's worst case; answers what the upstream billed. */
async function spend(cap: SpendingCap): Promise<{ spentUsd: number; requests: number; stopped?: string }> {
  let spentUsd = 0
  for (let requests = 0; requests < WANTED; requests++) {
    if (!(await cap.cover(spentUsd + COST)))
      return { spentUsd, requests, stopped: cap.refusal()?.line as string }
    const answer = await fetch(env.RACE_UPSTREAM as string, { method: 'POST', body: run.id })
    const { billedUsd } = (await answer.json()) as { billedUsd: number }
    spentUsd += billedUsd
  }
  return { spentUsd, requests: WANTED }
}

const limits = { repository: { day: Number(env.RACE_BUDGET_MICROS) }, perRequester: {} }
const run = { id: env.RACE_RUN as string, attempt: 1, job: mode }
const deadline = new Date(Date.now() + 3600_000)

if (mode === 'one-job') {
  const s = await store()
  const opened = await openLease(s, { run, ralph: 'hunt', limits, minimumUsd: COST, deadline })
  if ('refused' in opened) print({ run: run.id, refused: opened.refused.line })
  else {
    const spent = await spend(opened.lease)
    const settled = await opened.lease.settle(spent.spentUsd)
    print({ run: run.id, ...spent, granted: settled.grantedUsd })
  }
  await s.close()
} else if (mode === 'reserve') {
  const s = await store()
  const maxCostUsd = Number(env.RACE_MAX_COST_USD)
  // The lease is the agent job's whole cap: it cannot top up without a token.
  const opened = await openLease(s, {
    run,
    ralph: 'hunt',
    limits,
    minimumUsd: COST,
    chunkUsd: maxCostUsd,
    maxCostUsd,
    deadline
  })
  print(
    'refused' in opened
      ? { run: run.id, refused: opened.refused.line }
      : { run: run.id, lease: opened.lease.state() }
  )
  await s.close()
} else if (mode === 'agent') {
  if (env.RACE_TOKEN !== undefined) throw new Error('the agent job must hold no token')
  const state = parseLeaseState(args[0])
  if ('problem' in state) throw new Error(state.problem)
  print({ run: run.id, ...(await spend(fixedCap(state))) })
} else if (mode === 'deliver') {
  const state = parseLeaseState(args[0])
  if ('problem' in state) throw new Error(state.problem)
  const s = await store()
  const settled = await settleLease(s, state, Number(args[1]))
  print({ run: run.id, settled: settled.spentUsd, granted: settled.grantedUsd })
  await s.close()
} else throw new Error(`unknown mode ${mode}`)
