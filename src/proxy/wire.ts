// The four wires the agent CLIs speak to their models, as the proxy forwards them: per wire, which endpoints
// go up at all, how a request body is decoded, and how an error is answered in the API's own shape. Reading
// the usage of an answer is usage.ts's; what a model call may cost is preauth.ts's.
import zlib from 'node:zlib'

/** The wire protocol between an agent CLI and its model. */
export type ModelWire = 'anthropic-messages' | 'openai-responses' | 'openai-chat' | 'gemini'

export type Json = Record<string, unknown>

export const obj = (value: unknown): Json | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined

/** What the proxy makes of a request before anything goes up, by its method and path alone. */
export type Endpoint =
  /** A model call: pre-authorised at its worst case, then metered from its answer. */
  | { kind: 'model' }
  /** Costs nothing (a count, a list): forwarded, not metered. */
  | { kind: 'free' }
  /** The meter cannot price it: never forwarded. */
  | { kind: 'refused'; why: string }

const MODEL: Endpoint = { kind: 'model' }
const FREE: Endpoint = { kind: 'free' }
const refused = (why: string): Endpoint => ({ kind: 'refused', why })

const BATCH = 'a batch is billed later, out of band, so the meter never sees its cost'
const FILES =
  'a stored file is billed as input by every request that names it, and the pre-authorisation sees only its name'
const CACHED = 'stored content is billed by the hour it is kept, outside any request the meter reads'

/** A model listing (`/v1/models`, `/v1/models/<id>`): free, and some CLIs check it. */
const MODELS_LIST = /^\/v1(?:beta|alpha)?\/models(?:\/[^/:]+)?$/

/**
 * Which endpoints of `wire` the proxy forwards: the model calls its meter prices, and, by name, the few free
 * ones the CLIs call. Everything else is refused, with why: a path is matched exactly (no prefix, no case).
 */
export function endpointOf(wire: ModelWire, method: string, path: string): Endpoint {
  // Counting and listing cost nothing on every vendor's API (claude counts tokens; CLIs list models).
  if (method === 'GET' && MODELS_LIST.test(path)) return FREE
  // A reachability probe of the base URL: no model runs.
  if ((method === 'HEAD' || method === 'GET') && path === '/') return FREE
  if (/\/batches\b|:batch|batchGenerateContent|:asyncBatch/i.test(path)) return refused(BATCH)
  if (/^\/(?:upload\/)?v1[a-z]*\/files\b/i.test(path)) return refused(FILES)
  if (/cachedContents/i.test(path)) return refused(CACHED)
  switch (wire) {
    case 'anthropic-messages':
      if (method === 'POST' && path === '/v1/messages') return MODEL
      if (method === 'POST' && path === '/v1/messages/count_tokens') return FREE
      break
    case 'openai-responses':
      if (method === 'POST' && path === '/v1/responses') return MODEL
      if (method === 'POST' && path === '/v1/responses/input_tokens') return FREE
      if (/^\/v1\/responses\//.test(path))
        return refused(
          'a stored or background response is billed outside the stream the meter reads (only POST /v1/responses is forwarded)'
        )
      break
    case 'openai-chat':
      if (method === 'POST' && path === '/v1/chat/completions') return MODEL
      break
    case 'gemini': {
      const call = /^\/v1(?:beta|alpha)?\/models\/[^/:]+:(\w+)$/.exec(path)?.[1]
      if (method === 'POST' && (call === 'generateContent' || call === 'streamGenerateContent')) return MODEL
      if (method === 'POST' && call === 'countTokens') return FREE
      break
    }
  }
  return refused(`the meter cannot price it: the proxy forwards only ${MODEL_CALLS[wire]} and free calls`)
}

const MODEL_CALLS: Record<ModelWire, string> = {
  'anthropic-messages': 'POST /v1/messages',
  'openai-responses': 'POST /v1/responses',
  'openai-chat': 'POST /v1/chat/completions',
  gemini: 'generateContent and streamGenerateContent'
}

/**
 * The query parameters a model call of each wire may carry, and the values the proxy knows: any other may change
 * how the upstream reads the body or what its answer holds (Google's system parameters: `$ct` sets the body's
 * type, `fields` trims the usage from the answer, `alt=proto` answers in a form the meter cannot read).
 */
const MODEL_QUERY: Record<ModelWire, Record<string, RegExp>> = {
  // Claude Code's ?beta=true.
  'anthropic-messages': { beta: /^true$/ },
  'openai-responses': {},
  'openai-chat': {},
  // streamGenerateContent's ?alt=sse, or its JSON array.
  gemini: { alt: /^(?:sse|json)$/ }
}

/** The first query parameter of a model call the proxy does not know, named for the record; or undefined. */
export function unknownQuery(wire: ModelWire, query: URLSearchParams): string | undefined {
  const known = MODEL_QUERY[wire]
  for (const [name, value] of query)
    // An own entry only: the agent's name is never looked up on the prototype (`constructor`).
    if (!(Object.hasOwn(known, name) && known[name].test(value)))
      return /^[\w.$-]{1,60}$/.test(name) ? name : 'a parameter with other characters'
  return undefined
}

/** The most a request body may grow to once decoded: more is refused, never read on trust. */
export const MAX_REQUEST_BODY = 64 * 1024 * 1024

/** A request body as the upstream will read it, or undefined when its encoding is one the proxy cannot read. */
export function decodeBody(bytes: Buffer, encoding: string | undefined): Buffer | undefined {
  const options = { maxOutputLength: MAX_REQUEST_BODY }
  try {
    switch ((encoding ?? 'identity').trim().toLowerCase()) {
      case 'identity':
      case '':
        return bytes
      case 'gzip':
      case 'x-gzip':
        return zlib.gunzipSync(bytes, options)
      case 'deflate':
        return zlib.inflateSync(bytes, options)
      case 'br':
        return zlib.brotliDecompressSync(bytes, options)
      default:
        return undefined
    }
  } catch {
    return undefined
  }
}

/** An error in the API's own shape, so the CLI shows the message: 403 for a refused endpoint, 402 for the budget. */
export function apiError(wire: ModelWire, status: 402 | 403 | 413, message: string): unknown {
  const budget = status === 402
  if (wire === 'anthropic-messages')
    return { type: 'error', error: { type: budget ? 'billing_error' : 'permission_error', message } }
  if (wire === 'gemini')
    return { error: { code: status, message, status: budget ? 'RESOURCE_EXHAUSTED' : 'PERMISSION_DENIED' } }
  return {
    error: {
      message,
      type: budget ? 'insufficient_quota' : 'invalid_request_error',
      code: budget ? 'insufficient_quota' : 'endpoint_not_allowed',
      param: null
    }
  }
}

/** The model in a request's path (Gemini: /v1beta/models/<model>:streamGenerateContent). */
export function modelInPath(path: string): string | undefined {
  return /\/models\/([^/:]+)/.exec(path)?.[1]
}
