// Pre-authorising a model call: before anything goes up, the most it may cost, as one dollar figure read from
// its body, or why that cannot be read from it (then the proxy refuses it). The body's bytes are its input,
// each token at the dearest kind the request lets the vendor bill it as (a 1-hour cache write when it asks
// for one), plus the vendor's own prompt and the output limit (those token bounds are worst-case.ts's). What
// the body only names (a document by URL, a stored file or response, a server-run tool's results) has no size
// in it: one rule, an allow-list of the kinds of content, sources and tools the body holds whole, refuses
// everything else. Media the body holds (an image, a PDF, audio) is billed by what it decodes to, which its
// bytes do not bound: a request that carries any is reserved at a whole input window.
import type { UsageReport } from '../agents/types.js'
import { geminiFields, geminiSettings, positive } from './fields.js'
import { obj, type Json, type ModelWire } from './wire.js'
import { withOutputLimit, worstCaseUsage } from './worst-case.js'

/** What the proxy makes of a model call's body before it goes up. */
export type Preauthorization =
  /** Never forwarded: `name` (for the record) is what the meter cannot price, `why` says why. */
  | { kind: 'refused'; name: string; why: string }
  | {
      kind: 'authorised'
      /** The most the call may cost, in dollars: what is reserved against the cap, one figure per request. */
      worstUsd: number
      /** The tokens that figure prices, and the model it prices them at. */
      worst: UsageReport
      /** The body to send up when the proxy wrote the output limit into it (else the agent's, as sent). */
      body?: Buffer
      /** It asks for a 1-hour cache: writes its answer does not attribute are metered as 1-hour ones. */
      hourCache: boolean
      /** The first media the body carries (its input then reserved at a whole window), named. */
      media?: string
    }

/** Prices tokens at a model's rates (the proxy's pricing, which fails closed for unlisted models). */
export type PriceTokens = (usage: UsageReport) => number | undefined

/**
 * The pre-authorisation of one model call of `wire`: its body parsed (`body`), its decoded size (`bytes`) and
 * the model its path names (Gemini's). Refused when a part of it bills what its bytes do not bound.
 */
export function preauthorize(
  wire: ModelWire,
  body: unknown,
  bytes: number,
  pathModel: string | undefined,
  price: PriceTokens
): Preauthorization {
  const json = obj(body)
  // Another shape is another encoding of the API's (Google reads a JSON array as positional fields).
  if (!json)
    return refused('not a JSON object', 'its body is not a JSON object, the one form the meter reads')
  const { tooDeep, ttls } = scan(body)
  if (tooDeep)
    return refused(
      'deep nesting',
      `its body is nested deeper than ${MAX_DEPTH} levels, which the meter does not read`
    )
  const seen: Seen = {}
  const refusal = rateOrTimeRefusal(wire, json) ?? unreadCount(wire, json) ?? unsizedRefusal(wire, json, seen)
  if (refusal) return { kind: 'refused', ...refusal }
  const unknownTtl = [...ttls].find(ttl => ttl !== '5m' && ttl !== '1h')
  if (unknownTtl !== undefined)
    return refused(
      `cache_control ttl: ${named(unknownTtl)}`,
      'the meter prices the 5-minute and the 1-hour cache writes only'
    )
  const limited = withOutputLimit(wire, json)
  const sent = limited ? Buffer.from(JSON.stringify(limited)) : undefined
  const tokens = worstCaseUsage(wire, limited ?? json, sent?.length ?? bytes, pathModel, seen.media)
  // Each input token is billed as one kind: plain input, a cache write of a TTL the request asks for, or
  // output (a chat prediction's tokens the model rejects are billed as completion tokens). A prediction's
  // tokens are counted as input too: the prompt beside them may still cross a long-context threshold.
  const { input, ...rest } = tokens
  const kinds: UsageReport[] = [
    tokens,
    ...(ttls.has('5m') ? [{ ...rest, input: 0, cache_write: input }] : []),
    ...(ttls.has('1h') ? [{ ...rest, input: 0, cache_write: input, cache_write_1h: input }] : []),
    ...(given(json.prediction) ? [{ ...tokens, output: rest.output + input }] : [])
  ]
  const priced = kinds.map(usage => ({ usage, usd: price(usage) ?? 0 }))
  const dearest = priced.reduce((a, b) => (b.usd > a.usd ? b : a))
  return {
    kind: 'authorised',
    worstUsd: dearest.usd,
    worst: dearest.usage,
    ...(sent ? { body: sent } : {}),
    hourCache: ttls.has('1h'),
    ...(seen.media !== undefined ? { media: seen.media } : {})
  }
}

