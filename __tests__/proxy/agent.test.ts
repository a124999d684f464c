// Putting each CLI behind the proxy: what its environment and files become (no model key anywhere, the
// proxy's URL where the CLI looks for its server), the settings' errors, and the metered cost meter.
import { existsSync, readFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { agentEnvironment } from '../../src/security/index.js'
import {
  autoModelProxy,
  MODEL_KEY_VARIABLES,
  modelProxySettings,
  startAgentProxy,
  type AgentBehindProxy
} from '../../src/proxy/agent.js'
import { startAnthropicServer, text } from '../support/model-server/index.js'

const JOB: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  ANTHROPIC_API_KEY: 'sk-ant-real',
  OPENAI_API_KEY: 'sk-openai-real',
  GEMINI_API_KEY: 'gemini-real',
  GOOGLE_API_KEY: 'google-real',
  DASHSCOPE_API_KEY: 'dashscope-real'
}
const REAL = ['sk-ant-real', 'sk-openai-real', 'gemini-real', 'google-real', 'dashscope-real']

const open: AgentBehindProxy[] = []
afterEach(async () => {
  for (const behind of open.splice(0)) await behind.close()
})

const where: Record<string, (env: NodeJS.ProcessEnv, behind: AgentBehindProxy) => string> = {
  claude: env => env.ANTHROPIC_BASE_URL ?? '',
  gemini: env => env.GOOGLE_GEMINI_BASE_URL ?? '',
  qwen: env => env.OPENAI_BASE_URL ?? '',
  codex: env => readFileSync(`${env.CODEX_HOME}/config.toml`, 'utf8'),
  opencode: env => readFileSync(env.OPENCODE_CONFIG ?? '', 'utf8')
}

