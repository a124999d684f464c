// The dollar cap fails closed (#25, attack 3; #35), against the real proxy and the scripted model servers:
// what the meter cannot price (a message batch, a Responses background job, an upload, a document by URL, a
// server-run tool) is refused and named, never sent up with the real key; an unlisted model is charged at its
// vendor's top price, said once; every request is pre-authorised at its worst case (a 1-hour cache write at its
// own price), so eight at once cannot take a $1 cap past what the upstream bills; a request in flight when the
// cap is crossed is cut, streamed or not; and usage that cannot be true is charged its worst case.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { priceFromTable } from '../../src/agents/prices.js'
import { LoopGuard, systemClock } from '../../src/loop/guard.js'
import { startAgentProxy, type AgentBehindProxy } from '../../src/proxy/agent.js'
import {
  PDF_PAGE_TOKENS,
  startAnthropicServer,
  startResponsesServer,
  text,
  type ScriptedServer
} from '../support/model-server/index.js'

const JOB: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  ANTHROPIC_API_KEY: 'sk-ant-real',
  OPENAI_API_KEY: 'sk-openai-real',
  GEMINI_API_KEY: 'gemini-real'
}

const closers: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function behind(argv: string[], upstream: string, maxCostUsd?: number): Promise<AgentBehindProxy> {
  const proxied = await startAgentProxy(argv, JOB, { upstream }, { maxCostUsd })
  closers.push(() => proxied.close())
  return proxied
}

async function served(server: Promise<ScriptedServer>): Promise<ScriptedServer> {
  const started = await server
  closers.push(() => started.close())
  return started
}

/** One request to the proxy with the agent's placeholder key; the status and the body as the CLI reads them. */
async function ask(
  proxied: AgentBehindProxy,
  path: string,
  body?: unknown,
  method = body === undefined ? 'GET' : 'POST'
): Promise<{ status: number; text: string }> {
  const key = proxied.proxy.placeholderKey
  const auth: Record<string, string> =
    proxied.wire === 'anthropic-messages'
      ? { 'x-api-key': key }
      : proxied.wire === 'gemini'
        ? { 'x-goog-api-key': key }
        : { authorization: `Bearer ${key}` }
  const response = await fetch(`${proxied.proxy.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...auth },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, text: await response.text().catch(() => '') }
}

const message = (model: string, maxTokens: number, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: maxTokens,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra
})

/** Resolves once `condition` holds, checking as the event loop turns (never a fixed wait). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise(resolve => setImmediate(resolve))
}

describe('the proxy forwards only what its meter can price', () => {
  it('refuses a message batch and an upload, names them, and sends neither up; the calls claude makes still pass', async () => {
    const server = await served(
      startAnthropicServer({ script: [text('ok', { usage: { input: 10, output: 5 } })] })
    )
    const proxied = await behind(['claude', '-p'], server.url)
    const batch = await ask(proxied, '/v1/messages/batches', {
      requests: [{ custom_id: 'a', params: message('claude-sonnet-4-5', 64000) }]
    })
    expect(batch.status).toBe(403)
    expect(batch.text).toMatch(/does not forward POST \/v1\/messages\/batches/)
    expect((await ask(proxied, '/v1/files', { file: 'x' })).status).toBe(403)
    expect(server.requests).toEqual([])
    expect(proxied.proxy.refusedRequests).toEqual(['POST /v1/messages/batches', 'POST /v1/files'])
    expect(proxied.warnings()).toEqual([
      expect.stringMatching(
        /^the model proxy refused the agent POST \/v1\/messages\/batches: .*billed later/
      ),
      expect.stringMatching(/^the model proxy refused the agent POST \/v1\/files: /)
    ])
    // What Claude Code calls: the model (streamed or not, with ?beta=true), and the free count and list.
    expect((await ask(proxied, '/v1/messages?beta=true', message('claude-sonnet-4-5', 100))).status).toBe(200)
    expect((await ask(proxied, '/v1/messages/count_tokens', message('claude-sonnet-4-5', 1))).status).toBe(
      200
    )
    expect((await ask(proxied, '/v1/models')).status).toBe(200)
    expect(server.requests.map(r => `${r.method} ${r.url}`)).toEqual([
      'POST /v1/messages?beta=true',
      'POST /v1/messages/count_tokens',
      'GET /v1/models'
    ])
  })

  it('refuses an OpenAI Responses background job (and fetching one), and forwards a plain response', async () => {
    const server = await served(
      startResponsesServer({ script: [text('ok', { usage: { input: 10, output: 5 } })] })
    )
    const proxied = await behind(['codex', 'exec', '-m', 'gpt-5.5', '-'], server.url)
    const background = await ask(proxied, '/v1/responses', {
      model: 'gpt-5.5',
      background: true,
      input: [{ role: 'user', content: 'hi' }]
    })
    expect(background.status).toBe(403)
    expect(background.text).toMatch(/background/)
    expect((await ask(proxied, '/v1/responses/resp_123')).status).toBe(403)
    expect(server.requests).toEqual([])
    expect(proxied.proxy.refusedRequests).toEqual([
      'POST /v1/responses (background: true)',
      'GET /v1/responses/resp_123'
    ])
    const plain = await ask(proxied, '/v1/responses', {
      model: 'gpt-5.5',
      stream: true,
      input: [{ role: 'user', content: 'hi' }]
    })
    expect(plain.status).toBe(200)
    expect(proxied.proxy.requests.at(-1)?.costUsd).toBeGreaterThan(0)
  })

  it("meters a Gemini stream asked without alt=sse: the JSON array's usage is read, not taken for $0", async () => {
    const chunk = (text: string, usage?: Record<string, number>) => ({
      candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }],
      ...(usage ? { usageMetadata: usage } : {}),
      modelVersion: 'gemini-2.5-flash'
    })
    const upstream = http.createServer((request, response) =>
      request.resume().on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' })
        response.end(
          JSON.stringify([
            chunk('Hello'),
            chunk(' there.', { promptTokenCount: 100_000, candidatesTokenCount: 2000 })
          ])
        )
      })
    )
    await new Promise<void>(resolve => upstream.listen(0, '127.0.0.1', resolve))
    closers.push(() => new Promise(resolve => upstream.close(resolve)))
    const proxied = await behind(
      ['gemini', '-y'],
      `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
    )
    proxied.meter.beginRun()
    const answer = await ask(proxied, '/v1beta/models/gemini-2.5-flash:streamGenerateContent', {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }]
    })
    expect(answer.status).toBe(200)
    const run = proxied.meter.endRun()
    // $0.30 and $2.50 a million.
    expect(run.cost_usd).toBeCloseTo((100_000 * 0.3 + 2000 * 2.5) / 1e6, 10)
    expect(run.cost_source).toBe('metered')
  })
})

