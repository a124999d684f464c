// One admitted request's exchange with the upstream: it goes up with the real key (only that key; hop headers
// dropped, identity encoding asked so usage can be read), the answer streams back to the agent as it arrives,
// and its usage is read on the way (usage.ts) and priced after every change, so the budget gate can cut it.
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import https from 'node:https'
import type { BudgetGate, InFlight } from './budget-gate.js'
import { SseReader } from './sse.js'
import type { MeteredRequest, ModelProxyOptions } from './types.js'
import { WireUsage } from './usage.js'
import { apiError, endpointOf, modelInPath, type ModelWire } from './wire.js'

// Headers of one hop only (RFC 9110 7.6.1).
const HOP_HEADERS = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade'
]
// Besides: the proxy names the host and the encoding (identity, to read usage), and only its own key goes up.
const NOT_FORWARDED = new Set([
  ...HOP_HEADERS,
  'host',
  'accept-encoding',
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key'
])
const NOT_RETURNED = new Set(HOP_HEADERS)

/** A whole JSON body is read for its usage up to this size; larger ones pass through unmetered. */
const MAX_JSON_BODY = 16 * 1024 * 1024

/** The key each wire's API expects, as a header. */
function keyHeader(wire: ModelWire, key: string): Record<string, string> {
  if (wire === 'anthropic-messages') return { 'x-api-key': key }
  if (wire === 'gemini') return { 'x-goog-api-key': key }
  return { authorization: `Bearer ${key}` }
}

/** What the proxy read of a call before it went up: its worst case, model, and the cache it asks for. */
export interface ModelCall {
  worstUsd: number
  model: string | undefined
  hourCache: boolean
}
export const FREE_CALL: ModelCall = { worstUsd: 0, model: undefined, hourCache: false }

/** What every exchange of one proxy shares: its options, the upstream and its connections, the record, the gate. */
export interface Upstream {
  options: ModelProxyOptions
  upstream: URL
  agent: http.Agent
  requests: MeteredRequest[]
  gate: BudgetGate
}

/** An answer of the proxy's own, in the API's shape. */
export function answer(
  response: ServerResponse,
  wire: ModelWire,
  status: 402 | 403 | 413,
  message: string
): void {
  if (response.headersSent) return void response.socket?.end()
  // x-should-retry: the SDKs (Anthropic's, OpenAI's) obey it: a refusal is final.
  response.writeHead(status, { 'content-type': 'application/json', 'x-should-retry': 'false' })
  response.end(JSON.stringify(apiError(wire, status, message)))
}

