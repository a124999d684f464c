// The model proxy against the scripted model servers (the same ones the live tier's CLIs talk to): the real
// key goes up and the placeholder never does, usage is read on each of the four wires as it streams, a
// crossed budget ends the stream, HTTPS upstreams are verified against a configured CA, and CONNECT serves
// only the allowed hosts.
import net, { type AddressInfo } from 'node:net'
import { priceFromTable } from '../../src/agents/prices.js'
import { startModelProxy, type ModelProxy } from '../../src/proxy/server.js'
import type { MeteredRequest } from '../../src/proxy/types.js'
import type { ModelWire } from '../../src/proxy/wire.js'
import {
  startAnthropicServer,
  startChatServer,
  startGeminiServer,
  startResponsesServer,
  text,
  type ScriptedServer
} from '../support/model-server/index.js'
import { makeTestCa, startTlsFront, type TestCa, type TlsFront } from '../support/tls-front.js'

const REAL_KEY = 'sk-real-key-held-by-the-proxy'
const USAGE = { input: 1000, output: 200, cacheRead: 300 }

const closers: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function proxyFor(
  wire: ModelWire,
  upstream: string,
  extra: Partial<Parameters<typeof startModelProxy>[0]> = {}
): Promise<{ proxy: ModelProxy; seen: MeteredRequest[] }> {
  const seen: MeteredRequest[] = []
  const proxy = await startModelProxy({
    wire,
    upstream,
    apiKey: REAL_KEY,
    price: priceFromTable,
    onRequest: request => seen.push({ ...request, usage: { ...request.usage } }),
    ...extra
  })
  closers.push(() => proxy.close())
  return { proxy, seen }
}

