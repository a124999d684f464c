// The proxy's pre-authorisation of a model call (#25, #35): the one dollar figure reserved before it goes up,
// read from its body — its bytes as input at the dearest kind the request lets the vendor bill (a 1-hour cache
// write when it asks for one), the vendor's own prompt, its output limit — and the one rule that refuses what
// the body only names (a document by URL, a stored file, a server-run tool), on each of the four wires.
import { priceFromTable } from '../../src/agents/prices.js'
import { preauthorize, type Preauthorization } from '../../src/proxy/preauth.js'
import type { ModelWire } from '../../src/proxy/wire.js'
import {
  BYTES_PER_INPUT_TOKEN,
  DEFAULT_MAX_OUTPUT_TOKENS,
  MAX_INPUT_TOKENS,
  VENDOR_PROMPT_TOKENS,
  withOutputLimit,
  worstCaseUsage
} from '../../src/proxy/worst-case.js'

const pre = (wire: ModelWire, body: Record<string, unknown>, pathModel?: string): Preauthorization =>
  preauthorize(wire, body, JSON.stringify(body).length, pathModel, priceFromTable)

const refusalOf = (
  wire: ModelWire,
  body: Record<string, unknown>,
  pathModel?: string
): string | undefined => {
  const result = pre(wire, body, pathModel)
  return result.kind === 'refused' ? result.name : undefined
}

const worstOf = (wire: ModelWire, body: Record<string, unknown>): number => {
  const result = pre(wire, body)
  if (result.kind === 'refused') throw new Error(`refused: ${result.name}`)
  return result.worstUsd
}

const GEMINI_PATH_MODEL = 'gemini-2.5-pro'
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