describe('a model the price table does not know', () => {
  it("is charged at its vendor's top price, said once, and the cap still holds", async () => {
    const server = await served(
      startAnthropicServer({ script: () => text('ok', { usage: { input: 1000, output: 100 } }) })
    )
    const proxied = await behind(['claude', '-p'], server.url, 0.05)
    const guard = new LoopGuard({ clock: systemClock, meter: proxied.meter, maxCostUsd: 0.05 })
    closers.push(async () => guard.dispose())
    guard.watchCost(true)
    proxied.meter.beginRun()
    for (const n of [1, 2]) {
      const answer = await ask(proxied, '/v1/messages', message('claude-unlisted-9', 100))
      expect(answer.status).toBe(200)
      // Anthropic's highest rates in the table (claude-opus-4-1's): $15 in, $75 out a million.
      expect(proxied.proxy.requests.at(-1)?.costUsd).toBeCloseTo((1000 * 15 + 100 * 75) / 1e6, 10)
      expect(proxied.meter.runningUsd()).toBeCloseTo((n * (1000 * 15 + 100 * 75)) / 1e6, 10)
    }
    expect(proxied.warnings()).toEqual([
      expect.stringMatching(/claude-unlisted-9 has no price in the table: .*highest Anthropic price/)
    ])
    // $0.045 spent; the third request's worst case (100 tokens out at $75) does not fit in the $0.005 left.
    const third = await ask(proxied, '/v1/messages', message('claude-unlisted-9', 100))
    expect(third.status).toBe(402)
    expect(third.text).toMatch(/budget/)
    expect(server.requests).toHaveLength(2)
    expect(guard.trip?.cause).toBe('budget_exhausted')
    expect(proxied.meter.endRun().cost_source).toBe('metered')
  })
})