const WIRES: Array<{
  wire: ModelWire
  start: (script: Parameters<typeof startAnthropicServer>[0]) => Promise<ScriptedServer>
  model: string
  path: string
  body: (model: string) => Record<string, unknown>
  auth: (key: string) => Record<string, string>
  upstreamKey: (server: ScriptedServer) => unknown
}> = [
  {
    wire: 'anthropic-messages',
    start: startAnthropicServer,
    model: 'claude-sonnet-4-5',
    path: '/v1/messages',
    body: model => ({ model, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    auth: key => ({ 'x-api-key': key }),
    upstreamKey: server => server.requests[0]?.headers['x-api-key']
  },
  {
    wire: 'openai-responses',
    start: startResponsesServer,
    model: 'gpt-5.5',
    path: '/v1/responses',
    body: model => ({ model, stream: true, input: [{ role: 'user', content: 'hi' }] }),
    auth: key => ({ authorization: `Bearer ${key}` }),
    upstreamKey: server => server.requests[0]?.headers.authorization
  },
  {
    wire: 'openai-chat',
    start: startChatServer,
    model: 'qwen3-coder-plus',
    path: '/v1/chat/completions',
    body: model => ({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }]
    }),
    auth: key => ({ authorization: `Bearer ${key}` }),
    upstreamKey: server => server.requests[0]?.headers.authorization
  },
  {
    wire: 'gemini',
    start: startGeminiServer,
    model: 'gemini-2.5-flash',
    path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    body: () => ({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    auth: key => ({ 'x-goog-api-key': key }),
    upstreamKey: server => server.requests[0]?.headers['x-goog-api-key']
  }
]

describe('the model proxy on each wire', () => {
  for (const w of WIRES) {
    it(`${w.wire}: the real key goes upstream, the stream comes back whole, and its tokens are metered`, async () => {
      const server = await w.start({ script: [text('Hello from upstream.', { usage: USAGE })] })
      closers.push(() => server.close())
      const { proxy, seen } = await proxyFor(w.wire, server.url)
      const response = await fetch(`${proxy.url}${w.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...w.auth(proxy.placeholderKey) },
        body: JSON.stringify(w.body(w.model))
      })
      expect(response.status).toBe(200)
      const body = await response.text()
      expect(body).toContain('Hello from upstream.')
      expect(server.problems).toEqual([])
      expect(String(w.upstreamKey(server))).toContain(REAL_KEY)
      expect(JSON.stringify(server.requests)).not.toContain(proxy.placeholderKey)
      const last = proxy.requests.at(-1)!
      expect(last.usage).toMatchObject({
        input: USAGE.input,
        output: USAGE.output,
        cache_read: USAGE.cacheRead
      })
      expect(last.usage.model).toContain(w.model.split('-')[0])
      expect(last.costUsd).toBeCloseTo(priceFromTable({ ...last.usage })!, 10)
      expect(last.costUsd).toBeGreaterThan(0)
      expect(seen.length).toBeGreaterThan(0)
    })
  }

  it('refuses a request without the placeholder key, and forwards nothing', async () => {
    const server = await startAnthropicServer({ script: [text('never')] })
    closers.push(() => server.close())
    const { proxy } = await proxyFor('anthropic-messages', server.url)
    const attempts: Record<string, string>[] = [
      {},
      { 'x-api-key': REAL_KEY },
      { 'x-api-key': 'sk-ant-guess' }
    ]
    for (const headers of attempts) {
      const response = await fetch(`${proxy.url}/v1/messages`, { method: 'POST', headers, body: '{}' })
      expect(response.status).toBe(401)
      await response.text()
    }
    expect(server.requests).toEqual([])
  })

  it("takes Gemini's key out of the query and puts the real one in the header", async () => {
    const server = await startGeminiServer({ script: [text('ok')] })
    closers.push(() => server.close())
    const { proxy } = await proxyFor('gemini', server.url)
    const response = await fetch(
      `${proxy.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=${proxy.placeholderKey}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(WIRES[3].body(''))
      }
    )
    expect(response.status).toBe(200)
    await response.text()
    expect(server.requests[0].url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')
    expect(server.requests[0].headers['x-goog-api-key']).toBe(REAL_KEY)
  })

  it('ends a stream whose tokens cross the budget, mid-stream, and marks the request cut', async () => {
    // The turn stalls a minute after its first delta: only a cut ends the read before then.
    const server = await startAnthropicServer({
      script: [text('This answer would go on for a minute.', { usage: USAGE, stallMs: 60_000 })]
    })
    closers.push(() => server.close())
    const { proxy } = await proxyFor('anthropic-messages', server.url, {
      overBudget: () => (proxy.requests.at(-1)?.costUsd ?? 0) > 0
    })
    const response = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': proxy.placeholderKey, 'content-type': 'application/json' },
      body: JSON.stringify(WIRES[0].body('claude-sonnet-4-5'))
    })
    expect(response.status).toBe(200)
    await expect(response.text()).rejects.toThrow()
    const cut = proxy.requests.at(-1)!
    expect(cut.cut).toBe(true)
    // message_start carries the input: that is what crossed.
    expect(cut.usage.input).toBe(USAGE.input)
  }, 30_000)
})

describe('the model proxy over HTTPS', () => {
  let ca: TestCa
  let front: TlsFront
  let server: ScriptedServer
  let frontUrl: string

  beforeAll(async () => {
    ca = makeTestCa()
    server = await startAnthropicServer({ script: [text('Over TLS.', { usage: USAGE })] })
    // TLS in front of the scripted server: the upstream the proxy reaches is HTTPS with the test CA's certificate.
    front = await startTlsFront(server.url, ca)
    frontUrl = front.url
  })

  afterAll(async () => {
    await front.close()
    await server.close()
    ca.remove()
  })

  const ask = (proxy: ModelProxy): Promise<Response> =>
    fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': proxy.placeholderKey, 'content-type': 'application/json' },
      body: JSON.stringify(WIRES[0].body('claude-sonnet-4-5'))
    })

  it('reaches an HTTPS upstream whose certificate the configured CA signed, and meters it', async () => {
    const { proxy } = await proxyFor('anthropic-messages', frontUrl, { ca: ca.pem })
    const response = await ask(proxy)
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('Over TLS.')
    expect(proxy.requests[0].usage.input).toBe(USAGE.input)
    expect(server.requests.at(-1)?.headers['x-api-key']).toBe(REAL_KEY)
  })

  it('refuses the same upstream without the CA: the key never goes to an unverified host', async () => {
    const before = server.requests.length
    const { proxy } = await proxyFor('anthropic-messages', frontUrl)
    const response = await ask(proxy)
    expect(response.status).toBe(502)
    expect(await response.text()).toMatch(/upstream 127\.0\.0\.1:\d+: .*certificate/)
    expect(server.requests.length).toBe(before)
  })
})

