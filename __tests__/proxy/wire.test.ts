// The proxy's decisions before anything goes up (#25): which endpoints each wire forwards, what a request may
// cost at worst as read from its body, and which bodies it cannot read.
import { gzipSync } from 'node:zlib'
import {
  bodyRefusal,
  decodeBody,
  DEFAULT_MAX_OUTPUT_TOKENS,
  endpointOf,
  withOutputLimit,
  worstCaseUsage,
  worstPerUseUsd,
  WireUsage,
  type ModelWire
} from '../../src/proxy/wire.js'

const cases: [ModelWire, string, string, 'model' | 'free' | 'refused'][] = [
  ['anthropic-messages', 'POST', '/v1/messages', 'model'],
  ['anthropic-messages', 'POST', '/v1/messages/count_tokens', 'free'],
  ['anthropic-messages', 'GET', '/v1/models', 'free'],
  ['anthropic-messages', 'GET', '/v1/models/claude-sonnet-4-5', 'free'],
  ['anthropic-messages', 'HEAD', '/', 'free'],
  ['anthropic-messages', 'POST', '/v1/messages/batches', 'refused'],
  ['anthropic-messages', 'GET', '/v1/messages/batches/msgbatch_1/results', 'refused'],
  ['anthropic-messages', 'POST', '/v1/files', 'refused'],
  ['anthropic-messages', 'POST', '/v1/complete', 'refused'],
  ['anthropic-messages', 'POST', '/v1/messages/', 'refused'],
  ['anthropic-messages', 'POST', '/v1/messages%2Fbatches', 'refused'],
  ['anthropic-messages', 'GET', '/v1/messages', 'refused'],
  ['anthropic-messages', 'POST', '/v1/chat/completions', 'refused'],
  ['openai-responses', 'POST', '/v1/responses', 'model'],
  ['openai-responses', 'POST', '/v1/responses/input_tokens', 'free'],
  ['openai-responses', 'GET', '/v1/models', 'free'],
  ['openai-responses', 'GET', '/v1/responses/resp_1', 'refused'],
  ['openai-responses', 'POST', '/v1/responses/resp_1/cancel', 'refused'],
  ['openai-responses', 'POST', '/v1/responses/compact', 'refused'],
  ['openai-responses', 'POST', '/v1/batches', 'refused'],
  ['openai-responses', 'POST', '/v1/embeddings', 'refused'],
  ['openai-chat', 'POST', '/v1/chat/completions', 'model'],
  ['openai-chat', 'POST', '/v1/completions', 'refused'],
  ['openai-chat', 'POST', '/v1/images/generations', 'refused'],
  ['gemini', 'POST', '/v1beta/models/gemini-2.5-flash:streamGenerateContent', 'model'],
  ['gemini', 'POST', '/v1beta/models/gemini-2.5-flash:generateContent', 'model'],
  ['gemini', 'POST', '/v1/models/gemini-2.5-flash:generateContent', 'model'],
  ['gemini', 'POST', '/v1beta/models/gemini-2.5-flash:countTokens', 'free'],
  ['gemini', 'GET', '/v1beta/models', 'free'],
  ['gemini', 'POST', '/v1beta/models/gemini-2.5-flash:batchGenerateContent', 'refused'],
  ['gemini', 'POST', '/v1beta/models/gemini-2.5-flash:embedContent', 'refused'],
  ['gemini', 'POST', '/v1beta/cachedContents', 'refused'],
  ['gemini', 'POST', '/upload/v1beta/files', 'refused'],
  ['gemini', 'POST', '/v1beta/tunedModels/x:generateContent', 'refused']
]

it.each(cases)('%s: %s %s is %s', (wire, method, path, kind) => {
  expect(endpointOf(wire, method, path).kind).toBe(kind)
})

it('says why a batch is refused', () => {
  const batch = endpointOf('anthropic-messages', 'POST', '/v1/messages/batches')
  expect(batch).toEqual({ kind: 'refused', why: expect.stringMatching(/billed later, out of band/) })
})

it("reads each wire's output limit, times the choices asked for, and a default when none is named", () => {
  const worst = (wire: ModelWire, body: unknown) => worstCaseUsage(wire, body, 3000, 'gemini-2.5-flash')
  expect(worst('anthropic-messages', { model: 'claude-sonnet-4-5', max_tokens: 32_000 })).toEqual({
    input: 1000,
    output: 32_000,
    cache_read: 0,
    cache_write: 0,
    model: 'claude-sonnet-4-5'
  })
  expect(worst('openai-responses', { model: 'gpt-5.5', max_output_tokens: 500 }).output).toBe(500)
  expect(worst('openai-chat', { max_completion_tokens: 100, max_tokens: 9, n: 3 }).output).toBe(300)
  expect(worst('openai-chat', { max_tokens: 9 }).output).toBe(9)
  expect(worst('gemini', { generationConfig: { maxOutputTokens: 50, candidateCount: 2 } })).toMatchObject({
    output: 100,
    model: 'gemini-2.5-flash'
  })
  for (const body of [{}, { max_tokens: -1 }, { max_tokens: 'lots' }, undefined])
    expect(worst('anthropic-messages', body).output).toBe(DEFAULT_MAX_OUTPUT_TOKENS)
})