const refused = (name: string, why: string): Preauthorization => ({ kind: 'refused', name, why })

/** Deeper bodies are refused: no CLI nests so far, and reading them must not exhaust the stack. */
const MAX_DEPTH = 256

/** A value of the agent's, kept only in the characters of API names: it goes into the log and the record. */
const named = (value: unknown): string =>
  typeof value === 'string' && /^[A-Za-z0-9_.:/-]{1,60}$/.test(value)
    ? value
    : value === undefined || value === null
      ? 'none'
      : 'a name with other characters'

const given = (value: unknown): boolean =>
  value !== undefined &&
  value !== null &&
  value !== false &&
  value !== '' &&
  !(Array.isArray(value) && value.length === 0)

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])

/** The fields that set the rate a call is billed at, and their values the price table's rates are for. */
const STANDARD_RATES: Record<ModelWire, Record<string, unknown[]>> = {
  // Fast mode is billed at 6× (platform.claude.com, fast mode); US-only inference at 1.1× (data residency).
  'anthropic-messages': { speed: ['standard'], inference_geo: ['global'] },
  // Priority processing is billed above the standard rates; flex below them.
  'openai-responses': { service_tier: ['auto', 'default', 'flex'] },
  'openai-chat': { service_tier: ['auto', 'default', 'flex'] },
  gemini: {}
}

/** A call billed at another rate than the table's, or later than its answer: never forwarded. */
function rateOrTimeRefusal(wire: ModelWire, json: Json): { name: string; why: string } | undefined {
  // A background response runs on after the request returns, billed where the meter never looks.
  if (wire === 'openai-responses' && json.background === true)
    return {
      name: 'background: true',
      why: 'a background response is billed when it finishes, after the answer the meter reads'
    }
  for (const [field, standard] of Object.entries(STANDARD_RATES[wire])) {
    const value = json[field]
    if (value !== undefined && value !== null && !standard.includes(value))
      return {
        name: `${field}: ${named(value)}`,
        why: `it is billed above the price table's standard rates (the meter prices ${field} ${standard.join(', ')} only)`
      }
  }
  return undefined
}

/** The fields that multiply the output by a count of choices. */
const CHOICES: Record<ModelWire, (json: Json) => Array<[string, unknown]>> = {
  'anthropic-messages': () => [],
  'openai-responses': () => [],
  'openai-chat': json => [['n', json.n]],
  gemini: json => geminiSettings(json, 'candidateCount').map(count => ['candidateCount', count])
}

/** A count of choices the meter cannot read (Google's API takes `"8"` for 8): it would be reserved as one. */
function unreadCount(wire: ModelWire, json: Json): { name: string; why: string } | undefined {
  const unread = CHOICES[wire](json).find(
    ([, count]) => count !== undefined && count !== null && positive(count) === undefined
  )
  if (!unread) return undefined
  const [field, count] = unread
  return {
    name: `${field}: ${typeof count === 'number' ? String(count) : `a ${typeof count}`}`,
    why: 'it multiplies the output, and the meter reads a count of choices only as a positive number'
  }
}

const UNSIZED_WHY =
  "the vendor bills it as input the body does not hold (a document fetched by URL, a stored file or response, a server-run tool's results or prompt), so no worst case can be read from the body; send the content inline, and only tools the agent runs itself"

/** What the walk of a body found besides a refusal: the first media it carries, named. */
interface Seen {
  media?: string
}

function unsizedRefusal(wire: ModelWire, json: Json, seen: Seen): { name: string; why: string } | undefined {
  const name = UNSIZED[wire](json, seen)
  return name === undefined ? undefined : { name, why: UNSIZED_WHY }
}

/** Top-level fields by which a body names input it does not hold. */
const NAMES_OUTSIDE_INPUT: Record<ModelWire, string[]> = {
  // A remote MCP server's tools and results; a container's files and skills.
  'anthropic-messages': ['mcp_servers', 'container'],
  // The stored conversation, its items, a stored prompt.
  'openai-responses': ['previous_response_id', 'conversation', 'prompt'],
  // A search model's search results (and its fee per search).
  'openai-chat': ['web_search_options'],
  // Stored context, billed as cached input and by the hour.
  gemini: ['cachedContent']
}

/**
 * The first part of a body of each wire outside the allow-lists, named; undefined when it is all sized. The
 * first media part it passes is named in `seen`.
 */