describe('every request is pre-authorised at its worst case', () => {
  it("eight concurrent non-streamed requests against a $1 cap spend at most one request's worst case over it", async () => {
    // Each answer costs about its worst case: 20,000 tokens out of claude-sonnet-4-5 ($15 a million), $0.30.
    // The answers are held a moment so that all eight are asked before any is answered.
    const server = await served(
      startAnthropicServer({
        script: () => text('ok', { usage: { input: 50, output: 20_000 }, delayMs: 300 })
      })
    )
    const proxied = await behind(['claude', '-p'], server.url, 1)
    const guard = new LoopGuard({ clock: systemClock, meter: proxied.meter, maxCostUsd: 1 })
    closers.push(async () => guard.dispose())
    guard.watchCost(true)
    proxied.meter.beginRun()
    const body = message('claude-sonnet-4-5', 20_000, { stream: false })
    const answers = await Promise.all(Array.from({ length: 8 }, () => ask(proxied, '/v1/messages', body)))
    const spent = proxied.meter.spentUsd() + proxied.meter.runningUsd()
    // The worst case as the proxy reckons it: the body's bytes over 3 as input, max_tokens as output.
    const worst = priceFromTable({
      model: 'claude-sonnet-4-5',
      input: Math.ceil(JSON.stringify(body).length / 3),
      output: 20_000,
      cache_read: 0,
      cache_write: 0
    })!
    expect(spent).toBeLessThanOrEqual(1 + worst)
    expect(server.requests.length).toBeLessThan(8)
    const refused = answers.filter(a => a.status === 402)
    expect(refused.length).toBeGreaterThan(0)
    expect(refused[0].text).toMatch(/budget/)
    expect(guard.trip?.cause).toBe('budget_exhausted')
  }, 30_000)

  it('cuts a non-streamed request still in flight when another crosses the cap', async () => {
    // The slow one waits a minute upstream; the other reports far more input than its body could hold.
    const server = await served(
      startAnthropicServer({
        script: request =>
          request.prompt === 'slow'
            ? text('late', { delayMs: 60_000 })
            : text('big', { usage: { input: 400_000, output: 10 } })
      })
    )
    const proxied = await behind(['claude', '-p'], server.url, 1)
    proxied.meter.beginRun()
    const slow = ask(proxied, '/v1/messages', {
      model: 'claude-sonnet-4-5',
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'slow' }]
    })
    await until(() => server.requests.length === 1)
    expect((await ask(proxied, '/v1/messages', message('claude-sonnet-4-5', 100))).status).toBe(200)
    const cut = await slow
    expect(cut.status).toBe(402)
    expect(proxied.proxy.requests[0]).toMatchObject({ cut: true })
  }, 30_000)
})

/** A model server answering every request with `answer` as JSON; what it was sent, parsed. */
async function answering(answer: unknown): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = []
  const upstream = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const raw = Buffer.concat(chunks)
      try {
        bodies.push(JSON.parse(raw.toString() || 'null'))
      } catch {
        bodies.push({ unreadable: raw.length, encoding: request.headers['content-encoding'] })
      }
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify(answer))
    })
  })
  await new Promise<void>(resolve => upstream.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise(resolve => upstream.close(resolve)))
  return { url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, bodies }
}

const responsesAnswer = (output: unknown[] = []) => ({
  object: 'response',
  model: 'gpt-5.5',
  output,
  usage: { input_tokens: 1000, output_tokens: 100, input_tokens_details: { cached_tokens: 0 } }
})

