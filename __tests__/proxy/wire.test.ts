// The proxy's wire (#25): which endpoints each wire forwards, which bodies it can decode, and the usage it
// reads from each wire's answers, refusing figures that cannot be true (#35). What a request may cost before it
// goes up is preauth.test.ts's.
import { gzipSync } from 'node:zlib'
import { WireUsage } from '../../src/proxy/usage.js'
import { decodeBody, endpointOf, unknownQuery, type ModelWire } from '../../src/proxy/wire.js'

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

it("prices Anthropic's web searches beside the tokens, as the usage counts them", () => {
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
})

describe("Anthropic's cache writes by time to live (#35)", () => {
  it('reads the 1-hour writes from cache_creation, beside the total', () => {
    const meter = new WireUsage('anthropic-messages')
    meter.read({
      type: 'message_start',
      message: {
        model: 'claude-sonnet-4-5',
        usage: {
          input_tokens: 10,
          cache_creation_input_tokens: 5000,
          cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 4000 },
          cache_read_input_tokens: 0,
          output_tokens: 1
        }
      }
    })
    // A message_delta that leaves the cache out (or gives it null) changes nothing of it.
    meter.read({
      type: 'message_delta',
      usage: { output_tokens: 50, cache_creation_input_tokens: null, cache_creation: null }
    })
    expect(meter.usage).toEqual({
      model: 'claude-sonnet-4-5',
      input: 10,
      output: 50,
      cache_read: 0,
      cache_write: 5000,
      cache_write_1h: 4000
    })
    expect(meter.impossible).toBeUndefined()
  })

  it('counts writes the answer does not attribute at the longest TTL the request asked for', () => {
    const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 3000 }
    const asked = new WireUsage('anthropic-messages', undefined, true)
    asked.read({ type: 'message', usage })
    expect(asked.usage).toMatchObject({ cache_write: 3000, cache_write_1h: 3000 })
    const partly = new WireUsage('anthropic-messages', undefined, true)
    partly.read({
      type: 'message',
      usage: { ...usage, cache_creation: { ephemeral_5m_input_tokens: 1000 } }
    })
    expect(partly.usage).toMatchObject({ cache_write: 3000, cache_write_1h: 2000 })
    const notAsked = new WireUsage('anthropic-messages')
    notAsked.read({ type: 'message', usage })
    expect(notAsked.usage.cache_write_1h).toBeUndefined()
  })
})

describe("usage figures that cannot be true are the upstream's fault, never money back (#35)", () => {
  const impossible: Array<[ModelWire, unknown, string]> = [
    [
      'anthropic-messages',
      { type: 'message', usage: { input_tokens: -5000, output_tokens: 10 } },
      'input_tokens -5000'
    ],
    ['anthropic-messages', { type: 'message', usage: { input_tokens: 10.5 } }, 'input_tokens 10.5'],
    ['anthropic-messages', { type: 'message', usage: { input_tokens: '900' } }, 'input_tokens is a string'],
    [
      'anthropic-messages',
      { type: 'message', usage: { output_tokens: 1, cache_creation: { ephemeral_1h_input_tokens: -1 } } },
      'ephemeral_1h_input_tokens -1'
    ],
    [
      'anthropic-messages',
      {
        type: 'message',
        usage: { cache_creation_input_tokens: 10, cache_creation: { ephemeral_1h_input_tokens: 500 } }
      },
      'cache_creation (500) more than cache_creation_input_tokens (10)'
    ],
    [
      'anthropic-messages',
      { type: 'message', usage: { output_tokens: 1, server_tool_use: { web_search_requests: -3 } } },
      'web_search_requests -3'
    ],
    [
      'openai-responses',
      // As JSON.parse reads an overflowing figure.
      JSON.parse(
        '{"type":"response.completed","response":{"usage":{"input_tokens":1e400,"output_tokens":1}}}'
      ),
      'input_tokens Infinity'
    ],
    [
      'openai-responses',
      {
        type: 'response.completed',
        response: {
          usage: { input_tokens: 10, output_tokens: 1, input_tokens_details: { cached_tokens: 90 } }
        }
      },
      'cached_tokens (90) more than input_tokens (10)'
    ],
    ['openai-chat', { usage: { prompt_tokens: 10, completion_tokens: -1 } }, 'completion_tokens -1'],
    [
      'gemini',
      { usageMetadata: { promptTokenCount: 10, cachedContentTokenCount: 20, candidatesTokenCount: 1 } },
      'cachedContentTokenCount (20) more than promptTokenCount (10)'
    ],
    [
      'gemini',
      { usageMetadata: { promptTokenCount: 10, thoughtsTokenCount: true } },
      'thoughtsTokenCount is a boolean'
    ],
    [
      'gemini',
      { usageMetadata: { promptTokenCount: 900, totalTokenCount: 10 } },
      'totalTokenCount (10) less than promptTokenCount (900)'
    ]
  ]
  it.each(impossible)('%s: %j is refused (%s)', (wire, event, said) => {
    const meter = new WireUsage(wire)
    expect(meter.read(event)).toBe(false)
    expect(meter.impossible).toBe(said)
    expect(meter.usage).toMatchObject({ input: 0, output: 0, cache_read: 0, cache_write: 0 })
    expect(meter.perUseUsd).toBe(0)
  })

  it('keeps each figure at its highest: a later, smaller one gives nothing back', () => {
    const meter = new WireUsage('anthropic-messages')
    meter.read({ type: 'message_start', message: { usage: { input_tokens: 900, output_tokens: 40 } } })
    meter.read({ type: 'message_delta', usage: { input_tokens: 0, output_tokens: 2 } })
    expect(meter.usage).toMatchObject({ input: 900, output: 40 })
    expect(meter.impossible).toBeUndefined()
  })
})

