// The dollar cap fails closed, through dist/index.js as the runner runs it (#25, attack 3; #35): an agent behind
// the model proxy (a stand-in `claude` that speaks the Messages API) asks for a message batch, which is
// refused, never reaches the upstream, and is named in the run's record and warnings; a request whose worst
// case does not fit in the budget is refused, and the run stops budget_exhausted; and against a stand-in
// upstream that bills as the vendor does, documents by URL and 1-hour cache writes never take the upstream's
// bill past the cap.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from '@jest/globals'
import type { LoopResult } from '../../src/loop/index.js'
import { createProject, runAction, startStand, type Stand } from '../action/harness.js'
import {
  startAnthropicServer,
  text,
  type RecordedRequest,
  type ScriptedServer
} from '../support/model-server/index.js'
import { proxiedInputs, proxiedRalph } from '../support/proxied-ralph.js'

/**
 * Makes the requests in the file $ASK (a JSON array of steps, each a [path, body] or a list of them asked at
 * once), one step after another; writes each status and body to $OUT.
 */
const AGENT = `#!${process.execPath}
const fs = require('node:fs')
process.stdin.resume()
process.stdin.on('end', async () => {
  const answers = []
  const ask = async ([path, body]) => {
    const response = await fetch(process.env.ANTHROPIC_BASE_URL + path, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': process.env.ANTHROPIC_API_KEY ?? '',
        'anthropic-version': '2023-06-01'
      },
      body: JSON.stringify(body)
    })
    answers.push({ path, status: response.status, body: await response.text() })
    fs.writeFileSync(process.env.OUT + '/answers.json', JSON.stringify(answers))
  }
  for (const step of JSON.parse(fs.readFileSync(process.env.ASK, 'utf8')))
    await Promise.all((typeof step[0] === 'string' ? [step] : step).map(ask))
  console.log('Done. <promise>COMPLETE</promise>')
})
`

type Ask = [string, unknown]

const message = (maxTokens: number) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: maxTokens,
  messages: [{ role: 'user', content: 'Work.' }]
})

let stand: Stand
let server: ScriptedServer
/** Bills each request as the vendor does: its input, its cache writes by TTL, a document by URL fetched. */
let vendor: ScriptedServer
/** Serves a 1.2 MB document, as a URL a request may name. */
let documents: http.Server
let out: string
beforeAll(async () => {
  stand = await startStand()
  server = await startAnthropicServer({
    script: () => text('Done.', { usage: { input: 1000, output: 100 } })
  })
  vendor = await startAnthropicServer({
    script: () => text('Done.', { billAsVendor: true, usage: { output: 100 }, delayMs: 300 })
  })
  documents = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/pdf' })
    response.end('x'.repeat(1_200_000))
  })
  await new Promise<void>(resolve => documents.listen(0, '127.0.0.1', resolve))
}, 120_000)
afterAll(async () => {
  await server?.close()
  await vendor?.close()
  await new Promise(resolve => documents?.close(resolve))
  await stand?.close()
  if (out) rmSync(out, { recursive: true, force: true })
})

async function run(ask: Array<Ask | Ask[]>, maxCost: string, upstream = server) {
  out = mkdtempSync(path.join(tmpdir(), 'ralph-cap-'))
  writeFileSync(path.join(out, 'ask.json'), JSON.stringify(ask))
  const project = await createProject(proxiedRalph('cap', AGENT))
  try {
    const seen = upstream.requests.length
    const result = await runAction(project, stand, {
      inputs: { ...proxiedInputs('cap'), 'max-cost': maxCost },
      env: {
        ANTHROPIC_BASE_URL: upstream.url,
        ANTHROPIC_API_KEY: 'sk-ant-job-secret',
        OUT: out,
        ASK: path.join(out, 'ask.json')
      }
    })
    const dir = readdirSync(project.runnerTemp).find(name => name.startsWith('ralph-record-'))
    if (!dir) throw new Error(`no run record:\n${result.main.stdout}`)
    const status = JSON.parse(
      readFileSync(path.join(project.runnerTemp, dir, 'status.json'), 'utf8')
    ) as LoopResult
    const progress = readFileSync(path.join(project.runnerTemp, dir, 'progress.md'), 'utf8')
    const file = path.join(out, 'answers.json')
    const answers = existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as Array<{ path: string; status: number; body: string }>)
      : []
    return { result, status, progress, answers, upstream: upstream.requests.slice(seen) }
  } finally {
    await project.cleanup()
  }
}

