// The dollar cap fails closed, through dist/index.js as the runner runs it (#25, attack 3): an agent behind
// the model proxy (a stand-in `claude` that speaks the Messages API) asks for a message batch, which is
// refused, never reaches the upstream, and is named in the run's record and warnings; and a request whose
// worst case does not fit in the budget is refused, and the run stops budget_exhausted.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from '@jest/globals'
import type { LoopResult } from '../../src/loop/index.js'
import { createProject, runAction, startStand, type Stand } from '../action/harness.js'
import { startAnthropicServer, text, type ScriptedServer } from '../support/model-server/index.js'

/** Makes the requests in $ASK (path and body, one JSON array), writes each status and body to $OUT. */
const AGENT = `#!${process.execPath}
const fs = require('node:fs')
process.stdin.resume()
process.stdin.on('end', async () => {
  const answers = []
  for (const [path, body] of JSON.parse(process.env.ASK)) {
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
  console.log('Done. <promise>COMPLETE</promise>')
})
`

const message = (maxTokens: number) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: maxTokens,
  messages: [{ role: 'user', content: 'Work.' }]
})

let stand: Stand
let server: ScriptedServer
let out: string
beforeAll(async () => {
  stand = await startStand()
  server = await startAnthropicServer({
    script: () => text('Done.', { usage: { input: 1000, output: 100 } })
  })
}, 120_000)
afterAll(async () => {
  await server?.close()
  await stand?.close()
  if (out) rmSync(out, { recursive: true, force: true })
})

async function run(ask: Array<[string, unknown]>, maxCost: string) {
  out = mkdtempSync(path.join(tmpdir(), 'ralph-cap-'))
  const project = await createProject({
    '.agents/ralphs/cap/RALPH.md': '---\nagent: ./claude\n---\nWork.\n',
    claude: { content: AGENT, mode: 0o755 }
  })
  try {
    const seen = server.requests.length
    const result = await runAction(project, stand, {
      inputs: {
        ralph: 'cap',
        isolation: 'none',
        'model-proxy': 'true',
        'max-iterations': '1',
        checks: 'true',
        // The gate is green from the start and the agent's requests are what is tested: it must run.
        'skip-if-green': 'false',
        'completion-tag': 'none',
        'max-cost': maxCost,
        'upload-artifacts': 'false',
        'open-pr': 'false',
        'on-failure': 'none'
      },
      env: {
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: 'sk-ant-job-secret',
        OUT: out,
        ASK: JSON.stringify(ask)
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
    return { result, status, progress, answers, upstream: server.requests.slice(seen) }
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