it('refuses a Responses background job and priority processing, and no other body', () => {
  expect(bodyRefusal('openai-responses', { background: true })?.name).toBe('background: true')
  expect(bodyRefusal('openai-responses', { background: false })).toBeUndefined()
  expect(bodyRefusal('anthropic-messages', { background: true })).toBeUndefined()
  expect(bodyRefusal('openai-chat', { service_tier: 'priority' })?.name).toBe('service_tier: priority')
  expect(bodyRefusal('openai-responses', { service_tier: 'flex' })).toBeUndefined()
})

it("refuses Anthropic's code execution tool (billed per container-hour), not its metered web search", () => {
  const tools = (type: string) => ({ tools: [{ type, name: 'x' }] })
  expect(bodyRefusal('anthropic-messages', tools('code_execution_20250825'))?.name).toBe(
    'tools: code_execution_20250825'
  )
  expect(bodyRefusal('anthropic-messages', tools('web_search_20250305'))).toBeUndefined()
  expect(bodyRefusal('anthropic-messages', tools('web_fetch_20250910'))).toBeUndefined()
})

it('decodes the request encodings it knows, and no other', () => {
  const body = Buffer.from('{"max_tokens":1}')
  expect(decodeBody(body, undefined)).toBe(body)
  expect(decodeBody(gzipSync(body), 'gzip')?.toString()).toBe(body.toString())
  expect(decodeBody(body, 'zstd')).toBeUndefined()
  expect(decodeBody(body, 'gzip')).toBeUndefined()
})

it("reads a whole body that is a JSON array of chunks (Gemini's stream without alt=sse)", () => {
  const meter = new WireUsage('gemini')
  expect(
    meter.read([
      { candidates: [] },
      { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 }, modelVersion: 'gemini-2.5-flash' }
    ])
  ).toBe(true)
  expect(meter.usage).toMatchObject({ input: 10, output: 5, model: 'gemini-2.5-flash' })
})

it("prices Anthropic's web searches beside the tokens, and reserves each search tool's max_uses", () => {
  const meter = new WireUsage('anthropic-messages')
  meter.read({ type: 'message_start', message: { usage: { input_tokens: 10, output_tokens: 1 } } })
  expect(meter.perUseUsd).toBe(0)
  expect(
    meter.read({
      type: 'message_delta',
      usage: { output_tokens: 5, server_tool_use: { web_search_requests: 3 } }
    })
  ).toBe(true)
  expect(meter.perUseUsd).toBeCloseTo(0.03, 10)
  const tools = [
    { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
    { type: 'web_search_20250305', name: 'web_search' },
    { name: 'Bash', input_schema: {} }
  ]
  expect(worstPerUseUsd('anthropic-messages', { tools })).toBeCloseTo(0.05 + 0.2, 10)
  expect(worstPerUseUsd('anthropic-messages', {})).toBe(0)
})

it('counts a streamed Responses web search call once, from its output item events and the final output', () => {
  const meter = new WireUsage('openai-responses')
  const item = { type: 'web_search_call', id: 'ws_1', status: 'in_progress' }
  expect(meter.read({ type: 'response.output_item.added', output_index: 0, item })).toBe(true)
  expect(meter.read({ type: 'response.output_item.done', output_index: 0, item })).toBe(false)
  expect(meter.perUseUsd).toBeCloseTo(0.025, 10)
  meter.read({
    type: 'response.completed',
    response: { output: [item, { type: 'web_search_call', id: 'ws_2' }], usage: { input_tokens: 1 } }
  })
  expect(meter.perUseUsd).toBeCloseTo(0.05, 10)
})

it('gives a body without a usable output limit the default, in the field its wire reads, and leaves the rest', () => {
  expect(withOutputLimit('openai-responses', { input: 'x', max_output_tokens: 10 })).toBeUndefined()
  expect(withOutputLimit('openai-responses', { input: 'x', max_output_tokens: -1 })).toEqual({
    input: 'x',
    max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS
  })
  expect(withOutputLimit('openai-chat', { model: 'llama-3', max_tokens: 'lots' })).toEqual({
    model: 'llama-3',
    max_tokens: DEFAULT_MAX_OUTPUT_TOKENS
  })
  expect(withOutputLimit('openai-chat', { model: 'o3' })).toEqual({
    model: 'o3',
    max_completion_tokens: DEFAULT_MAX_OUTPUT_TOKENS
  })
  expect(withOutputLimit('gemini', {})).toEqual({
    generationConfig: { maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS }
  })
  expect(withOutputLimit('anthropic-messages', 'not an object')).toBeUndefined()
})