describe('a request that names no output limit (#25)', () => {
  it('goes up with the limit it was reserved at, on every wire (codex names none: the API would allow 128K)', async () => {
    const cases: Array<
      [string[], string, Record<string, unknown>, (body: Record<string, unknown>) => unknown]
    > = [
      [
        ['codex', 'exec', '-m', 'gpt-5.5', '-'],
        '/v1/responses',
        { model: 'gpt-5.5', input: 'hi', store: false },
        b => b.max_output_tokens
      ],
      [['claude', '-p'], '/v1/messages', { model: 'claude-sonnet-4-5', messages: [] }, b => b.max_tokens],
      [
        ['opencode', 'run', '-m', 'openai/gpt-5.5'],
        '/v1/chat/completions',
        { model: 'gpt-5.5', messages: [], max_tokens: 0 },
        b => [b.max_completion_tokens, b.max_tokens]
      ],
      [
        ['gemini', '-y'],
        '/v1beta/models/gemini-2.5-pro:generateContent',
        { contents: [], generationConfig: { temperature: 0 } },
        b => b.generationConfig
      ]
    ]
    for (const [argv, path, body, limitOf] of cases) {
      const upstream = await answering({})
      const proxied = await behind(argv, upstream.url, 100)
      await ask(proxied, path, body)
      const sent = upstream.bodies[0] as Record<string, unknown>
      const expected =
        argv[0] === 'opencode'
          ? [32_000, undefined]
          : argv[0] === 'gemini'
            ? { temperature: 0, maxOutputTokens: 32_000 }
            : 32_000
      expect({ argv, limit: limitOf(sent) }).toEqual({ argv, limit: expected })
      expect(proxied.proxy.requests[0].reservedUsd).toBeGreaterThan(0)
    }
  })

  it('goes up plain when the agent compressed it, its encoding dropped with the rewrite', async () => {
    const upstream = await answering(responsesAnswer())
    const proxied = await behind(['codex', 'exec', '-m', 'gpt-5.5', '-'], upstream.url, 100)
    const response = await fetch(`${proxied.proxy.url}/v1/responses`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        authorization: `Bearer ${proxied.proxy.placeholderKey}`
      },
      body: gzipSync(JSON.stringify({ model: 'gpt-5.5', input: 'hi' }))
    })
    expect(response.status).toBe(200)
    expect(upstream.bodies).toEqual([{ model: 'gpt-5.5', input: 'hi', max_output_tokens: 32_000 }])
  })

  it('goes up untouched when it names its own', async () => {
    const upstream = await answering(responsesAnswer())
    const proxied = await behind(['codex', 'exec', '-m', 'gpt-5.5', '-'], upstream.url, 100)
    await ask(proxied, '/v1/responses', { model: 'gpt-5.5', input: 'hi', max_output_tokens: 77 })
    expect(upstream.bodies).toEqual([{ model: 'gpt-5.5', input: 'hi', max_output_tokens: 77 }])
  })
})

describe('input the body only names (#25, #35)', () => {
  it('refuses previous_response_id, conversation and a stored prompt, and forwards what codex sends', async () => {
    const upstream = await answering(responsesAnswer())
    const proxied = await behind(['codex', 'exec', '-m', 'gpt-5.5', '-'], upstream.url, 100)
    for (const extra of [
      { previous_response_id: 'resp_123' },
      { conversation: 'conv_123' },
      { prompt: { id: 'pmpt_123' } }
    ]) {
      const answer = await ask(proxied, '/v1/responses', { model: 'gpt-5.5', input: 'go on', ...extra })
      expect(answer.status).toBe(403)
      expect(answer.text).toMatch(/input the body does not hold/)
    }
    expect(upstream.bodies).toEqual([])
    expect(proxied.proxy.refusedRequests).toEqual([
      'POST /v1/responses (previous_response_id)',
      'POST /v1/responses (conversation)',
      'POST /v1/responses (prompt)'
    ])
    // codex's own request (codex-rs ResponsesApiRequest): stateless, the whole input in the body.
    const codex = {
      model: 'gpt-5.5',
      instructions: 'You are codex.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      tools: [{ type: 'function', name: 'exec_command', parameters: {} }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { effort: 'medium' },
      store: false,
      stream: false,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'thread-1'
    }
    expect((await ask(proxied, '/v1/responses', codex)).status).toBe(200)
    expect(upstream.bodies).toHaveLength(1)
  })

  it('refuses a document by URL: eight at once against a $1 cap all stay home, though each would bill $0.90', async () => {
    const documents = await serving('x'.repeat(1_200_000))
    const server = await served(
      startAnthropicServer({ script: () => text('Read.', { billAsVendor: true, usage: { output: 100 } }) })
    )
    const body = message('claude-sonnet-4-5', 100, {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'document', source: { type: 'url', url: `${documents}/report.pdf` } },
            { type: 'text', text: 'Summarise it.' }
          ]
        }
      ]
    })
    // What the vendor bills it, asked directly: the 1.2 MB fetched is 300,000 tokens of input.
    await fetch(`${server.url}/v1/messages`, { method: 'POST', body: JSON.stringify(body) })
    expect(server.requests[0].billed?.input).toBeGreaterThan(300_000)
    const proxied = await behind(['claude', '-p'], server.url, 1)
    const answers = await Promise.all(Array.from({ length: 8 }, () => ask(proxied, '/v1/messages', body)))
    expect(answers.map(a => a.status)).toEqual(Array(8).fill(403))
    expect(answers[0].text).toMatch(/document source: url.*input the body does not hold/)
    expect(server.requests).toHaveLength(1)
    expect(proxied.proxy.refusedRequests).toEqual(['POST /v1/messages (document source: url)'])
    expect(proxied.warnings()).toEqual([
      expect.stringMatching(
        /^the model proxy refused the agent POST \/v1\/messages \(document source: url\): /
      )
    ])
  })

  it('refuses the server-run tools whose results the vendor bills as input: web search, web fetch', async () => {
    const upstream = await answering({})
    const claude = await behind(['claude', '-p'], upstream.url, 100)
    for (const tool of [
      { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
      { type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 5 }
    ])
      expect(
        (await ask(claude, '/v1/messages', message('claude-sonnet-4-5', 100, { tools: [tool] }))).status
      ).toBe(403)
    const codex = await behind(['codex', 'exec', '-m', 'gpt-5.5', '-'], upstream.url, 100)
    const search = { model: 'gpt-5.5', input: 'find it', tools: [{ type: 'web_search' }], max_tool_calls: 6 }
    expect((await ask(codex, '/v1/responses', search)).status).toBe(403)
    expect(upstream.bodies).toEqual([])
    expect([...claude.proxy.refusedRequests, ...codex.proxy.refusedRequests]).toEqual([
      'POST /v1/messages (tools: web_search_20250305)',
      'POST /v1/messages (tools: web_fetch_20250910)',
      'POST /v1/responses (tools: web_search)'
    ])
  })
})

