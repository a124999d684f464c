// A chain under the repository's budget, through dist/index.js as the workflow runs it (#38): job 1 runs out of
// max-time and hands the loop on, job 2 (another workflow run, a fresh runner) goes on. Each job reserves its
// own lease and settles it at its own metered spend, so the ledger adds up to what the upstream billed over the
// chain (a job settling the chain's total would count job 1's spend twice).
import { afterAll, beforeAll, expect, test } from '@jest/globals'
import { chain, chainFiles, slowAgent } from './chain.js'
import { BILLED, ledgerOf, settledUsd } from './budget-kit.js'
import { ralph } from './fixtures.js'
import { e2eSuite } from './suite.js'
import { startAnthropicServer, text, type ScriptedServer } from '../support/model-server/index.js'

const e2e = e2eSuite()
const { firstJob, dispatched, resumedJob } = chain(e2e, 7_600_000_000)

let upstream: ScriptedServer
beforeAll(async () => {
  upstream = await startAnthropicServer({
    script: () => text('ok', { usage: { input: 1000, output: 1000 } })
  })
})
afterAll(async () => {
  await upstream?.close()
})

/** Asks the model twice through the proxy, then does what the chain's agent does (a fix, or sleep past max-time). */
const CLAUDE = `#!/bin/sh
"${process.execPath}" "$(dirname "$0")/ask.cjs" </dev/null || exit 1
exec "${process.execPath}" "$(dirname "$0")/.agents/ralphs/fix-tests/agent.mjs"
`
const ASK = `;(async () => {
  for (let i = 0; i < 2; i++) {
    const response = await fetch(process.env.ANTHROPIC_BASE_URL + '/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': process.env.ANTHROPIC_API_KEY ?? '' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1000, messages: [{ role: 'user', content: 'Work.' }] })
    })
    await response.text()
    if (response.status !== 200) process.exit(1)
  }
})()
`

const BUDGET = {
  budget: '1/day',
  'model-proxy': 'true',
  isolation: 'none',
  'continue-jobs': '3',
  'completion-tag': 'none'
}

test('a chain of two jobs reserves in each job and settles each at its own spend: the ledger adds up to the bill', async () => {
  const agent = slowAgent(e2e.scratch(), 'budget-chain', 'once')
  const p = await e2e.project(
    {
      ...chainFiles(agent.script, 2),
      '.agents/ralphs/fix-tests/RALPH.md': ralph({ agent: './claude', checks: ['node check.mjs 2'] }),
      claude: { content: CLAUDE, mode: 0o755 },
      'ask.cjs': ASK
    },
    { api: { artifacts: e2e.stand().artifacts } }
  )
  const env = { ANTHROPIC_BASE_URL: upstream.url, ANTHROPIC_API_KEY: 'sk-ant-job-secret' }
  const before = upstream.requests.length
  // Job 1: a fix, then an agent run past max-time: two agent runs, four requests.
  const { job: first, run: a } = await firstJob(p, { inputs: { ...BUDGET, 'max-time': '20s' }, env })
  expect(first.outputs).toMatchObject({ 'stop-reason': 'timeout', continued: 'true' })
  const firstBilled = (upstream.requests.length - before) * BILLED
  expect(firstBilled).toBeCloseTo(4 * BILLED, 9)
  const { dispatch, run: b } = dispatched(p)
  // Job 2: the last fix, the gate green.
  const { job: second } = await resumedJob(p, b, dispatch.inputs, {
    inputs: { ...BUDGET, 'max-time': '3m' },
    env
  })
  expect(second.outputs['stop-reason']).toBe('all_checks_passed')
  const billed = (upstream.requests.length - before) * BILLED
  expect(billed).toBeCloseTo(6 * BILLED, 9)
  const { changes, json } = ledgerOf(p)
  const reserves = changes.filter(c => c.startsWith('reserve '))
  const settles = changes.filter(c => c.startsWith('settle '))
  // One lease a job, each its own run's, each settled at what that job spent.
  expect(reserves.map(c => /run=(\d+)/.exec(c)?.[1])).toEqual([String(a.id), String(b.id)])
  expect(settles.map(c => /run=(\d+)/.exec(c)?.[1])).toEqual([String(a.id), String(b.id)])
  expect(settledUsd(settles.slice(0, 1))).toBeCloseTo(firstBilled, 6)
  expect(settledUsd(changes)).toBeCloseTo(billed, 6)
  expect(json.leases).toEqual([])
}, 400_000)