describe('the worst case: one dollar figure per request', () => {
  it("reads each wire's output limit, times the choices asked for, and a default when none is named", () => {
    const worst = (wire: ModelWire, body: unknown) => worstCaseUsage(wire, body, 3000, 'gemini-2.5-flash')
    expect(worst('anthropic-messages', { model: 'claude-sonnet-4-5', max_tokens: 32_000 })).toEqual({
      input: 1000 + VENDOR_PROMPT_TOKENS,
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

  it('reads a limit or a count named twice at its highest: whichever the API obeys, none prices it low', () => {
    const worst = (wire: ModelWire, body: unknown) => worstCaseUsage(wire, body, 3000, 'gemini-2.5-flash')
    expect(worst('openai-chat', { max_completion_tokens: 9, max_tokens: 100 }).output).toBe(100)
    // Gemini's API takes its fields in either spelling, and both at once.
    expect(worst('gemini', { generation_config: { max_output_tokens: 50, candidate_count: 4 } }).output).toBe(
      200
    )
    expect(
      worst('gemini', { generationConfig: { maxOutputTokens: 10, max_output_tokens: 90_000 } }).output
    ).toBe(90_000)
    expect(
      worst('gemini', {
        generationConfig: { maxOutputTokens: 10, candidateCount: 1 },
        generation_config: { candidate_count: 8 }
      }).output
    ).toBe(80)
    // No limit the meter can read, in any spelling: the proxy's own is written in every spelling the body uses.
    expect(
      withOutputLimit('gemini', {
        generationConfig: { maxOutputTokens: 10, max_output_tokens: 'lots' },
        generation_config: { temperature: 0 }
      })
    ).toEqual({
      generationConfig: { maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS },
      generation_config: {
        temperature: 0,
        maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
        max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS
      }
    })
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

  it("is the worst usage at the model's prices, with the body rewritten when the proxy wrote its limit in", () => {
    const body = { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] }
    const result = pre('anthropic-messages', body)
    if (result.kind !== 'authorised') throw new Error('refused')
    const sent = JSON.stringify({ ...body, max_tokens: DEFAULT_MAX_OUTPUT_TOKENS })
    expect(result.body?.toString()).toBe(sent)
    expect(result.worst).toEqual({
      model: 'claude-sonnet-4-5',
      input: Math.ceil(sent.length / BYTES_PER_INPUT_TOKEN) + VENDOR_PROMPT_TOKENS,
      output: DEFAULT_MAX_OUTPUT_TOKENS,
      cache_read: 0,
      cache_write: 0
    })
    expect(result.worstUsd).toBeCloseTo(priceFromTable(result.worst)!, 12)
    expect(result.hourCache).toBe(false)
  })
})

describe('a request that asks for a cache is reserved at the write it asks for (#35)', () => {
  // claude-sonnet-4-5: $3 input, $3.75 a 5-minute write, $6 a 1-hour write, $15 output, a million tokens.
  const system = (cache?: Record<string, unknown>) => ({
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    system: [{ type: 'text', text: 'x'.repeat(30_000), ...(cache ? { cache_control: cache } : {}) }],
    messages: [{ role: 'user', content: 'hi' }]
  })
  const inputTokens = (body: Record<string, unknown>): number =>
    Math.ceil(JSON.stringify(body).length / BYTES_PER_INPUT_TOKEN) + VENDOR_PROMPT_TOKENS

  it('at 2× input for a 1-hour cache, 1.25× for a 5-minute one, and 1× for none', () => {
    const output = (100 * 15) / 1e6
    for (const [cache, rate] of [
      [undefined, 3],
      [{ type: 'ephemeral' }, 3.75],
      [{ type: 'ephemeral', ttl: '5m' }, 3.75],
      [{ type: 'ephemeral', ttl: '1h' }, 6]
    ] as const) {
      const body = system(cache)
      expect({ cache, usd: worstOf('anthropic-messages', body) }).toEqual({
        cache,
        usd: expect.closeTo((inputTokens(body) * rate) / 1e6 + output, 12)
      })
    }
    const hour = pre('anthropic-messages', system({ type: 'ephemeral', ttl: '1h' }))
    expect(hour).toMatchObject({ kind: 'authorised', hourCache: true })
  })

  it('reads a breakpoint anywhere in the body (a tool, a tool result, a gateway-passed chat part)', () => {
    const onTool = {
      ...system(),
      tools: [{ name: 'Bash', input_schema: {}, cache_control: { type: 'ephemeral', ttl: '1h' } }]
    }
    expect(worstOf('anthropic-messages', onTool)).toBeCloseTo((inputTokens(onTool) * 6 + 100 * 15) / 1e6, 12)
    const chat = {
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'y'.repeat(9000), cache_control: { type: 'ephemeral', ttl: '1h' } }]
        }
      ]
    }
    expect(pre('openai-chat', chat)).toMatchObject({ kind: 'authorised', hourCache: true })
  })

  it('refuses a TTL the meter has no price for', () => {
    expect(refusalOf('anthropic-messages', system({ type: 'ephemeral', ttl: '24h' }))).toBe(
      'cache_control ttl: 24h'
    )
  })
})

describe("what makes a call billed above the table's rates, or after its answer, is refused", () => {
  const cases: Array<[ModelWire, Record<string, unknown>, string | undefined]> = [
    ['openai-responses', { background: true }, 'background: true'],
    ['openai-responses', { background: false }, undefined],
    ['anthropic-messages', { background: true }, undefined],
    ['openai-chat', { service_tier: 'priority' }, 'service_tier: priority'],
    ['openai-responses', { service_tier: 'flex' }, undefined],
    ['openai-responses', { service_tier: 'scale' }, 'service_tier: scale'],
    ['anthropic-messages', { speed: 'fast' }, 'speed: fast'],
    ['anthropic-messages', { speed: 'standard' }, undefined],
    ['anthropic-messages', { inference_geo: 'us' }, 'inference_geo: us'],
    ['anthropic-messages', { inference_geo: 'global' }, undefined],
    ['anthropic-messages', { speed: 'fast\n::warning::x' }, 'speed: a name with other characters']
  ]
  it.each(cases)('%s %j: %s', (wire, body, name) => {
    expect(refusalOf(wire, body, GEMINI_PATH_MODEL)).toBe(name)
  })
})

describe('one rule: input the body does not hold is refused (#35)', () => {
  const user = (content: unknown) => ({
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    messages: [{ role: 'user', content }]
  })
  const refused: Array<[ModelWire, Record<string, unknown>, string]> = [
    // Anthropic: a source that names, a typed tool, a field that brings content along.
    [
      'anthropic-messages',
      user([{ type: 'document', source: { type: 'url', url: 'https://example.com/big.pdf' } }]),
      'document source: url'
    ],
    [
      'anthropic-messages',
      user([{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }]),
      'image source: url'
    ],
    [
      'anthropic-messages',
      user([{ type: 'document', source: { type: 'file', file_id: 'file_011' } }]),
      'document source: file'
    ],
    [
      'anthropic-messages',
      user([
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }]
        }
      ]),
      'image source: url'
    ],
    [
      'anthropic-messages',
      user([
        {
          type: 'document',
          source: { type: 'content', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }
        }
      ]),
      'image source: file'
    ],
    [
      'anthropic-messages',
      user([{ type: 'container_upload', file_id: 'file_011' }]),
      'container_upload content'
    ],
    [
      'anthropic-messages',
      user([{ type: 'web_search_tool_result', tool_use_id: 's', content: [] }]),
      'web_search_tool_result content'
    ],
    [
      'anthropic-messages',
      user([
        {
          type: 'document',
          source: { type: 'text', media_type: 'text/plain', data: 'plain' },
          citations: { enabled: true }
        }
      ]),
      'document citations'
    ],
    [
      'anthropic-messages',
      { ...user('hi'), system: [{ type: 'document', source: { type: 'url', url: 'https://x' } }] },
      'document source: url'
    ],
    [
      'anthropic-messages',
      { ...user('hi'), tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }] },
      'tools: web_search_20250305'
    ],
    [
      'anthropic-messages',
      { ...user('hi'), tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' }] },
      'tools: web_fetch_20250910'
    ],
    [
      'anthropic-messages',
      { ...user('hi'), tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] },
      'tools: code_execution_20250825'
    ],
    [
      'anthropic-messages',
      { ...user('hi'), tools: [{ type: 'mcp_toolset', mcp_server_name: 'x' }] },
      'tools: mcp_toolset'
    ],
    [
      'anthropic-messages',
      { ...user('hi'), tools: [{ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' }] },
      'tools: text_editor_20250728'
    ],
    [
      'anthropic-messages',
      { ...user('hi'), mcp_servers: [{ type: 'url', url: 'https://mcp.example.com', name: 'x' }] },
      'mcp_servers'
    ],
    ['anthropic-messages', { ...user('hi'), container: 'container_011' }, 'container'],
    [
      'anthropic-messages',
      { ...user('hi'), context_management: { edits: [{ type: 'compact_20260112' }] } },
      'context_management: compact_20260112'
    ],
    // OpenAI Responses: stored input, a hosted tool, an item or a part that names its content.
    ['openai-responses', { input: 'go on', previous_response_id: 'resp_1' }, 'previous_response_id'],
    ['openai-responses', { input: 'x', conversation: 'conv_1' }, 'conversation'],
    ['openai-responses', { input: 'x', prompt: { id: 'pmpt_1' } }, 'prompt'],
    ['openai-responses', { input: 'x', tools: [{ type: 'web_search' }] }, 'tools: web_search'],
    [
      'openai-responses',
      { input: 'x', tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] },
      'tools: file_search'
    ],
    [
      'openai-responses',
      { input: 'x', tools: [{ type: 'mcp', server_url: 'https://mcp.example.com' }] },
      'tools: mcp'
    ],
    [
      'openai-responses',
      { input: 'x', tools: [{ type: 'namespace', name: 'n', tools: [{ type: 'web_search' }] }] },
      'tools: web_search'
    ],
    ['openai-responses', { input: [{ type: 'item_reference', id: 'msg_1' }] }, 'item_reference input'],
    [
      'openai-responses',
      { input: [{ role: 'user', content: [{ type: 'input_file', file_url: 'https://x/big.pdf' }] }] },
      'input_file: file_url'
    ],
    [
      'openai-responses',
      { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] },
      'input_file: file_id'
    ],
    [
      'openai-responses',
      {
        input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/a.png' }] }]
      },
      'input_image: image_url'
    ],
    [
      'openai-responses',
      {
        input: [
          {
            type: 'function_call_output',
            call_id: 'c',
            output: [{ type: 'input_image', file_id: 'file-1' }]
          }
        ]
      },
      'input_image: file_id'
    ],
    // Chat completions: a search model, a URL image, a stored file.
    ['openai-chat', { messages: [], web_search_options: {} }, 'web_search_options'],
    [
      'openai-chat',
      {
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/a.png' } }] }]
      },
      'image_url: image_url'
    ],
    [
      'openai-chat',
      { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] },
      'file: file_id'
    ],
    ['openai-chat', { messages: [], tools: [{ type: 'web_search' }] }, 'tools: web_search'],
    // Gemini: a file by URI, Google's own tools, stored context.
    [
      'gemini',
      { contents: [{ role: 'user', parts: [{ fileData: { fileUri: 'https://x/a.pdf' } }] }] },
      'fileData part'
    ],
    [
      'gemini',
      { contents: [{ role: 'user', parts: [{ file_data: { file_uri: 'gs://b/a.pdf' } }] }] },
      'file_data part'
    ],
    [
      'gemini',
      {
        contents: [
          {
            role: 'user',
            parts: [
              { functionResponse: { name: 'f', response: {}, parts: [{ fileData: { fileUri: 'x' } }] } }
            ]
          }
        ]
      },
      'fileData part'
    ],
    ['gemini', { contents: [], tools: [{ googleSearch: {} }] }, 'tools: googleSearch'],
    ['gemini', { contents: [], tools: [{ urlContext: {} }] }, 'tools: urlContext'],
    ['gemini', { contents: [], tools: [{ codeExecution: {} }] }, 'tools: codeExecution'],
    ['gemini', { contents: [], cachedContent: 'cachedContents/abc' }, 'cachedContent'],
    ['gemini', { contents: [], cached_content: 'cachedContents/abc' }, 'cachedContent'],
    ['gemini', { contents: [], tools: [{ google_search: {} }] }, 'tools: google_search'],
    [
      'gemini',
      { contents: [], system_instruction: { parts: [{ file_data: { file_uri: 'https://x' } }] } },
      'file_data part'
    ],
    [
      'gemini',
      { contents: [], systemInstruction: { parts: [{ fileData: { fileUri: 'https://x' } }] } },
      'fileData part'
    ]
  ]
  it.each(refused)('%s: %j is refused as %s', (wire, body, name) => {
    const result = pre(wire, body, GEMINI_PATH_MODEL)
    expect(result).toEqual({
      kind: 'refused',
      name,
      why: expect.stringMatching(/bills it as input the body does not hold.*send the content inline/)
    })
  })

  // What the CLIs send: text, inline images and documents, their own tools' calls and results, thinking.
  const sent: Array<[string, ModelWire, Record<string, unknown>]> = [
    [
      'claude',
      'anthropic-messages',
      {
        model: 'claude-sonnet-4-5',
        max_tokens: 32_000,
        stream: true,
        metadata: { user_id: 'u' },
        thinking: { type: 'enabled', budget_tokens: 4000 },
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
        system: [
          { type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral', ttl: '1h' } }
        ],
        tools: [
          { name: 'Bash', description: 'Run a command', input_schema: { type: 'object' } },
          { type: 'custom', name: 'Read', input_schema: { type: 'object' } }
        ],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Fix the tests.' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
              {
                type: 'document',
                source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' }
              }
            ]
          },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'Look first.', signature: 'sig' },
              { type: 'redacted_thinking', data: 'opaque' },
              // A tool's input is the model's data: what it names is not the request's.
              {
                type: 'tool_use',
                id: 't1',
                name: 'Bash',
                input: { type: 'document', source: { type: 'url', url: 'https://x' } }
              }
            ]
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't1',
                content: [
                  { type: 'text', text: 'ok' },
                  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }
                ]
              }
            ]
          }
        ]
      }
    ],
    [
      'codex',
      'openai-responses',
      {
        model: 'gpt-5.5',
        instructions: 'You are codex.',
        input: [
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'hi' },
              { type: 'input_image', image_url: `data:image/png;base64,${PNG}` }
            ]
          },
          { type: 'reasoning', summary: [], encrypted_content: 'gAAA' },
          { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'done' },
          { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
          { type: 'custom_tool_call_output', call_id: 'c2', output: 'applied' }
        ],
        tools: [
          { type: 'function', name: 'exec_command', parameters: {} },
          { type: 'custom', name: 'apply_patch', format: { type: 'grammar' } },
          { type: 'namespace', name: 'mcp', tools: [{ type: 'function', name: 'mcp__x', parameters: {} }] }
        ],
        store: false,
        stream: true,
        include: ['reasoning.encrypted_content'],
        prompt_cache_key: 'thread-1'
      }
    ],
    [
      'opencode',
      'openai-chat',
      {
        model: 'gpt-5.5',
        stream: true,
        messages: [
          { role: 'system', content: 'You are opencode.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hi' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }
            ]
          },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: {} }] },
          { role: 'tool', tool_call_id: 'c', content: 'done' }
        ],
        tools: [{ type: 'function', function: { name: 'bash', parameters: {} } }]
      }
    ],
    [
      'gemini',
      'gemini',
      {
        systemInstruction: { parts: [{ text: 'This is the Gemini CLI.' }] },
        contents: [
          {
            role: 'user',
            parts: [{ text: 'hi' }, { inlineData: { mimeType: 'image/png', data: PNG } }]
          },
          {
            role: 'model',
            parts: [{ functionCall: { name: 'run_shell_command', args: {} }, thoughtSignature: 'sig' }]
          },
          {
            role: 'user',
            parts: [{ functionResponse: { name: 'run_shell_command', response: { output: 'ok' } } }]
          }
        ],
        tools: [{ functionDeclarations: [{ name: 'run_shell_command', parameters: {} }] }],
        generationConfig: { temperature: 0, thinkingConfig: { includeThoughts: true } }
      }
    ]
  ]
  it.each(sent)('forwards what %s sends', (_cli, wire, body) => {
    expect(pre(wire, body, GEMINI_PATH_MODEL)).toMatchObject({ kind: 'authorised' })
  })

  it('refuses a body nested deeper than it reads, without exhausting the stack', () => {
    // As the proxy gets it: parsed from text (JSON.parse reads any depth; a recursive walk would not).
    const text = `{"messages":[],"metadata":${'['.repeat(100_000)}"x"${']'.repeat(100_000)}}`
    const result = preauthorize(
      'anthropic-messages',
      JSON.parse(text),
      text.length,
      undefined,
      priceFromTable
    )
    expect(result).toMatchObject({ kind: 'refused', name: 'deep nesting' })
  })
})