/** A loopback server answering every GET with `content` (a document the vendor would fetch); its URL. */
async function serving(content: string): Promise<string> {
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/pdf' })
    response.end(content)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise(resolve => server.close(resolve)))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** What the vendor bills at claude-sonnet-4-5's list prices, per million: written here, not read from the table. */
const SONNET_BILL = { input: 3, cacheWrite: 3.75, cacheWrite1h: 6, cacheRead: 0.3, output: 15 }
/** Sonnet 4.5 bills a prompt (its cache reads and writes counted) over 200K tokens whole at these (1M beta). */
const SONNET_LONG_BILL = { input: 6, cacheWrite: 7.5, cacheWrite1h: 12, cacheRead: 0.6, output: 22.5 }
const billedUsd = (server: ScriptedServer): number =>
  server.requests.reduce((sum, { billed }) => {
    if (!billed) return sum
    const prompt = billed.input + billed.cacheWrite + billed.cacheWrite1h + billed.cacheRead
    const { input, cacheWrite, cacheWrite1h, cacheRead, output } =
      prompt > 200_000 ? SONNET_LONG_BILL : SONNET_BILL
    return (
      sum +
      (billed.input * input +
        billed.cacheWrite * cacheWrite +
        billed.cacheWrite1h * cacheWrite1h +
        billed.cacheRead * cacheRead +
        billed.output * output) /
        1e6
    )
  }, 0)

/**
 * Eight Sonnet 4.5 requests at once with `system` as their system prompt, against a cap of `capUsd`, to a stand-in
 * that bills as the vendor does (each answer held 300 ms, so they overlap): what went up and what came back.
 */
async function eightAtOnce(capUsd: number, system: Record<string, unknown>) {
  const server = await served(
    startAnthropicServer({
      script: () => text('ok', { billAsVendor: true, usage: { output: 100 }, delayMs: 300 })
    })
  )
  const proxied = await behind(['claude', '-p'], server.url, capUsd)
  const guard = new LoopGuard({ clock: systemClock, meter: proxied.meter, maxCostUsd: capUsd })
  closers.push(async () => guard.dispose())
  guard.watchCost(true)
  proxied.meter.beginRun()
  const body = message('claude-sonnet-4-5', 1000, { system: [system] })
  const answers = await Promise.all(Array.from({ length: 8 }, () => ask(proxied, '/v1/messages', body)))
  return { server, proxied, guard, answers, forwarded: server.requests.filter(r => r.billed) }
}