test('a message batch is refused, never reaches the upstream, and is named in the record and the warnings', async () => {
  const { result, status, answers, upstream } = await run(
    [
      ['/v1/messages/batches', { requests: [{ custom_id: 'a', params: message(64_000) }] }],
      ['/v1/messages', message(1000)]
    ],
    '5'
  )
  expect(answers.map(a => [a.path, a.status])).toEqual([
    ['/v1/messages/batches', 403],
    ['/v1/messages', 200]
  ])
  expect(answers[0].body).toContain('does not forward POST /v1/messages/batches')
  expect(upstream.map(r => r.url)).toEqual(['/v1/messages'])
  expect(status.modelProxy?.refusedRequests).toEqual(['POST /v1/messages/batches'])
  const warning = status.warnings.find(w => w.includes('/v1/messages/batches'))
  expect(warning).toMatch(
    /^the model proxy refused the agent POST \/v1\/messages\/batches: a batch is billed later/
  )
  expect(result.main.stdout).toContain(`::warning::${warning}`)
  expect(result.outputs['cost-source']).toBe('metered')
}, 300_000)

test('a request whose worst case does not fit in what is left is refused, and the run stops budget_exhausted', async () => {
  // 200,000 tokens out of claude-sonnet-4-5 at $15 a million: $3, past the $1 cap before anything is spent.
  const { result, status, progress, upstream } = await run([['/v1/messages', message(200_000)]], '1')
  expect(result.outputs['stop-reason']).toBe('budget_exhausted')
  expect(upstream).toEqual([])
  const requests = status.iterations[0]?.agent?.usage.requests ?? []
  expect(requests).toEqual([expect.objectContaining({ refused: 'budget', path: '/v1/messages' })])
  expect(progress).toContain(
    'Model requests metered at the wire: 1, 1 refused (their worst case did not fit in the budget)'
  )
  expect(status.stopDetail).toMatch(
    /worst case \(\$3\.\d{4}\) does not fit in what is left of the budget \(\$1\.0000\)/
  )
}, 300_000)

/** What the vendor bills at claude-sonnet-4-5's list prices, per million: written here, not read from the table. */
const SONNET_BILL = { input: 3, cacheWrite: 3.75, cacheWrite1h: 6, cacheRead: 0.3, output: 15 }
const billedUsd = ({ billed }: RecordedRequest): number =>
  billed
    ? (billed.input * SONNET_BILL.input +
        billed.cacheWrite * SONNET_BILL.cacheWrite +
        billed.cacheWrite1h * SONNET_BILL.cacheWrite1h +
        billed.cacheRead * SONNET_BILL.cacheRead +
        billed.output * SONNET_BILL.output) /
      1e6
    : 0

test('the cap holds for document URLs and 1-hour cache writes, against a stand-in upstream that bills them as the vendor does', async () => {
  const url = `http://127.0.0.1:${(documents.address() as AddressInfo).port}/report.pdf`
  // Eight small requests, each naming a document the vendor would fetch and bill: 300,000 tokens, $0.90.
  const byUrl = {
    ...message(1000),
    messages: [
      {
        role: 'user',
        content: [
          { type: 'document', source: { type: 'url', url } },
          { type: 'text', text: 'Summarise it.' }
        ]
      }
    ]
  }
  // Eight asking a 1-hour cache of a 177 KB system prompt: each is billed 44,000 tokens written for an hour.
  const cached = {
    ...message(1000),
    system: [{ type: 'text', text: 'x'.repeat(177_000), cache_control: { type: 'ephemeral', ttl: '1h' } }]
  }
  const eight = (body: unknown): Ask[] => Array.from({ length: 8 }, () => ['/v1/messages', body])
  const { result, status, answers, upstream } = await run([eight(byUrl), eight(cached)], '1', vendor)
  // What the upstream billed, as it billed it, stayed under the cap.
  const billed = upstream.reduce((sum, request) => sum + billedUsd(request), 0)
  expect(billed).toBeLessThanOrEqual(1)
  expect(billed).toBeGreaterThan(0.5)
  // No document went up: all eight were refused and named.
  expect(answers.slice(0, 8).map(a => a.status)).toEqual(Array(8).fill(403))
  expect(upstream.every(r => !JSON.stringify(r.body).includes('report.pdf'))).toBe(true)
  expect(status.modelProxy?.refusedRequests).toEqual(['POST /v1/messages (document source: url)'])
  const warning = status.warnings.find(w => w.includes('document source: url'))
  expect(warning).toMatch(/input the body does not hold/)
  expect(result.main.stdout).toContain(`::warning::${warning}`)
  // The cached ones went up while their worst case (an hour's write at 2× input) fitted, then the run stopped.
  expect(upstream.length).toBeGreaterThan(1)
  expect(upstream[0].billed?.cacheWrite1h).toBeGreaterThan(44_000)
  expect(result.outputs['stop-reason']).toBe('budget_exhausted')
  const requests = status.iterations[0]?.agent?.usage.requests ?? []
  const forwarded = requests.filter(r => r.status === 200)
  expect(forwarded).toHaveLength(upstream.length)
  for (const request of forwarded)
    expect(request).toMatchObject({ cache_write_1h: upstream[0].billed?.cacheWrite1h })
  // Metered as it was billed.
  expect(forwarded.reduce((sum, r) => sum + (r.cost_usd ?? 0), 0)).toBeCloseTo(billed, 6)
  expect(requests.some(r => r.refused === 'budget')).toBe(true)
}, 300_000)
