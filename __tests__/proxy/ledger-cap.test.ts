// The model proxy draws on the repository's budget (#38), against the real proxy, a real ledger (git over
// HTTP, the git server stand-in) and a model server that bills each request a fixed amount: every request's
// worst case is granted by the lease before it goes up (topping it up through the ledger), so requests made
// one after another or eight at once never take what the upstream billed past the budget; the one that does
// not fit is refused with the ledger's line, and the meter says so for the loop to stop with `budget`.
import { afterEach, beforeEach, expect, test } from '@jest/globals'
import { microsOf, openLease, type Lease } from '../../src/ledger/index.js'
import { startAgentProxy, type AgentBehindProxy } from '../../src/proxy/agent.js'
import { startAnthropicServer, text, type ScriptedServer } from '../support/model-server/index.js'
import { ledgerRemote } from '../ledger/remote.js'

const remote = ledgerRemote()
const closers: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

/** input 1000 and output 1000 tokens of claude-sonnet-4-5 ($3/M, $15/M): $0.018 a request. */
const BILLED = 0.018
let upstream: ScriptedServer
beforeEach(async () => {
  upstream = await startAnthropicServer({
    script: () => text('ok', { usage: { input: 1000, output: 1000 } })
  })
  closers.push(() => upstream.close())
})

async function leased(dayUsd: number): Promise<Lease> {
  const opened = await openLease(await remote.store(), {
    run: { id: '9001', attempt: 1 },
    ralph: 'hunt',
    limits: { repository: { day: microsOf(dayUsd, 'down') }, perRequester: {} },
    minimumUsd: 0.02,
    deadline: new Date(Date.now() + 3600_000)
  })
  if (!('lease' in opened)) throw new Error(opened.refused.line)
  return opened.lease
}

async function behind(lease: Lease): Promise<AgentBehindProxy> {
  const proxied = await startAgentProxy(
    ['claude', '-p'],
    { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-ant-real' },
    { upstream: upstream.url },
    { cap: lease }
  )
  closers.push(() => proxied.close())
  return proxied
}

async function ask(proxied: AgentBehindProxy): Promise<{ status: number; text: string }> {
  const response = await fetch(`${proxied.proxy.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': proxied.proxy.placeholderKey },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'Work.' }]
    })
  })
  return { status: response.status, text: await response.text() }
}

const billed = (): number => upstream.requests.length * BILLED

test('requests one after another go up while the lease (topped up through the ledger) covers their worst case, then one is refused with the ledger line', async () => {
  const lease = await leased(0.1)
  const proxied = await behind(lease)
  proxied.meter.beginRun()
  const statuses: number[] = []
  let last = ''
  for (let i = 0; i < 8; i++) {
    const answer = await ask(proxied)
    statuses.push(answer.status)
    last = answer.text
  }
  // Five at $0.018 ($0.09): the sixth's worst case ($0.0181) does not fit in the $0.10 left.
  expect(statuses).toEqual([200, 200, 200, 200, 200, 402, 402, 402])
  expect(upstream.requests).toHaveLength(5)
  expect(billed()).toBeLessThanOrEqual(0.1)
  expect(last).toMatch(/budget for the repository cannot grant this request.*\$0\.10\/day is spent/)
  expect(proxied.meter.ledgerRefusal?.()).toMatch(/^the repository's budget of \$0\.10\/day is spent/)
  // The cap of max-cost was not what refused it.
  expect(proxied.meter.budgetRefusal?.()).toBeUndefined()
  const settled = await lease.settle(proxied.meter.spentUsd() + proxied.meter.runningUsd())
  expect(settled.spentUsd).toBeCloseTo(billed(), 6)
})

test('eight requests at once never take what the upstream billed past the budget', async () => {
  const lease = await leased(0.1)
  const proxied = await behind(lease)
  proxied.meter.beginRun()
  const answers = await Promise.all(Array.from({ length: 8 }, () => ask(proxied)))
  const ok = answers.filter(a => a.status === 200).length
  expect(ok).toBe(upstream.requests.length)
  expect(ok).toBeGreaterThan(0)
  expect(billed()).toBeLessThanOrEqual(0.1)
  expect(answers.filter(a => a.status === 402).length).toBe(8 - ok)
  expect(lease.grantedUsd()).toBeLessThanOrEqual(0.1)
})