const UNSIZED: Record<ModelWire, (json: Json, seen: Seen) => string | undefined> = {
  'anthropic-messages': (json, seen) =>
    outsideInput('anthropic-messages', json) ??
    firstOf(list(obj(json.context_management)?.edits), edit => {
      // Clearing old content only shrinks the input; a compaction is another model call inside this one.
      const type = obj(edit)?.type
      return typeof type === 'string' && type.startsWith('clear_')
        ? undefined
        : `context_management: ${named(type)}`
    }) ??
    firstOf(list(json.tools), tool => {
      // A typed tool is the vendor's: a server-run one, or a client one with a prompt the body does not hold.
      const type = obj(tool)?.type
      return type === undefined || type === null || type === 'custom' ? undefined : `tools: ${named(type)}`
    }) ??
    anthropicBlocks(json.system, seen) ??
    firstOf(list(json.messages), message => anthropicBlocks(obj(message)?.content, seen)),
  'openai-responses': (json, seen) =>
    outsideInput('openai-responses', json) ??
    openAiTools(json.tools, RESPONSES_TOOLS) ??
    (Array.isArray(json.input) ? firstOf(json.input, item => responsesItem(item, seen)) : undefined),
  'openai-chat': (json, seen) =>
    outsideInput('openai-chat', json) ??
    openAiTools(json.tools, CHAT_TOOLS) ??
    firstOf(list(json.messages), message => openAiParts(obj(message)?.content, seen)),
  gemini: (json, seen) =>
    outsideInput('gemini', json) ??
    firstOf(list(json.tools), tool =>
      firstOf(Object.keys(obj(tool) ?? {}), key =>
        GEMINI_TOOLS.has(camel(key)) ? undefined : `tools: ${named(key)}`
      )
    ) ??
    firstOf(geminiFields(json, 'systemInstruction'), system => geminiParts(obj(system)?.parts, seen)) ??
    firstOf(list(json.contents), content => geminiParts(obj(content)?.parts, seen))
}

function outsideInput(wire: ModelWire, json: Json): string | undefined {
  const values = (name: string): unknown[] => (wire === 'gemini' ? geminiFields(json, name) : [json[name]])
  return NAMES_OUTSIDE_INPUT[wire].find(name => values(name).some(given))
}

function firstOf<T>(items: T[], find: (item: T) => string | undefined): string | undefined {
  for (const item of items) {
    const found = find(item)
    if (found !== undefined) return found
  }
  return undefined
}

/** Anthropic's content blocks the body holds whole (a source must be inline too). */
const ANTHROPIC_BLOCKS = new Set([
  'text',
  'image',
  'document',
  'search_result',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking'
])
/** Sources whose content is in the body: base64 data, plain text, content blocks. */
const INLINE_SOURCES = new Set(['base64', 'text', 'content'])

/** Content: a string, or blocks (a tool result's and a document's own content read the same way). */
function anthropicBlocks(content: unknown, seen: Seen): string | undefined {
  return firstOf(list(content), item => {
    const block = obj(item)
    if (!block) return undefined
    const type = block.type
    if (typeof type !== 'string' || !ANTHROPIC_BLOCKS.has(type)) return `${named(type)} content`
    // Citations add a prompt and a chunking of the document the body does not show.
    if (obj(block.citations)?.enabled === true) return `${type} citations`
    const source = obj(block.source)
    if (source && !INLINE_SOURCES.has(source.type as string)) return `${type} source: ${named(source.type)}`
    // An image is billed by its pixels, a PDF by its pages (each an image and its text).
    if (type === 'image' || source?.type === 'base64') seen.media ??= `${type} content`
    return anthropicBlocks(source?.content, seen) ?? anthropicBlocks(block.content, seen)
  })
}

/** Tools the agent defines in full and runs itself (codex groups its MCP tools in namespaces). */
// tool_search (codex sends it) searches the tool definitions the request itself holds: the body bounds it.
const RESPONSES_TOOLS = new Set(['function', 'custom', 'namespace', 'tool_search'])
const CHAT_TOOLS = new Set(['function', 'custom'])

function openAiTools(tools: unknown, allowed: Set<string>): string | undefined {
  return firstOf(list(tools), tool => {
    const type = obj(tool)?.type
    if (typeof type !== 'string' || !allowed.has(type)) return `tools: ${named(type)}`
    return type === 'namespace' ? openAiTools(obj(tool)?.tools, CHAT_TOOLS) : undefined
  })
}

