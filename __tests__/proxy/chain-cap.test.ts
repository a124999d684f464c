// The carried cost has one way (#36): the proxy's cap compares the chain's total spend (what the earlier jobs
// spent, and what this proxy metered) to max-cost, against the real proxy and the scripted model server.
import { startAgentProxy, type AgentBehindProxy } from '../../src/proxy/agent.js'
import { startAnthropicServer, text, type ScriptedServer } from '../support/model-server/index.js'

const JOB: NodeJS.ProcessEnv = { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-ant-real' }

const closers: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function setUp(chainSpentUsd: number): Promise<{ server: ScriptedServer; proxied: AgentBehindProxy }> {
  const server = await startAnthropicServer({
    script: () => text('ok', { usage: { input: 10, output: 10 } })
  })
  closers.push(() => server.close())
  const proxied = await startAgentProxy(
    ['claude', '-p'],
    JOB,
    { upstream: server.url },
    { maxCostUsd: 1, chainSpentUsd }
  )
  closers.push(() => proxied.close())
  return { server, proxied }
}

/** One non-streamed request whose worst case is 20,000 tokens of claude-sonnet-4-5 out: about $0.30. */
async function askDear(proxied: AgentBehindProxy): Promise<number> {
  const response = await fetch(`${proxied.proxy.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': proxied.proxy.placeholderKey },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 20_000,
      stream: false,
      messages: [{ role: 'user', content: 'hi' }]
    })
  })
  await response.text()
  return response.status
}

test("the proxy's cap counts the chain's earlier spend: $0.95 spent before this job leaves no room for a $0.30 request under a $1 cap", async () => {
  const { server, proxied } = await setUp(0.95)
  proxied.meter.beginRun()
  expect(await askDear(proxied)).toBe(402)
  expect(server.requests).toHaveLength(0)
})

test('the same request passes when the chain has spent nothing yet', async () => {
  const { server, proxied } = await setUp(0)
  proxied.meter.beginRun()
  expect(await askDear(proxied)).toBe(200)
  expect(server.requests).toHaveLength(1)
})