describe('1-hour cache writes (#35)', () => {
  it('eight at once, each writing 44,000 tokens for an hour, against a $1 cap: the upstream bills under the cap', async () => {
    // The stand-in bills as the vendor does: the 177 KB system prompt is written to the 1-hour cache, $0.27.
    // Reserved at a 5-minute write ($0.24) four would go up at once and bill $1.07; at an hour's, $0.38 each.
    const { server, proxied, guard, answers, forwarded } = await eightAtOnce(1, {
      type: 'text',
      text: 'x'.repeat(177_000),
      cache_control: { type: 'ephemeral', ttl: '1h' }
    })
    expect(forwarded.length).toBeGreaterThan(1)
    expect(forwarded[0].billed).toMatchObject({ cacheWrite: 0, cacheWrite1h: expect.any(Number) })
    expect(forwarded[0].billed!.cacheWrite1h).toBeGreaterThan(44_000)
    expect(billedUsd(server)).toBeLessThanOrEqual(1)
    expect(answers.filter(a => a.status === 402).length).toBeGreaterThan(0)
    expect(guard.trip?.cause).toBe('budget_exhausted')
    // Each answer is metered as the upstream billed it: the hour's writes at 2× input.
    const metered = proxied.meter.endRun()
    expect(metered.cost_usd).toBeCloseTo(billedUsd(server), 10)
    expect(metered.requests?.find(r => r.status === 200)).toMatchObject({
      cache_write: forwarded[0].billed!.cacheWrite1h,
      cache_write_1h: forwarded[0].billed!.cacheWrite1h
    })
  }, 30_000)
})

describe('a prompt over the long-context threshold (#35)', () => {
  it('eight at once, each writing 220,000 tokens, against a $5 cap: reserved and metered at the long rates, the upstream bills under the cap', async () => {
    // The stand-in bills the 880 KB system prompt as a 5-minute write of 220K tokens: over 200K, so the whole
    // request at $7.50 a million, $1.65. Reserved at the base rates ($1.12) four would go up at once and bill $6.60.
    const { server, proxied, answers, forwarded } = await eightAtOnce(5, {
      type: 'text',
      text: 'x'.repeat(880_000),
      cache_control: { type: 'ephemeral' }
    })
    expect(forwarded.length).toBeGreaterThan(1)
    expect(forwarded[0].billed!.cacheWrite).toBeGreaterThan(200_000)
    expect(billedUsd(server)).toBeLessThanOrEqual(5)
    expect(answers.filter(a => a.status === 402).length).toBeGreaterThan(0)
    // Each answer is metered as the upstream billed it: the whole request at the long rates.
    const metered = proxied.meter.endRun()
    expect(metered.cost_usd).toBeCloseTo(billedUsd(server), 10)
    expect(metered.requests?.find(r => r.status === 200)?.cost_usd).toBeCloseTo(
      (forwarded[0].billed!.input * 6 + forwarded[0].billed!.cacheWrite * 7.5 + 100 * 22.5) / 1e6,
      10
    )
  }, 30_000)
})

describe('usage that cannot be true (#35)', () => {
  it("is the upstream's fault: the request is charged its worst case and said, never paid back", async () => {
    const upstream = await answering({
      type: 'message',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'ok' }],
      usage: { input_tokens: -400_000, output_tokens: 10 }
    })
    const proxied = await behind(['claude', '-p'], upstream.url, 5)
    proxied.meter.beginRun()
    expect((await ask(proxied, '/v1/messages', message('claude-sonnet-4-5', 100))).status).toBe(200)
    const [request] = proxied.proxy.requests
    expect(request).toMatchObject({
      worstCase: true,
      impossibleUsage: 'input_tokens -400000',
      error: 'the upstream reported usage that cannot be true (input_tokens -400000)'
    })
    expect(request.costUsd).toBe(request.reservedUsd)
    expect(request.costUsd).toBeGreaterThan(0)
    expect(proxied.warnings()).toEqual([
      expect.stringMatching(/^the model upstream reported usage that cannot be true \(input_tokens -400000\)/)
    ])
    expect(proxied.meter.endRun()).toMatchObject({
      cost_source: 'unknown',
      cost_usd: request.costUsd,
      requests: [expect.objectContaining({ worst_case: true, impossible_usage: 'input_tokens -400000' })]
    })
  })
})

/** A PDF of `pages` blank pages: a few kilobytes that the vendor bills as `pages` page images. */
const blankPdf = (pages: number): string =>
  Buffer.from(
    `%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Count ${pages}>> endobj\n` +
      Array.from({ length: pages }, (_, i) => `${i + 3} 0 obj <</Type /Page /Parent 2 0 R>> endobj\n`).join(
        ''
      ) +
      '%%EOF\n'
  ).toString('base64')