/** Responses input items the body holds whole: messages, the agent's own tool calls and their outputs. */
const RESPONSES_ITEMS = new Set([
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning'
])

function responsesItem(value: unknown, seen: Seen): string | undefined {
  const item = obj(value)
  if (!item) return undefined
  // A message may leave its type out.
  const type = item.type ?? (item.role !== undefined ? 'message' : undefined)
  if (typeof type !== 'string' || !RESPONSES_ITEMS.has(type)) return `${named(type)} input`
  return openAiParts(item.content, seen) ?? openAiParts(item.output, seen)
}

/** OpenAI content parts (both wires) the body holds whole: text, and images, files and audio given inline. */
const OPENAI_PARTS = new Set([
  'text',
  'input_text',
  'output_text',
  'refusal',
  'image_url',
  'input_image',
  'file',
  'input_file',
  'input_audio'
])

/** The parts of OpenAI's that carry text only; the others carry media (an image, a file, audio). */
const OPENAI_TEXT_PARTS = new Set(['text', 'input_text', 'output_text', 'refusal'])

function openAiParts(content: unknown, seen: Seen): string | undefined {
  return firstOf(list(content), value => {
    const part = obj(value)
    if (!part) return undefined
    const type = part.type
    if (typeof type !== 'string' || !OPENAI_PARTS.has(type)) return `${named(type)} content`
    const file = obj(part.file) ?? part
    if (given(file.file_id)) return `${type}: file_id`
    if (given(file.file_url)) return `${type}: file_url`
    // An image is inline only as a data: URL (Responses: a string; chat: { url }).
    const url = typeof part.image_url === 'string' ? part.image_url : obj(part.image_url)?.url
    if (part.image_url !== undefined && !(typeof url === 'string' && url.startsWith('data:')))
      return `${type}: image_url`
    if (!OPENAI_TEXT_PARTS.has(type)) seen.media ??= `${type} content`
    return undefined
  })
}

/** Gemini's field names in the one spelling: its API reads both `file_data` and `fileData`. */
const camel = (key: string): string => key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())

/** Gemini's tools the agent declares and runs itself; every other (search, URL context, code execution) is Google's. */
const GEMINI_TOOLS = new Set(['functionDeclarations'])
/** The fields of a Gemini part the body holds whole (fileData names a stored or fetched file). */
const GEMINI_PART_FIELDS = new Set([
  'text',
  'inlineData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
  'thought',
  'thoughtSignature',
  'videoMetadata',
  'mediaResolution',
  'partMetadata'
])

function geminiParts(parts: unknown, seen: Seen): string | undefined {
  return firstOf(list(parts), value => {
    const part = obj(value) ?? {}
    const field = Object.keys(part).find(key => !GEMINI_PART_FIELDS.has(camel(key)))
    if (field !== undefined) return `${named(field)} part`
    // Inline data is an image (by its tiles), audio or video (by its seconds), a PDF (by its pages).
    if (geminiFields(part, 'inlineData').some(given)) seen.media ??= 'inlineData part'
    // A function's response may carry parts of its own.
    return firstOf(geminiFields(part, 'functionResponse'), response =>
      geminiParts(obj(response)?.parts, seen)
    )
  })
}

/**
 * One walk of the whole body (without recursion): whether it nests deeper than MAX_DEPTH, and the cache TTLs
 * it asks for, read from every `cache_control` in it (the Messages API's, and a gateway's that passes it on;
 * none named is '5m'). Anywhere, so that content of the agent's naming one errs high.
 */
function scan(body: unknown): { tooDeep: boolean; ttls: Set<string> } {
  const ttls = new Set<string>()
  const values: unknown[] = [body]
  const depths: number[] = [0]
  while (values.length > 0) {
    const value = values.pop()
    const depth = depths.pop() ?? 0
    if (value === null || typeof value !== 'object') continue
    if (depth >= MAX_DEPTH) return { tooDeep: true, ttls }
    if (Array.isArray(value)) {
      for (const item of value) {
        values.push(item)
        depths.push(depth + 1)
      }
      continue
    }
    for (const key in value) {
      const child = (value as Json)[key]
      if (key === 'cache_control') {
        const ttl = obj(child)?.ttl
        if (obj(child)) ttls.add(ttl === undefined || ttl === null ? '5m' : String(ttl))
      }
      values.push(child)
      depths.push(depth + 1)
    }
  }
  return { tooDeep: false, ttls }
}