describe('what a body bills beyond its bytes (#35, attacks)', () => {
  it('refuses a count of choices it cannot read: Google takes "8" for 8, which would be reserved as one', () => {
    const gemini = (count: unknown) => ({
      contents: [{ parts: [{ text: 'hi' }] }],
      generationConfig: { maxOutputTokens: 32_000, candidateCount: count }
    })
    expect(refusalOf('gemini', gemini('8'), GEMINI_PATH_MODEL)).toBe('candidateCount: a string')
    expect(
      refusalOf('gemini', { ...gemini(2), generation_config: { candidate_count: '8' } }, GEMINI_PATH_MODEL)
    ).toBe('candidateCount: a string')
    expect(refusalOf('gemini', gemini(0), GEMINI_PATH_MODEL)).toBe('candidateCount: 0')
    const chat = (n: unknown) => ({ model: 'gpt-5.5', max_completion_tokens: 100, messages: [], n })
    expect(refusalOf('openai-chat', chat('8'))).toBe('n: a string')
    expect(refusalOf('openai-chat', chat(-1))).toBe('n: -1')
    expect(refusalOf('openai-chat', chat({ n: 8 }))).toBe('n: a object')
    // A count it reads is reserved as it is; one left out (or null) is the API's default, one.
    expect(pre('gemini', gemini(8), GEMINI_PATH_MODEL)).toMatchObject({ worst: { output: 8 * 32_000 } })
    expect(pre('openai-chat', chat(null))).toMatchObject({ worst: { output: 100 } })
    expect(pre('openai-chat', chat(undefined))).toMatchObject({ worst: { output: 100 } })
  })

  it('refuses a body that is not a JSON object: Google reads an array as positional fields (JSPB)', () => {
    // [contents, …, generationConfig { …, maxOutputTokens }]: none of it where the meter looks.
    const jspb = [[['user', [['hi']]]], null, null, [null, null, null, 65_536]]
    for (const wire of ['gemini', 'anthropic-messages', 'openai-chat', 'openai-responses'] as const)
      expect(preauthorize(wire, jspb, 100, GEMINI_PATH_MODEL, priceFromTable)).toMatchObject({
        kind: 'refused',
        name: 'not a JSON object'
      })
  })

  it("reserves a chat prediction's tokens as output too: those the model rejects are billed as completion tokens", () => {
    // gpt-5.5: $5 input, $30 output a million tokens.
    const body = (prediction?: unknown) => ({
      model: 'gpt-5.5',
      max_completion_tokens: 100,
      messages: [{ role: 'user', content: 'Rewrite it.' }],
      ...(prediction ? { prediction } : {})
    })
    const predicted = body({ type: 'content', content: 'x'.repeat(90_000) })
    const input = Math.ceil(JSON.stringify(predicted).length / BYTES_PER_INPUT_TOKEN) + VENDOR_PROMPT_TOKENS
    expect(worstOf('openai-chat', predicted)).toBeCloseTo((input * 5 + (input + 100) * 30) / 1e6, 12)
    const plain = body()
    const plainInput = Math.ceil(JSON.stringify(plain).length / BYTES_PER_INPUT_TOKEN) + VENDOR_PROMPT_TOKENS
    expect(worstOf('openai-chat', plain)).toBeCloseTo((plainInput * 5 + 100 * 30) / 1e6, 12)
  })

  describe('a body over a long-context threshold is reserved at the long rates (#35)', () => {
    // gpt-5.4: $2.50 / $15 a million tokens; a prompt over 272K tokens is billed whole at $5 / $22.50.
    const chat = (text: string, extra: Record<string, unknown> = {}) => ({
      model: 'gpt-5.4',
      max_completion_tokens: 1000,
      messages: [{ role: 'user', content: text }],
      ...extra
    })
    const tokensOf = (body: unknown): number =>
      Math.min(
        Math.ceil(JSON.stringify(body).length / BYTES_PER_INPUT_TOKEN) + VENDOR_PROMPT_TOKENS,
        MAX_INPUT_TOKENS
      )

    it('reserves a prompt that may cross the threshold at the long rates, one below it at the base rates', () => {
      const long = chat('x'.repeat(900_000))
      expect(tokensOf(long)).toBeGreaterThan(272_000)
      expect(worstOf('openai-chat', long)).toBeCloseTo((tokensOf(long) * 5 + 1000 * 22.5) / 1e6, 12)
      const short = chat('x'.repeat(600_000))
      expect(tokensOf(short)).toBeLessThan(272_000)
      expect(worstOf('openai-chat', short)).toBeCloseTo((tokensOf(short) * 2.5 + 1000 * 15) / 1e6, 12)
    })

    it('reserves a media body at the long rates of a whole window', () => {
      const image = {
        model: 'claude-sonnet-4-5',
        max_tokens: 1000,
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }]
          }
        ]
      }
      // claude-sonnet-4-5 over 200K: $6 / $22.50.
      expect(worstOf('anthropic-messages', image)).toBeCloseTo((MAX_INPUT_TOKENS * 6 + 1000 * 22.5) / 1e6, 12)
    })

    it('covers a prediction split at the threshold: a prompt just over it, the rest rejected as output', () => {
      const predicted = chat('Rewrite it.', {
        prediction: { type: 'content', content: 'x'.repeat(3_500_000) }
      })
      const body = tokensOf(predicted)
      expect(body).toBe(MAX_INPUT_TOKENS)
      // What the vendor may bill: 272,001 prompt tokens at $5, the rest of the body rejected at $22.50 a million.
      const split = (272_001 * 5 + (body - 272_001 + 1000) * 22.5) / 1e6
      expect(worstOf('openai-chat', predicted)).toBeGreaterThanOrEqual(split)
    })
  })

  describe('media is billed by what it decodes to, which its bytes do not bound: reserved at a whole input window', () => {
    // A PDF's pages (each an image and its text), an image's pixels or tiles, audio's and video's seconds: a few
    // kilobytes of a PDF of blank pages, or of a still video, bill hundreds of thousands of tokens.
    const PDF = Buffer.from('%PDF-1.4 1 0 obj <</Type /Page>> endobj').toString('base64')
    const user = (content: unknown) => ({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content }]
    })
    const media: Array<[ModelWire, string, Record<string, unknown>]> = [
      [
        'anthropic-messages',
        'document content',
        user([{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }])
      ],
      [
        'anthropic-messages',
        'image content',
        user([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }])
      ],
      [
        'anthropic-messages',
        'image content',
        user([
          {
            type: 'tool_result',
            tool_use_id: 't',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }]
          }
        ])
      ],
      [
        'openai-responses',
        'input_file content',
        {
          model: 'gpt-5.5',
          max_output_tokens: 100,
          input: [
            {
              role: 'user',
              content: [
                { type: 'input_file', filename: 'a.pdf', file_data: `data:application/pdf;base64,${PDF}` }
              ]
            }
          ]
        }
      ],
      [
        'openai-responses',
        'input_image content',
        {
          model: 'gpt-5.5',
          max_output_tokens: 100,
          input: [
            { role: 'user', content: [{ type: 'input_image', image_url: `data:image/png;base64,${PNG}` }] }
          ]
        }
      ],
      [
        'openai-chat',
        'input_audio content',
        {
          model: 'gpt-5.5',
          max_completion_tokens: 100,
          messages: [
            {
              role: 'user',
              content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }]
            }
          ]
        }
      ],
      [
        'gemini',
        'inlineData part',
        {
          contents: [{ parts: [{ inline_data: { mime_type: 'video/mp4', data: 'AAAA' } }] }],
          generationConfig: { maxOutputTokens: 100 }
        }
      ]
    ]
    it.each(media)('%s: a body with %s', (wire, name, body) => {
      const result = pre(wire, body, GEMINI_PATH_MODEL)
      expect(result).toMatchObject({ kind: 'authorised', media: name, worst: { input: MAX_INPUT_TOKENS } })
    })

    it('reserves text at its bytes, and no body above a whole window', () => {
      const text = user('hi')
      expect(pre('anthropic-messages', text)).toMatchObject({
        worst: {
          input: Math.ceil(JSON.stringify(text).length / BYTES_PER_INPUT_TOKEN) + VENDOR_PROMPT_TOKENS
        }
      })
      expect(pre('anthropic-messages', text)).not.toHaveProperty('media')
      const huge = user('x'.repeat(4 * MAX_INPUT_TOKENS))
      expect(pre('anthropic-messages', huge)).toMatchObject({ worst: { input: MAX_INPUT_TOKENS } })
    })
  })
})