describe('media, billed by what it decodes to (#35, attacks)', () => {
  it('eight requests at once, each with a 6 KB PDF of 100 blank pages, against a $1 cap: none goes up', async () => {
    const server = await served(
      startAnthropicServer({ script: () => text('Read.', { billAsVendor: true, usage: { output: 100 } }) })
    )
    const body = message('claude-sonnet-4-5', 100, {
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: blankPdf(100) }
            },
            { type: 'text', text: 'Summarise it.' }
          ]
        }
      ]
    })
    // What the vendor bills it, asked directly: 160,000 tokens of page images, $0.48; reserved at its bytes
    // (2,700 tokens, $0.01) eight would go up at once and bill $3.85.
    await fetch(`${server.url}/v1/messages`, { method: 'POST', body: JSON.stringify(body) })
    expect(server.requests[0].billed?.input).toBeGreaterThan(100 * PDF_PAGE_TOKENS)
    const proxied = await behind(['claude', '-p'], server.url, 1)
    proxied.meter.beginRun()
    const answers = await Promise.all(Array.from({ length: 8 }, () => ask(proxied, '/v1/messages', body)))
    expect(answers.map(a => a.status)).toEqual(Array(8).fill(402))
    expect(answers[0].text).toMatch(/carries document content: reserved at a whole input window/)
    expect(server.requests).toHaveLength(1)
    expect(billedUsd(server)).toBeGreaterThan(0.45)
  })
})

/** A model server whose streams start and never end: it bills each the whole answer once the client leaves. */
async function abandonedStreams(): Promise<{ url: string; billedUsd: () => number; reached: () => number }> {
  let usd = 0
  let reached = 0
  const upstream = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      reached++
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { max_tokens: number }
      // As a gateway (or Bedrock) does: the model finishes the answer the client left, and it is billed whole.
      response.on('close', () => {
        usd += (50 * SONNET_BILL.input + body.max_tokens * SONNET_BILL.output) / 1e6
      })
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write(
        `event: message_start\ndata: ${JSON.stringify({
          type: 'message_start',
          message: {
            type: 'message',
            model: 'claude-sonnet-4-5',
            usage: { input_tokens: 50, output_tokens: 1 }
          }
        })}\n\n`
      )
    })
  })
  await new Promise<void>(resolve => upstream.listen(0, '127.0.0.1', resolve))
  closers.push(
    () =>
      new Promise(resolve => {
        upstream.closeAllConnections()
        upstream.close(resolve)
      })
  )
  return {
    url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    billedUsd: () => usd,
    reached: () => reached
  }
}

