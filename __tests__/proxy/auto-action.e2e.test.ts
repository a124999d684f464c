// `model-proxy: auto` (the default) through dist/index.js as the runner runs it: a preset (a stand-in `claude`
// that makes one streamed Messages request to its ANTHROPIC_BASE_URL) with ANTHROPIC_API_KEY in the job's
// environment runs behind the proxy, with no model-proxy input given: the cost is metered at the wire, the
// upstream gets the real key, and the agent's environment holds none. Without the key (the control) the agent
// talks to the job's ANTHROPIC_BASE_URL itself, unmetered, and one notice says why.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from '@jest/globals'
import { createProject, runAction, startStand, type Stand } from '../action/harness.js'
import { startAnthropicServer, text, type ScriptedServer } from '../support/model-server/index.js'

const REAL_KEY = 'sk-ant-job-secret-0123456789'

/** Reads its prompt, makes one streamed request as Claude Code would, and writes its environment to $OUT. */
const AGENT = `#!${process.execPath}
const fs = require('node:fs')
let prompt = ''
process.stdin.on('data', d => { prompt += d })
process.stdin.on('end', async () => {
  fs.writeFileSync(process.env.OUT + '/env.json', JSON.stringify(process.env))
  const response = await fetch(process.env.ANTHROPIC_BASE_URL + '/v1/messages', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': process.env.ANTHROPIC_API_KEY ?? '',
      'anthropic-version': '2023-06-01'
    },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 1000,
      stream: true,
      messages: [{ role: 'user', content: prompt }]
    })
  })
  const body = await response.text()
  fs.writeFileSync(process.env.OUT + '/answer.txt', response.status + '\\n' + body)
  console.log('Done. <promise>COMPLETE</promise>')
})
`

let stand: Stand
let server: ScriptedServer
let out: string
beforeAll(async () => {
  stand = await startStand()
  server = await startAnthropicServer({
    script: () => text('Done.', { usage: { input: 12000, output: 3000 } })
  })
}, 120_000)
afterAll(async () => {
  await server?.close()
  await stand?.close()
  if (out) rmSync(out, { recursive: true, force: true })
})

async function run(jobEnv: Record<string, string>, given: Record<string, string> = {}) {
  out = mkdtempSync(path.join(tmpdir(), 'ralph-auto-proxy-'))
  const project = await createProject({
    '.agents/ralphs/auto/RALPH.md': '---\nagent: ./claude\n---\nWork.\n',
    claude: { content: AGENT, mode: 0o755 }
  })
  try {
    const result = await runAction(project, stand, {
      // No model-proxy input: action.yml's default applies. isolation none: no egress rules on this machine.
      inputs: {
        ralph: 'auto',
        isolation: 'none',
        'max-iterations': '1',
        checks: 'true',
        // The gate is green from the start and the agent's request is what is measured: it must run.
        'skip-if-green': 'false',
        'completion-tag': 'none',
        'max-cost': '5',
        'upload-artifacts': 'false',
        'open-pr': 'false',
        'on-failure': 'none',
        ...given
      },
      env: { ANTHROPIC_BASE_URL: server.url, OUT: out, ...jobEnv }
    })
    const log = `${result.main.stdout}\n${result.main.stderr}`
    // No agent ran: nothing it would have written.
    if (!existsSync(path.join(out, 'env.json'))) return { result, log, ran: false, agentEnv: {}, answer: '' }
    const agentEnv = JSON.parse(readFileSync(path.join(out, 'env.json'), 'utf8')) as Record<string, string>
    const answer = readFileSync(path.join(out, 'answer.txt'), 'utf8')
    return { result, log, ran: true, agentEnv, answer }
  } finally {
    await project.cleanup()
  }
}

test('a preset with its key in the job: behind the proxy by default, metered, and the agent holds no key', async () => {
  const seen = server.requests.length
  const { result, agentEnv, answer, log } = await run({ ANTHROPIC_API_KEY: REAL_KEY })
  if (result.main.exitCode !== 0) throw new Error(log)
  expect(answer).toMatch(/^200\n/)
  expect(result.outputs['cost-source']).toBe('metered')
  // 12k input and 3k output tokens of claude-sonnet-4-5 ($3 and $15 a million): $0.081.
  expect(Number(result.outputs.cost)).toBeCloseTo(0.081, 6)
  // The agent was pointed at the proxy, with a placeholder; the real key is nowhere in its environment.
  expect(agentEnv.ANTHROPIC_BASE_URL).not.toBe(server.url)
  expect(agentEnv.ANTHROPIC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(agentEnv.ANTHROPIC_API_KEY).toBeDefined()
  expect(JSON.stringify(agentEnv)).not.toContain(REAL_KEY)
  // The proxy forwarded to the job's ANTHROPIC_BASE_URL with the real key.
  const calls = server.requests.slice(seen).filter(r => r.url.startsWith('/v1/messages'))
  expect(calls).toHaveLength(1)
  expect(calls[0].headers['x-api-key']).toBe(REAL_KEY)
  expect(log).not.toContain('model-proxy auto:')
  // Not isolated, no rule can tell the agent's connections from the action's: the run says egress is not
  // enforced, and the proxy meters all the same (above).
  expect(log).toContain(
    '::warning::egress is not enforced (agent-network model-only): the agent does not run as its own user; the proxy still holds the model key and meters every token'
  )
}, 300_000)

test('the control: the same preset without its key runs unproxied, and a notice says why', async () => {
  const seen = server.requests.length
  const { result, agentEnv, answer, log } = await run({})
  if (result.main.exitCode !== 0) throw new Error(log)
  expect(answer).toMatch(/^200\n/)
  expect(result.outputs['cost-source']).not.toBe('metered')
  expect(agentEnv.ANTHROPIC_BASE_URL).toBe(server.url)
  expect(server.requests.slice(seen).filter(r => r.url.startsWith('/v1/messages'))).toHaveLength(1)
  expect(log).toContain(
    "::notice::model-proxy auto: No ANTHROPIC_API_KEY in the job's environment: claude runs with its own credentials, not behind the model proxy: cost is what the CLI reports."
  )
}, 300_000)

test('model-proxy true without the key fails the step in one line before anything runs', async () => {
  const { result, ran } = await run({}, { 'model-proxy': 'true' })
  expect(result.main.exitCode).not.toBe(0)
  expect(ran).toBe(false)
  expect(result.main.errors.map(e => e.message)).toEqual([
    "The model proxy holds the key for claude, but the job's environment has no ANTHROPIC_API_KEY: set it from a secret."
  ])
}, 300_000)