/** Sends `body` up for the agent's `request` and streams the answer back, metering it. */
export function send(
  up: Upstream,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  body: Buffer,
  call: ModelCall,
  /** The body was rewritten, so it goes up plain, whatever encoding the agent sent. */
  plain = false
): void {
  const { options, upstream, agent, requests, gate } = up
  const { worstUsd } = call
  const record: MeteredRequest = {
    seq: requests.length + 1,
    method: request.method ?? 'GET',
    path: url.pathname,
    status: 0,
    usage: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
    ...(worstUsd > 0 ? { reservedUsd: worstUsd } : {})
  }
  requests.push(record)
  const meter = new WireUsage(options.wire, modelInPath(url.pathname) ?? call.model, call.hourCache)
  const modelCall = endpointOf(options.wire, record.method, url.pathname).kind === 'model'
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(request.headers))
    if (value !== undefined && !NOT_FORWARDED.has(name) && !(plain && name === 'content-encoding'))
      headers[name] = value
  Object.assign(headers, keyHeader(options.wire, options.apiKey), {
    'accept-encoding': 'identity',
    'content-length': String(body.length),
    // The body is read as the meter read it: JSON (Google reads another type as another encoding).
    ...(modelCall ? { 'content-type': 'application/json' } : {})
  })
  const basePath = upstream.pathname.replace(/\/$/, '')
  const target = `${basePath}${url.pathname}${url.search}`
  const sendUp = upstream.protocol === 'https:' ? https.request : http.request
  const outgoing = sendUp({
    protocol: upstream.protocol,
    hostname: upstream.hostname,
    port: upstream.port || undefined,
    method: request.method,
    path: target,
    headers: { ...headers, host: upstream.host },
    agent
  })
  let incoming: IncomingMessage | undefined
  // The body reached the upstream (flushed to its connection), so it may bill it, answered or not.
  let delivered = false
  // The answer's end arrived: what it said it cost is all it will say.
  let answered = false
  let ended = false
  const settle = (): void => {
    const tokens = meter.seen ? options.price(meter.usage) : undefined
    record.costUsd = tokens === undefined ? undefined : tokens + meter.perUseUsd
    record.usage = { ...meter.usage }
    options.onRequest?.(record)
  }
  const changed = (): void => {
    settle()
    gate.check()
  }
  const finish = (): void => {
    if (ended) return
    ended = true
    gate.ended(flight)
    settle()
    const ok = record.status >= 200 && record.status < 300
    // Usage that cannot be true is the upstream's fault, never money back: charged its worst case.
    if (meter.impossible !== undefined) {
      record.impossibleUsage = meter.impossible
      record.error ??= `the upstream reported usage that cannot be true (${meter.impossible})`
    }
    // The upstream may bill what it was sent, unless it answered a failure. What it billed is read only from
    // an answer that ended with its input and output counted: a cut, dropped or abandoned answer may be billed
    // whole (gateways and Bedrock finish what the client left). Else it is charged its worst case.
    const billable = delivered && (ok || record.status === 0)
    const unread = record.unread === true || !answered || !meter.complete
    if (modelCall && ((billable && unread) || meter.impossible !== undefined)) {
      record.costUsd = Math.max(record.costUsd ?? 0, worstUsd)
      record.worstCase = true
      options.onRequest?.(record)
    }
    gate.check()
    gate.admitWaiting()
  }
  const fail = (message: string): void => {
    if (record.error === undefined) record.error = message
  }
  const flight: InFlight = {
    record,
    reservedUsd: worstUsd,
    cut: () => {
      if (ended) return
      record.cut = true
      // What was forwarded still arrives, then the connection ends without the answer's end.
      if (response.headersSent) response.socket?.end()
      else
        answer(
          response,
          options.wire,
          402,
          "ralph-action's dollar budget is spent (max-cost): the request was cut. The run stops."
        )
      incoming?.destroy()
      outgoing.destroy()
      finish()
    }
  }
  gate.started(flight)
  outgoing.on('finish', () => {
    delivered = true
  })
  outgoing.end(body)
  response.on('close', () => {
    // The agent hung up (or was killed): the upstream request goes too.
    if (!response.writableFinished && !ended) {
      fail('the agent closed the connection')
      incoming?.destroy()
      outgoing.destroy()
      finish()
    }
  })
  outgoing.on('error', error => {
    if (ended) return
    fail(`upstream ${upstream.host}: ${error.message}`)
    if (!response.headersSent) {
      response.writeHead(502, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify({ error: { message: `model proxy: upstream ${upstream.host}: ${error.message}` } })
      )
    } else response.destroy()
    finish()
  })
  outgoing.on('response', answerIn => {
    incoming = answerIn
    if (ended) return void answerIn.destroy()
    record.status = answerIn.statusCode ?? 0
    const out: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(answerIn.headers))
      if (value !== undefined && !NOT_RETURNED.has(name)) out[name] = value
    response.writeHead(record.status, answerIn.statusMessage, out)
    response.flushHeaders()
    const type = String(answerIn.headers['content-type'] ?? '')
    const encoded = (answerIn.headers['content-encoding'] ?? 'identity') !== 'identity'
    const sse =
      !encoded && type.includes('text/event-stream')
        ? new SseReader(json => meter.read(json) && changed())
        : undefined
    const json = !encoded && !sse && type.includes('json') ? ([] as Buffer[]) : undefined
    let jsonBytes = 0
    const ok = record.status >= 200 && record.status < 300
    if (ok && !sse && !json) record.unread = true
    answerIn.on('data', (chunk: Buffer) => {
      // Forwarded first, read after: the agent never waits for the meter.
      if (!response.write(chunk)) {
        answerIn.pause()
        response.once('drain', () => answerIn.resume())
      }
      sse?.push(chunk)
      if (json && jsonBytes < MAX_JSON_BODY) {
        json.push(chunk)
        jsonBytes += chunk.length
      }
    })
    answerIn.on('end', () => {
      if (ended) return
      answered = true
      sse?.end()
      if (json && jsonBytes < MAX_JSON_BODY) {
        try {
          if (meter.read(JSON.parse(Buffer.concat(json).toString('utf8')))) settle()
        } catch {
          // Not JSON after all: what it cost cannot be read.
          if (ok) record.unread = true
        }
      } else if (json && ok) record.unread = true
      response.end()
      finish()
    })
    answerIn.on('error', error => {
      if (ended) return
      fail(error.message)
      response.destroy()
      finish()
    })
  })
}