describe('an answer that did not end whole is charged its worst case (#35, attacks)', () => {
  it('an agent that reads the start of each stream and hangs up cannot run a $1 cap past what the upstream bills', async () => {
    const upstream = await abandonedStreams()
    const proxied = await behind(['claude', '-p'], upstream.url, 1)
    proxied.meter.beginRun()
    const statuses: number[] = []
    // Each answer's start says 50 tokens in, 1 out; the upstream bills 32,000 out ($0.48) once it is left.
    for (let tries = 0; tries < 10 && !statuses.includes(402); tries++) {
      const leave = new AbortController()
      const response = await fetch(`${proxied.proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': proxied.proxy.placeholderKey },
        body: JSON.stringify(message('claude-sonnet-4-5', 32_000, { stream: true })),
        signal: leave.signal
      })
      statuses.push(response.status)
      if (response.status === 200) {
        await response.body?.getReader().read()
        leave.abort()
        await until(
          () => proxied.proxy.requests.length === statuses.length && !!proxied.proxy.requests.at(-1)?.error
        )
      }
    }
    expect(statuses).toEqual([200, 200, 402])
    await until(() => upstream.billedUsd() > 0.9)
    expect(upstream.billedUsd()).toBeLessThanOrEqual(1)
    expect(proxied.proxy.requests.slice(0, 2)).toEqual([
      expect.objectContaining({ worstCase: true, error: 'the agent closed the connection' }),
      expect.objectContaining({ worstCase: true, error: 'the agent closed the connection' })
    ])
    expect(proxied.proxy.requests[0].costUsd).toBe(proxied.proxy.requests[0].reservedUsd)
  })

  it('a connection the upstream drops after reading the body (it may bill it) is charged its worst case; one it never reached is not', async () => {
    let reached = 0
    const upstream = http.createServer((request, response) => {
      request.resume()
      request.on('end', () => {
        reached++
        response.socket?.destroy()
      })
    })
    await new Promise<void>(resolve => upstream.listen(0, '127.0.0.1', resolve))
    closers.push(() => new Promise(resolve => upstream.close(resolve)))
    const proxied = await behind(
      ['claude', '-p'],
      `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      1
    )
    proxied.meter.beginRun()
    const statuses: number[] = []
    // The CLI retries a dropped connection: each retry may be billed again.
    for (let tries = 0; tries < 10 && !statuses.includes(402); tries++)
      statuses.push((await ask(proxied, '/v1/messages', message('claude-sonnet-4-5', 32_000))).status)
    expect(statuses).toEqual([502, 502, 402])
    expect(reached).toBe(2)
    expect(proxied.proxy.requests[0]).toMatchObject({ status: 0, worstCase: true })
    // Nothing listening: the body never reached an upstream, which bills nothing.
    const closed = await behind(['claude', '-p'], 'http://127.0.0.1:9', 1)
    expect((await ask(closed, '/v1/messages', message('claude-sonnet-4-5', 32_000))).status).toBe(502)
    expect(closed.proxy.requests[0].worstCase).toBeUndefined()
    expect(closed.proxy.requests[0].costUsd).toBeUndefined()
  })
})

describe("Google's system parameters (#35, attacks)", () => {
  /** A Gemini stand-in that bills the prompt (4 bytes a token) and honours a response field mask, as Google's API does. */
  async function maskedGemini(): Promise<{ url: string; billedUsd: () => number; types: string[] }> {
    let usd = 0
    const types: string[] = []
    const upstream = http.createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        types.push(String(request.headers['content-type']))
        const prompt = Math.ceil(Buffer.concat(chunks).length / 4)
        // gemini-2.5-pro: $1.25 input, $10 output a million tokens.
        usd += (prompt * 1.25 + 100 * 10) / 1e6
        const usage = { promptTokenCount: prompt, candidatesTokenCount: 100, totalTokenCount: prompt + 100 }
        const mask = request.headers['x-goog-fieldmask']
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(
          JSON.stringify({
            candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] } }],
            usageMetadata: mask ? { candidatesTokenCount: 100 } : usage,
            modelVersion: 'gemini-2.5-pro'
          })
        )
      })
    })
    await new Promise<void>(resolve => upstream.listen(0, '127.0.0.1', resolve))
    closers.push(() => new Promise(resolve => upstream.close(resolve)))
    return {
      url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      billedUsd: () => usd,
      types
    }
  }
  const call = (proxied: AgentBehindProxy, query: string, headers: Record<string, string>) =>
    fetch(`${proxied.proxy.url}/v1beta/models/gemini-2.5-pro:generateContent${query}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-goog-api-key': proxied.proxy.placeholderKey,
        ...headers
      },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'x'.repeat(300_000) }] }],
        generationConfig: { maxOutputTokens: 100 }
      })
    })

  it('a field mask that trims the prompt count from the answer cannot run a $1 cap past what the upstream bills', async () => {
    const upstream = await maskedGemini()
    const proxied = await behind(['gemini', '-y'], upstream.url, 1)
    proxied.meter.beginRun()
    // Each prompt is 75,000 tokens ($0.09); the trimmed answer counts only its 100 tokens out ($0.001).
    const mask = { 'x-goog-fieldmask': 'candidates,usageMetadata.candidatesTokenCount' }
    const statuses: number[] = []
    for (let tries = 0; tries < 20 && !statuses.includes(402); tries++)
      statuses.push((await call(proxied, '', mask)).status)
    expect(statuses.at(-1)).toBe(402)
    expect(upstream.billedUsd()).toBeLessThanOrEqual(1)
    expect(proxied.proxy.requests[0]).toMatchObject({ worstCase: true })
  })

  it('refuses the query parameters it does not read ($ct, fields, alt=proto), and sends the body up as JSON', async () => {
    const upstream = await maskedGemini()
    const proxied = await behind(['gemini', '-y'], upstream.url, 100)
    for (const query of ['?fields=candidates', '?%24ct=application%2Fjson%2Bprotobuf', '?alt=proto'])
      expect((await call(proxied, query, {})).status).toBe(403)
    expect(upstream.types).toEqual([])
    expect(proxied.proxy.refusedRequests).toEqual([
      'POST /v1beta/models/gemini-2.5-pro:generateContent (query: fields)',
      'POST /v1beta/models/gemini-2.5-pro:generateContent (query: $ct)',
      'POST /v1beta/models/gemini-2.5-pro:generateContent (query: alt)'
    ])
    // Google reads a body by its type (application/json+protobuf is positional): it goes up as what was read.
    expect((await call(proxied, '?alt=sse', { 'content-type': 'application/json+protobuf' })).status).toBe(
      200
    )
    expect(upstream.types).toEqual(['application/json'])
  })
})