describe('what an answer says it cost is read only when it counts both its input and its output (#35, attacks)', () => {
  // Google's response field mask (`fields`, X-Goog-FieldMask) or a trimming gateway can leave one count out.
  const partial: Array<[ModelWire, unknown[], boolean]> = [
    ['gemini', [{ usageMetadata: { candidatesTokenCount: 100 } }], false],
    ['gemini', [{ usageMetadata: { promptTokenCount: 9000 } }], false],
    ['gemini', [{ usageMetadata: { promptTokenCount: 9000, candidatesTokenCount: 100 } }], true],
    // An answer with no output leaves its count of 0 out; its total still counts it.
    ['gemini', [{ usageMetadata: { promptTokenCount: 9000, totalTokenCount: 9000 } }], true],
    ['anthropic-messages', [{ type: 'message_delta', usage: { output_tokens: 300 } }], false],
    [
      'anthropic-messages',
      [
        { type: 'message_start', message: { usage: { input_tokens: 900, output_tokens: 1 } } },
        { type: 'message_delta', usage: { output_tokens: 300 } }
      ],
      true
    ],
    ['openai-chat', [{ usage: { completion_tokens: 10 } }], false],
    ['openai-chat', [{ usage: { prompt_tokens: 10, completion_tokens: 10 } }], true],
    ['openai-responses', [{ type: 'response.completed', response: { usage: { output_tokens: 5 } } }], false]
  ]
  it.each(partial)('%s: %j is complete: %s', (wire, events, complete) => {
    const meter = new WireUsage(wire)
    for (const event of events) meter.read(event)
    expect(meter.seen).toBe(true)
    expect(meter.complete).toBe(complete)
  })

  it("counts what Gemini's total holds beyond the prompt as output, when the parts leave it out", () => {
    const meter = new WireUsage('gemini', 'gemini-2.5-pro')
    meter.read({ usageMetadata: { promptTokenCount: 1000, totalTokenCount: 33_000 } })
    expect(meter.usage).toMatchObject({ input: 1000, output: 32_000 })
    meter.read({ usageMetadata: { promptTokenCount: 1000, candidatesTokenCount: 10, totalTokenCount: 1010 } })
    expect(meter.usage).toMatchObject({ input: 1000, output: 32_000 })
  })
})

describe("a model call's query holds only what the proxy reads (#35, attacks)", () => {
  // Google's system parameters: $ct sets the body's type, fields trims the answer, alt=proto answers in binary.
  const queries: Array<[ModelWire, string, string | undefined]> = [
    ['anthropic-messages', 'beta=true', undefined],
    ['anthropic-messages', 'beta=true&x=1', 'x'],
    ['gemini', 'alt=sse', undefined],
    ['gemini', 'alt=json', undefined],
    ['gemini', 'alt=proto', 'alt'],
    ['gemini', '%24alt=sse', '$alt'],
    ['gemini', 'alt=sse&%24ct=application%2Fjson%2Bprotobuf', '$ct'],
    ['gemini', 'fields=candidates', 'fields'],
    ['openai-responses', '', undefined],
    ['openai-chat', 'api-version=1', 'api-version'],
    ['openai-chat', 'a%0A%3A%3Awarning%3A%3Ax=1', 'a parameter with other characters'],
    // The agent's names are never looked up on an object's prototype.
    ['gemini', 'constructor=1', 'constructor'],
    ['anthropic-messages', '__proto__=1', '__proto__'],
    ['openai-chat', 'toString=1', 'toString']
  ]
  it.each(queries)('%s ?%s: %s', (wire, query, unknown) => {
    expect(unknownQuery(wire, new URLSearchParams(query))).toBe(unknown)
  })
})
