// Eight runs at once against one repository's ledger (`budget: 1/day`), each a real process: one job each,
// then in two-job form (reserve → agent with no token → deliver). Every request is billed by an upstream in
// this test at a fixed price; what it billed never exceeds the budget, runs that found it spent ran nothing and
// said so, and the ledger's commits add up to what was billed.
import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from '@jest/globals'
import { parseLedger } from '../../src/ledger/index.js'
import { transpileModules } from '../../scripts/transpile.mjs'
import { startGitServer, WRITE_TOKEN, type GitServer } from '../support/git-server.js'

const REF = 'refs/ralph/ledger'
const BUDGET = 1_000_000
const COST_USD = 0.07
const RUNS = 8

let child: string
let server: GitServer
let upstream: Server
let upstreamUrl: string
/** Requests billed, by run. */
let billed: Map<string, number>

beforeAll(() => {
  ;[child] = transpileModules('ledger-race', ['__tests__/ledger/race-child.ts'])
})

beforeEach(async () => {
  server = await startGitServer()
  server.commitOnRemote('main', { 'README.md': 'hello\n' }, 'start')
  billed = new Map()
  upstream = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      billed.set(body, (billed.get(body) ?? 0) + 1)
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ billedUsd: COST_USD }))
    })
  })
  await new Promise<void>(resolve => upstream.listen(0, '127.0.0.1', resolve))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1/messages`
})
afterEach(async () => {
  await new Promise(resolve => upstream.close(resolve))
  await server.close()
})
afterAll(() => undefined)

/** Runs the child in `mode` as run `run`; `token: false` gives it none. Answers its one JSON line. */
function runChild(
  mode: string,
  run: string,
  args: string[] = [],
  token = true
): Promise<Record<string, unknown>> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    RACE_SERVER_URL: server.url,
    RACE_REPOSITORY: server.repository,
    RACE_UPSTREAM: upstreamUrl,
    RACE_RUN: run,
    RACE_COST_USD: String(COST_USD),
    RACE_REQUESTS: '6',
    RACE_BUDGET_MICROS: String(BUDGET),
    RACE_MAX_COST_USD: '0.3',
    ...(token ? { RACE_TOKEN: WRITE_TOKEN } : {})
  }
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, mode, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    p.stdout.on('data', (c: Buffer) => (out += c.toString()))
    p.stderr.on('data', (c: Buffer) => (err += c.toString()))
    p.on('close', code =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1) as string))
        : reject(new Error(`${mode} ${run} exited ${code}: ${err}`))
    )
  })
}

const totalBilled = (): number => [...billed.values()].reduce((s, n) => s + n, 0) * Math.round(COST_USD * 1e6)

/** The ledger's settle lines, added up (micro-dollars). */
function settledInCommits(): number {
  return server
    .git('log', '--format=%B', REF)
    .split('\n')
    .filter(l => l.startsWith('settle '))
    .reduce((s, l) => s + Math.round(Number(/ spent=([\d.]+)/.exec(l)?.[1]) * 1e6), 0)
}

function assertTheLedgerAddsUp(): void {
  const ledger = parseLedger(server.git('cat-file', 'blob', `${REF}:ledger.json`))
  expect(ledger.leases).toEqual([])
  const today = Object.values(ledger.days).reduce((s, t) => s + t.spent, 0)
  expect(today).toBe(totalBilled())
  expect(settledInCommits()).toBe(totalBilled())
}

test('eight one-job runs at once: the upstream bills no more than $1, the refused run nothing, and the commits add up', async () => {
  const results = await Promise.all(Array.from({ length: RUNS }, (_, i) => runChild('one-job', `run-${i}`)))
  expect(totalBilled()).toBeLessThanOrEqual(BUDGET)
  // The budget was contested: wanted 8 × 6 × $0.07, got at most $1 of it.
  expect(totalBilled()).toBeGreaterThanOrEqual(BUDGET / 2)
  for (const r of results) {
    if ('refused' in r) {
      expect(billed.get(r.run as string)).toBeUndefined()
      expect(r.refused).toMatch(
        /^the repository's budget of \$1\/day is spent( or held)? \(.*\); it resets at 00:00 UTC$/
      )
    } else {
      expect(billed.get(r.run as string) ?? 0).toBe(r.requests)
      if ((r.requests as number) < 6)
        expect(r.stopped).toMatch(/^the repository's budget of \$1\/day is spent/)
    }
  }
  expect(results.some(r => 'refused' in r || 'stopped' in r)).toBe(true)
  assertTheLedgerAddsUp()
})

test('eight two-job runs at once: the agent job, with no token, spends only its lease; the deliver job settles', async () => {
  const results = await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => {
      const run = `run-${i}`
      const reserved = await runChild('reserve', run)
      if ('refused' in reserved) return reserved
      const lease = JSON.stringify(reserved.lease)
      const agent = await runChild('agent', run, [lease], false)
      const delivered = await runChild('deliver', run, [lease, String(agent.spentUsd)])
      return { ...agent, ...delivered }
    })
  )
  expect(totalBilled()).toBeLessThanOrEqual(BUDGET)
  for (const r of results) {
    if ('refused' in r) expect(billed.get(r.run as string)).toBeUndefined()
    else
      expect(Math.round((r.spentUsd as number) * 1e6)).toBeLessThanOrEqual(
        Math.round((r.granted as number) * 1e6)
      )
  }
  expect(results.filter(r => 'refused' in r).length).toBeGreaterThan(0)
  assertTheLedgerAddsUp()
})