describe("the model proxy's CONNECT", () => {
  it('tunnels to an allowed host and refuses, and names, the others', async () => {
    const echo = net.createServer(socket => socket.pipe(socket))
    await new Promise<void>(resolve => echo.listen(0, '127.0.0.1', resolve))
    closers.push(() => new Promise<void>(resolve => echo.close(() => resolve())))
    const port = (echo.address() as AddressInfo).port
    const { proxy } = await proxyFor('anthropic-messages', 'https://api.anthropic.com', {
      allowedHosts: ['127.0.0.1']
    })
    const connect = (target: string, payload: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = net.connect(proxy.port, '127.0.0.1', () =>
          socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`)
        )
        let got = ''
        socket.on('data', chunk => {
          got += chunk.toString('utf8')
          if (got.includes('200 Connection Established\r\n\r\n') && !got.includes(payload))
            socket.write(payload)
          if (got.includes(payload)) socket.end()
        })
        socket.on('end', () => resolve(got))
        socket.on('error', reject)
      })
    expect(await connect(`127.0.0.1:${port}`, 'ping-through-the-tunnel')).toMatch(
      /^HTTP\/1\.1 200 Connection Established\r\n\r\nping-through-the-tunnel/
    )
    expect(await connect('example.com:443', 'never')).toMatch(/^HTTP\/1\.1 403/)
    expect(await connect(`localhost:${port}`, 'never')).toMatch(/^HTTP\/1\.1 403/)
    expect(proxy.refused).toEqual(['example.com:443', `localhost:${port}`])
    // A plain proxy request for another host is refused and named too.
    const plain = await new Promise<string>(resolve => {
      const socket = net.connect(proxy.port, '127.0.0.1', () =>
        socket.end('GET http://evil.example/x HTTP/1.1\r\nHost: evil.example\r\n\r\n')
      )
      let got = ''
      socket.on('data', chunk => (got += chunk.toString('utf8')))
      socket.on('close', () => resolve(got))
    })
    expect(plain).toMatch(/^HTTP\/1\.1 403/)
    expect(proxy.refused).toContain('http://evil.example')
  })

  it("names a target of the agent's own text without echoing it, and a target no parser reads does not bring the proxy down", async () => {
    const { proxy } = await proxyFor('anthropic-messages', 'https://api.anthropic.com', {
      allowedHosts: ['127.0.0.1']
    })
    /** Sends one raw request line and answers the status line the proxy gave. */
    const send = (line: string): Promise<string> =>
      new Promise(resolve => {
        const socket = net.connect(proxy.port, '127.0.0.1', () =>
          socket.end(`${line} HTTP/1.1\r\nHost: x\r\n\r\n`)
        )
        let got = ''
        socket.on('data', chunk => (got += chunk.toString('utf8')))
        socket.on('close', () => resolve(got.split('\r\n')[0] ?? ''))
        socket.on('error', () => resolve(got.split('\r\n')[0] ?? ''))
      })
    // Markdown in the job summary: a link to click, an image that calls home.
    expect(await send('CONNECT [Click_to_approve](https://evil.example/p):443')).toMatch(/^HTTP\/1\.1 403/)
    expect(await send('CONNECT ![x](https://evil.example/p.png):443')).toMatch(/^HTTP\/1\.1 403/)
    // No URL parser reads these: before, the request handler threw, and the process running the loop exited.
    expect(await send('GET http://[Click](https://evil.example)/x')).toMatch(/^HTTP\/1\.1 400/)
    expect(await send('GET //[')).toMatch(/^HTTP\/1\.1 400/)
    // Still serving.
    expect(await send('CONNECT example.com:443')).toMatch(/^HTTP\/1\.1 403/)
    expect(proxy.refused).toEqual(['a target with other characters than host:port', 'example.com:443'])
    expect(proxy.refused.join('\n')).not.toContain('evil.example')
  })
})