describe('each CLI behind the proxy', () => {
  const argvs: Record<string, string[]> = {
    claude: ['claude', '-p'],
    codex: ['codex', 'exec', '-m', 'gpt-5.5', '-'],
    gemini: ['gemini', '-y'],
    opencode: ['opencode', 'run', '-m', 'openai/gpt-5.5'],
    qwen: ['qwen', '-y']
  }
  for (const [cli, argv] of Object.entries(argvs))
    it(`${cli}: pointed at the proxy with the placeholder key, and no model key in its environment or files`, async () => {
      const behind = await startAgentProxy(argv, JOB, { upstream: 'https://models.example' })
      open.push(behind)
      const env = agentEnvironment(JOB, behind.agentEnv)
      const seen = JSON.stringify(env) + where[cli](env, behind)
      for (const key of REAL) expect(seen).not.toContain(key)
      expect(seen).toContain(behind.proxy.placeholderKey)
      expect(where[cli](env, behind)).toContain(behind.proxy.url)
      expect(behind.upstream).toBe('https://models.example')
    })

  it('forwards to the base URL the job had, else to the vendor', async () => {
    const fromJob = await startAgentProxy(
      ['claude'],
      { ...JOB, ANTHROPIC_BASE_URL: 'https://gw.example/anthropic/' },
      {}
    )
    open.push(fromJob)
    expect(fromJob.upstream).toBe('https://gw.example/anthropic')
    const qwen = await startAgentProxy(['qwen'], { ...JOB, OPENAI_BASE_URL: 'https://gw.example/v1' }, {})
    open.push(qwen)
    expect(qwen.upstream).toBe('https://gw.example')
    // codex and opencode speak OpenAI's API too: the job's OPENAI_BASE_URL is their gateway.
    const codex = await startAgentProxy(
      ['codex', 'exec', '-'],
      { ...JOB, OPENAI_BASE_URL: 'https://gw.example/openai/v1/' },
      {}
    )
    open.push(codex)
    expect(codex.upstream).toBe('https://gw.example/openai')
    const opencode = await startAgentProxy(
      ['opencode', 'run', '-m', 'openai/gpt-5.5'],
      { ...JOB, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
      {}
    )
    open.push(opencode)
    expect(opencode.upstream).toBe('http://127.0.0.1:9')
    const vendor = await startAgentProxy(['gemini'], JOB, {})
    open.push(vendor)
    expect(vendor.upstream).toBe('https://generativelanguage.googleapis.com')
    const codexVendor = await startAgentProxy(['codex', 'exec', '-'], JOB, {})
    open.push(codexVendor)
    expect(codexVendor.upstream).toBe('https://api.openai.com')
  })

  it('removes the files it wrote when it closes', async () => {
    const behind = await startAgentProxy(['codex', 'exec', '-'], JOB, {})
    const file = `${behind.agentEnv.set?.CODEX_HOME}/config.toml`
    expect(existsSync(file)).toBe(true)
    await behind.close()
    expect(existsSync(file)).toBe(false)
  })

  it('refuses an agent it does not know, and a job without the key, saying what to do', async () => {
    await expect(startAgentProxy(['aider'], JOB, {})).rejects.toThrow(/turn model-proxy off/)
    await expect(startAgentProxy(['claude'], { PATH: '/bin' }, {})).rejects.toThrow(
      /no ANTHROPIC_API_KEY: set it from a secret/
    )
    await expect(startAgentProxy(['claude'], JOB, { caFile: '/nope/ca.pem' })).rejects.toThrow(
      /CA file \/nope\/ca.pem cannot be read \(ENOENT\)/
    )
  })

  it('lists every model key it withholds', () => {
    for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY'])
      expect(MODEL_KEY_VARIABLES).toContain(name)
  })
})

describe('the proxy settings', () => {
  it('are off by default, and the others need it on', () => {
    expect(modelProxySettings({ on: false, allowedHosts: [] })).toBeUndefined()
    expect(() => modelProxySettings({ on: false, allowedHosts: ['registry.npmjs.org'] })).toThrow(
      "The setting 'allowed-hosts' needs the model proxy: turn model-proxy on as well."
    )
  })

  it('name a wrong value before saying the proxy is off (turning it on would not mend the value)', () => {
    expect(() => modelProxySettings({ on: false, allowedHosts: [], network: 'foo' })).toThrow(
      /^The setting 'agent-network' must be one of model-only, allow-list, open, got "foo"\.$/
    )
    expect(() => modelProxySettings({ on: false, allowedHosts: [], upstream: 'nope' })).toThrow(
      /'model-upstream' must be an http\(s\) URL, got "nope"/
    )
  })

  it('check the network mode, the upstream and the hosts', () => {
    expect(modelProxySettings({ on: true, allowedHosts: [] })).toEqual({ network: 'model-only' })
    expect(modelProxySettings({ on: true, allowedHosts: ['registry.npmjs.org'] })).toEqual({
      network: 'allow-list',
      allowedHosts: ['registry.npmjs.org']
    })
    expect(() => modelProxySettings({ on: true, allowedHosts: [], network: 'closed' })).toThrow(
      /'agent-network' must be one of model-only, allow-list, open, got "closed"/
    )
    expect(() => modelProxySettings({ on: true, allowedHosts: ['x.org'], network: 'model-only' })).toThrow(
      /'allowed-hosts' needs agent-network allow-list/
    )
    expect(() => modelProxySettings({ on: true, allowedHosts: [], upstream: 'ftp://x' })).toThrow(
      /'model-upstream' must be an http\(s\) URL/
    )
  })
})

describe('model-proxy auto', () => {
  const unmetered = (cli: string): string =>
    `${cli} runs with its own credentials, not behind the model proxy: cost is what the CLI reports.`
  const cases: [argv: string[], env: NodeJS.ProcessEnv, expected: ReturnType<typeof autoModelProxy>][] = [
    // A preset whose key the job holds: on.
    [['claude', '-p'], { ANTHROPIC_API_KEY: 'k' }, { on: true }],
    [['/opt/bin/claude', '-p'], { ANTHROPIC_API_KEY: 'k' }, { on: true }],
    [['codex', 'exec', '-'], { OPENAI_API_KEY: 'k' }, { on: true }],
    [['codex', 'exec', '-'], { CODEX_API_KEY: 'k' }, { on: true }],
    [['gemini', '-y'], { GEMINI_API_KEY: 'k' }, { on: true }],
    [['gemini', '-y'], { GOOGLE_API_KEY: 'k' }, { on: true }],
    [['opencode', 'run', '-m', 'openai/gpt-5.5'], { OPENAI_API_KEY: 'k' }, { on: true }],
    [['qwen', '-y'], { OPENAI_API_KEY: 'k' }, { on: true }],
    [['qwen', '-y'], { DASHSCOPE_API_KEY: 'k' }, { on: true }],
    // A preset without its key (another vendor's, or an empty one, does not count): off, and why.
    [
      ['claude', '-p'],
      {},
      { on: false, why: `No ANTHROPIC_API_KEY in the job's environment: ${unmetered('claude')}` }
    ],
    [
      ['claude', '-p'],
      { ANTHROPIC_API_KEY: '' },
      { on: false, why: `No ANTHROPIC_API_KEY in the job's environment: ${unmetered('claude')}` }
    ],
    [
      ['claude', '-p'],
      { OPENAI_API_KEY: 'k' },
      { on: false, why: `No ANTHROPIC_API_KEY in the job's environment: ${unmetered('claude')}` }
    ],
    [
      ['codex', 'exec'],
      { ANTHROPIC_API_KEY: 'k' },
      { on: false, why: `No OPENAI_API_KEY or CODEX_API_KEY in the job's environment: ${unmetered('codex')}` }
    ],
    [
      ['gemini'],
      {},
      {
        on: false,
        why: `No GEMINI_API_KEY or GOOGLE_API_KEY in the job's environment: ${unmetered('gemini')}`
      }
    ],
    [
      ['qwen'],
      {},
      {
        on: false,
        why: `No OPENAI_API_KEY or DASHSCOPE_API_KEY in the job's environment: ${unmetered('qwen')}`
      }
    ],
    // opencode must name its model for the proxy's config.
    [
      ['opencode', 'run'],
      { OPENAI_API_KEY: 'k' },
      {
        on: false,
        why: `opencode's command names no model (-m <model>), which the proxy needs: ${unmetered('opencode')}`
      }
    ],
    // Any other agent: off, and nothing to say.
    [['./my-agent.sh'], { ANTHROPIC_API_KEY: 'k' }, { on: false }],
    [['aider', '--yes'], { OPENAI_API_KEY: 'k' }, { on: false }],
    [['node', 'claude.js'], { ANTHROPIC_API_KEY: 'k' }, { on: false }]
  ]
  it.each(cases)('%j with %j', (argv, env, expected) => {
    expect(autoModelProxy(argv, env)).toEqual(expected)
  })

  it('is validated as on, and a proxy setting given makes it true', () => {
    expect(modelProxySettings({ on: 'auto', allowedHosts: [] })).toEqual({
      network: 'model-only',
      auto: true
    })
    expect(modelProxySettings({ on: 'auto', allowedHosts: ['registry.npmjs.org'] })).toEqual({
      network: 'allow-list',
      allowedHosts: ['registry.npmjs.org']
    })
    expect(() => modelProxySettings({ on: 'auto', allowedHosts: [], network: 'closed' })).toThrow(
      /'agent-network' must be one of/
    )
  })
})

describe('the metered cost meter', () => {
  it("counts a run's requests at the wire, keeps each one, and shows what the agent said beside it", async () => {
    // A fresh conversation each time: both requests get the same turn.
    const server = await startAnthropicServer({
      script: [text('one', { usage: { input: 1000, output: 100 } })]
    })
    const behind = await startAgentProxy(['claude'], JOB, { upstream: server.url })
    open.push(behind)
    const changes: number[] = []
    behind.meter.onChange(() => changes.push(behind.meter.runningUsd()))
    behind.meter.beginRun()
    for (const n of [1, 2]) {
      const response = await fetch(`${behind.proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': behind.proxy.placeholderKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'claude-sonnet-4-5',
          stream: true,
          messages: [{ role: 'user', content: `hi ${n}` }]
        })
      })
      await response.text()
    }
    behind.meter.observe({ input: 1, output: 1, cache_read: 0, cache_write: 0, reportedUsd: 0.5 })
    const usage = behind.meter.endRun()
    await server.close()
    // $3 / $15 per million, twice 1000 in and 100 out.
    expect(usage.cost_usd).toBeCloseTo((2000 * 3 + 200 * 15) / 1e6, 10)
    expect(usage).toMatchObject({ input: 2000, output: 200, cost_source: 'metered' })
    expect(usage.requests?.map(r => r.seq)).toEqual([1, 2])
    expect(usage.agent_said).toEqual({ cost_usd: 0.5, cost_source: 'reported' })
    expect(behind.meter.spentUsd()).toBeCloseTo(usage.cost_usd, 10)
    expect(behind.meter.source()).toBe('metered')
    // The running figure rose while the stream was read, before the run ended.
    expect(Math.max(...changes)).toBeGreaterThan(0)
  })

  it("calls a run's cost unknown when an answer could not be read, and charges it its worst case, not $0", async () => {
    // An upstream whose answers carry usage the proxy cannot see: compressed, or not JSON at all. Beside them,
    // answers that were read and cost nothing (a model list, a refusal) leave the source metered.
    const usage = JSON.stringify({
      usage: { input_tokens: 1000, output_tokens: 100 },
      model: 'claude-sonnet-4-5'
    })
    // Chosen by a header of the test's (a model call's query holds only what the proxy knows).
    const answers: Record<string, (res: http.ServerResponse) => void> = {
      '/v1/models': res => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}'),
      refused: res => res.writeHead(429, { 'content-type': 'text/plain' }).end('slow down'),
      gzip: res =>
        res
          .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
          .end(gzipSync(usage)),
      text: res => res.writeHead(200, { 'content-type': 'text/plain' }).end(usage)
    }
    const server = http.createServer((req, res) =>
      req.resume().on('end', () => answers[String(req.headers['x-answer'] ?? req.url)]?.(res))
    )
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const behind = await startAgentProxy(['claude'], JOB, { upstream })
    open.push(behind)
    const ask = async (answer: string, method = 'POST'): Promise<void> => {
      const response = await fetch(`${behind.proxy.url}${method === 'POST' ? '/v1/messages' : answer}`, {
        method,
        headers: {
          'x-api-key': behind.proxy.placeholderKey,
          'content-type': 'application/json',
          'x-answer': answer
        },
        ...(method === 'POST'
          ? { body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [] }) }
          : {})
      })
      await response.arrayBuffer()
    }
    try {
      behind.meter.beginRun()
      await ask('/v1/models', 'GET')
      await ask('refused')
      expect(behind.meter.endRun().cost_source).toBe('metered')
      for (const answer of ['gzip', 'text']) {
        behind.meter.beginRun()
        await ask(answer)
        const run = behind.meter.endRun()
        expect(run.cost_source).toBe('unknown')
        expect(run.requests).toEqual([
          expect.objectContaining({ path: '/v1/messages', status: 200, unread: true, worst_case: true })
        ])
        // 100 tokens out at $15 a million, and the body's bytes as input: never $0.
        expect(run.cost_usd).toBeGreaterThan((100 * 15) / 1e6)
      }
      expect(behind.meter.source()).toBe('unknown')
    } finally {
      await new Promise(resolve => server.close(resolve))
    }
  })
})
