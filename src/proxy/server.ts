// The model proxy: a loopback HTTP server the agent CLI takes for its model API. It holds the real API key
// (the agent has only a per-run placeholder), forwards each request over HTTPS to the upstream, passes the
// response through as it arrives, and reads the tokens from it on the way, so that every agent's cost is
// metered at the wire and a dollar budget can end a stream in the middle. The cap fails closed: only the
// endpoints the meter can price are forwarded, each model call is pre-authorised at its worst case against
// what is left, and every request in flight is cut once the cap is crossed. It also serves CONNECT for the
// hosts a workflow allows, and names every host and request it refuses.
import { randomBytes } from 'node:crypto'
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import https from 'node:https'
import net, { type AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import tls from 'node:tls'
import type { UsageReport } from '../agents/types.js'
import { preauthorize } from './preauth.js'
import {
  apiError,
  decodeBody,
  endpointOf,
  MAX_REQUEST_BODY,
  SseReader,
  unknownQuery,
  WireUsage,
  type ModelWire
} from './wire.js'

/** One model request as metered at the wire. */
export interface MeteredRequest {
  /** 1-based, in the order the agent made them. */
  seq: number
  method: string
  /** The path asked for (no query: a Gemini key could ride in it). */
  path: string
  status: number
  /** Tokens read from the response; model from the response, else the request. */
  usage: UsageReport
  /** Dollars at the price table's rates; undefined when the model has no price (re-set as the answer streams). */
  costUsd?: number | undefined
  /** The proxy ended the stream because the dollar budget was crossed. */
  cut?: boolean
  /** The request failed before or while streaming (upstream unreachable, the agent hung up). */
  error?: string
  /** A successful answer the proxy could not read (compressed, too large, not JSON or SSE): its cost is unknown. */
  unread?: true
  /** Dollars reserved before forwarding: the request's worst case (model calls only). */
  reservedUsd?: number
  /**
   * What an answer the upstream may have billed cost was not read whole (no usage, usage without its input or
   * output count, or an answer that did not end): it was charged its worst case.
   */
  worstCase?: true
  /** The answer's usage held a figure that cannot be true (the upstream's fault): charged its worst case. */
  impossibleUsage?: string
  /** Never forwarded: its worst case did not fit in what was left of the budget (`error` says by how much). */
  refused?: 'budget'
}

export interface ModelProxyOptions {
  wire: ModelWire
  /** The upstream's base URL (https://api.anthropic.com, a gateway); request paths are appended to it. */
  upstream: string
  /** The real API key, from the job's environment. */
  apiKey: string
  /** Extra certificate authorities (PEM) to trust for the upstream, on top of Node's. */
  ca?: string
  /** Dollars for a request's tokens; undefined when unknown. */
  price(usage: UsageReport): number | undefined
  /** A request's usage changed (cumulative for the request), or the request ended. */
  onRequest?(request: MeteredRequest): void
  /** Asked after every usage change: true cuts every request in flight (the budget is crossed). */
  overBudget?(): boolean
  /** Dollars left to spend (the cap minus what is metered); undefined: no cap, nothing is pre-authorised. */
  budgetLeft?(): number | undefined
  /** Hosts the agent may reach through CONNECT (exact names, or `*.example.com`). */
  allowedHosts?: string[]
}

export interface ModelProxy {
  /** http://127.0.0.1:<port> */
  url: string
  port: number
  /** The key the agent is given: it opens the proxy, and is worth nothing anywhere else. */
  placeholderKey: string
  requests: MeteredRequest[]
  /** Hosts (host:port) the agent was refused a connection to, in order, each once: the first MOST_REFUSALS_NAMED. */
  refused: string[]
  /** Refusals past those, counted only: an agent that floods the refusals cannot flood the log or the record. */
  refusedUnnamed: number
  /** Requests refused because the meter cannot price them (`POST /v1/messages/batches`), each once, in order. */
  refusedRequests: string[]
  /** Why each of refusedRequests was refused, at the same index. */
  refusedWhy: string[]
  /**
   * Names one more refused destination (the egress rules' refusals are named here too); past the cap, or
   * with no target (the caller saw the cap and did not look it up), it is counted only.
   */
  refuse(target?: string): void
  /** Whether a next refusal would still be named: where naming costs a lookup, it is skipped once not. */
  namingRefusals(): boolean
  close(): Promise<void>
}

/** The most distinct refused destinations named in a run's log and record; the rest are counted. */
export const MOST_REFUSALS_NAMED = 100

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

/** Request bodies held at once (read, waiting or going up): an agent cannot make the proxy's memory its weapon. */
const MAX_HELD_BYTES = 256 * 1024 * 1024

/** A whole JSON body is read for its usage up to this size; larger ones pass through unmetered. */
const MAX_JSON_BODY = 16 * 1024 * 1024

/** The key each wire's API expects, as a header. */
function keyHeader(wire: ModelWire, key: string): Record<string, string> {
  if (wire === 'anthropic-messages') return { 'x-api-key': key }
  if (wire === 'gemini') return { 'x-goog-api-key': key }
  return { authorization: `Bearer ${key}` }
}

/** The key the agent presented, in whichever place its wire puts it. */
function presentedKey(request: IncomingMessage, url: URL): string | undefined {
  const header = (name: string): string | undefined => {
    const value = request.headers[name]
    return Array.isArray(value) ? value[0] : value
  }
  const bearer = header('authorization')?.replace(/^Bearer\s+/i, '')
  return header('x-api-key') ?? header('x-goog-api-key') ?? bearer ?? url.searchParams.get('key') ?? undefined
}

/** A refused target the agent wrote that is not a host[:port]: it is named this way, never echoed. */
const UNREADABLE = 'a target with other characters than host:port'

/** The agent's text, kept only when it is a host[:port]: it goes into the log, the job summary and the record. */
const safeTarget = (target: string): string =>
  /^[A-Za-z0-9_.:[\]-]{1,261}$/.test(target) ? target : UNREADABLE

/** `host:port`, `[v6]:port`: the host in group 1, the port in group 2. */
export const HOST_PORT = /^\[?([^\]]+?)\]?:(\d+)$/

/** Whether `host` matches allowed-hosts (a name, or `*.suffix`), in any case. */
export function hostAllowed(host: string, allowed: string[]): boolean {
  const name = host.toLowerCase()
  return allowed.some(pattern => {
    const p = pattern.toLowerCase()
    return p.startsWith('*.') ? name.endsWith(p.slice(1)) : name === p
  })
}

/** A request forwarded and not yet ended: what it reserved, and how to cut it. */
interface InFlight {
  record: MeteredRequest
  reservedUsd: number
  cut(): void
}

/** What the proxy read of a call before it went up: its worst case, model, and the cache it asks for. */
interface ModelCall {
  worstUsd: number
  model: string | undefined
  hourCache: boolean
}
const FREE_CALL: ModelCall = { worstUsd: 0, model: undefined, hourCache: false }

/** A model call read and priced at its worst case, not yet forwarded. */
interface Pending {
  worstUsd: number
  start(): void
  refuse(): void
}

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** A path of the agent's, kept only in the characters of paths: it goes into the log and the record. */
const safePath = (path: string): string =>
  /^[A-Za-z0-9_.~:/%@-]{1,200}$/.test(path) ? path : 'a path with other characters'

/** The model in a request's path (Gemini: /v1beta/models/<model>:streamGenerateContent). */
function modelInPath(path: string): string | undefined {
  return /\/models\/([^/:]+)/.exec(path)?.[1]
}

/** Starts the proxy on 127.0.0.1 (a free port). */
export async function startModelProxy(options: ModelProxyOptions): Promise<ModelProxy> {
  const upstream = new URL(options.upstream)
  if (upstream.protocol !== 'https:' && upstream.protocol !== 'http:')
    throw new Error(`The model upstream ${options.upstream} is not an http(s) URL.`)
  const placeholderKey = `ralph-proxy-${randomBytes(18).toString('hex')}`
  const requests: MeteredRequest[] = []
  const refused: string[] = []
  const refusedRequests: string[] = []
  const refusedWhy: string[] = []
  const inFlight = new Set<InFlight>()
  const waiting: Pending[] = []
  let heldBytes = 0
  let refusedUnnamed = 0
  const namingRefusals = (): boolean => refused.length < MOST_REFUSALS_NAMED
  const refuse = (host?: string): void => {
    if (host !== undefined && refused.includes(host)) return
    if (host !== undefined && namingRefusals()) refused.push(host)
    else refusedUnnamed++
  }
  const agent =
    upstream.protocol === 'https:'
      ? new https.Agent({
          keepAlive: true,
          ...(options.ca ? { ca: [...tls.rootCertificates, options.ca] } : {})
        })
      : new http.Agent({ keepAlive: true })

  const forward = (request: IncomingMessage, response: ServerResponse): void => {
    let url: URL
    try {
      url = new URL(request.url ?? '/', 'http://proxy.invalid')
    } catch {
      // The agent's text: a target no URL parser reads (`http://[x](y)/`) is refused, never thrown.
      refuse(UNREADABLE)
      response.writeHead(400, { 'content-type': 'text/plain' })
      response.end("ralph-action's model proxy cannot read that request's target.\n")
      return
    }
    if (/^[a-z]+:\/\//i.test(request.url ?? '')) {
      // A plain-HTTP proxy request for another host: never forwarded, only named.
      const host = safeTarget(url.host)
      refuse(host === UNREADABLE ? host : `http://${host}`)
      response.writeHead(403, { 'content-type': 'text/plain' })
      response.end("ralph-action's model proxy does not forward plain HTTP.\n")
      return
    }
    if (presentedKey(request, url) !== placeholderKey) {
      response.writeHead(401, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify({ error: { message: "the model proxy wants the agent's placeholder key" } })
      )
      return
    }
    url.searchParams.delete('key')
    const method = request.method ?? 'GET'
    const endpoint = endpointOf(options.wire, method, url.pathname)
    const name = `${method} ${safePath(url.pathname)}`
    if (endpoint.kind === 'refused') {
      request.resume()
      refuseRequest(response, name, endpoint.why)
      return
    }
    const param = endpoint.kind === 'model' ? unknownQuery(options.wire, url.searchParams) : undefined
    if (param !== undefined) {
      request.resume()
      refuseRequest(
        response,
        `${name} (query: ${param})`,
        'a query parameter the proxy does not know may change how the upstream reads the body or what its answer says it cost'
      )
      return
    }
    // The whole body first: what it may cost is read from it before anything goes up.
    const chunks: Buffer[] = []
    let size = 0
    let held = 0
    let overflow = false
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (!overflow && size <= MAX_REQUEST_BODY && heldBytes + chunk.length <= MAX_HELD_BYTES) {
        chunks.push(chunk)
        held += chunk.length
        heldBytes += chunk.length
        return
      }
      overflow = true
      chunks.length = 0
      heldBytes -= held
      held = 0
    })
    // The exchange is over, however it ended: its body no longer counts against what the proxy holds.
    response.on('close', () => {
      heldBytes -= held
      held = 0
    })
    request.on('error', () => response.destroy())
    request.on('end', () => {
      if (response.destroyed) return
      const body = Buffer.concat(chunks)
      chunks.length = 0
      if (size > MAX_REQUEST_BODY) return refuseRequest(response, name, 'its body is over 64 MB', 413)
      if (overflow)
        return refuseRequest(response, name, 'the proxy holds at most 256 MB of request bodies at once', 413)
      if (endpoint.kind === 'free') return send(request, response, url, body, FREE_CALL)
      const encoding = header(request, 'content-encoding')
      const decoded = decodeBody(body, encoding)
      if (!decoded)
        return refuseRequest(
          response,
          name,
          `its body is encoded as ${safePath(encoding ?? '')}, which the meter cannot read`
        )
      let json: unknown
      try {
        json = JSON.parse(decoded.toString('utf8'))
      } catch {
        // What the proxy cannot read it cannot check (a background flag, the output limit): never forwarded.
        return refuseRequest(response, name, 'its body is not JSON the meter can read')
      }
      const pre = preauthorize(options.wire, json, decoded.length, modelInPath(url.pathname), options.price)
      if (pre.kind === 'refused') return refuseRequest(response, `${name} (${pre.name})`, pre.why)
      const call: ModelCall = { worstUsd: pre.worstUsd, model: pre.worst.model, hourCache: pre.hourCache }
      const pending: Pending = {
        worstUsd: pre.worstUsd,
        // A body that named no output limit goes up with the one it was reserved at (plain: its encoding dropped).
        start: () => send(request, response, url, pre.body ?? body, call, pre.body !== undefined),
        refuse: () => refuseForBudget(response, url.pathname, pre.worstUsd, pre.worst.model, pre.media)
      }
      response.on('close', () => {
        // The agent hung up while its request was held: it is no longer waiting.
        const at = waiting.indexOf(pending)
        if (at >= 0) waiting.splice(at, 1)
      })
      decide(pending)
    })
  }

  /** A request the meter cannot price: answered in the API's shape, named, and never forwarded. */
  const refuseRequest = (
    response: ServerResponse,
    name: string,
    why: string,
    status: 403 | 413 = 403
  ): void => {
    // Bounded as the refused hosts are; the warnings say when there were more.
    if (!refusedRequests.includes(name) && refusedRequests.length < MOST_REFUSALS_NAMED) {
      refusedRequests.push(name)
      refusedWhy.push(why)
    }
    answer(response, status, `ralph-action's model proxy does not forward ${name}: ${why}.`)
  }

  const answer = (response: ServerResponse, status: 402 | 403 | 413, message: string): void => {
    if (response.headersSent) return void response.socket?.end()
    // x-should-retry: the SDKs (Anthropic's, OpenAI's) obey it: a refusal is final.
    response.writeHead(status, { 'content-type': 'application/json', 'x-should-retry': 'false' })
    response.end(JSON.stringify(apiError(options.wire, status, message)))
  }

  const dollars = (usd: number): string => `$${usd.toFixed(4)}`

  /** A model call whose worst case does not fit: recorded, answered as a spent budget, never forwarded. */
  const refuseForBudget = (
    response: ServerResponse,
    path: string,
    worstUsd: number,
    model: string | undefined,
    media: string | undefined
  ): void => {
    const left = Math.max(0, options.budgetLeft?.() ?? 0)
    // Media is billed by what it decodes to: say why a small body is reserved at a whole input window.
    const why = media === undefined ? '' : ` (it carries ${media}: reserved at a whole input window)`
    const record: MeteredRequest = {
      seq: requests.length + 1,
      method: 'POST',
      path,
      status: 0,
      usage: { input: 0, output: 0, cache_read: 0, cache_write: 0, ...(model ? { model } : {}) },
      reservedUsd: worstUsd,
      refused: 'budget',
      error: `its worst case (${dollars(worstUsd)}${why}) does not fit in what is left of the budget (${dollars(left)})`
    }
    requests.push(record)
    options.onRequest?.(record)
    answer(
      response,
      402,
      `ralph-action's dollar budget is spent: this request may cost ${dollars(worstUsd)}${why} and ${dollars(left)} is left (max-cost). The run stops.`
    )
  }

  /** Dollars reserved by the requests in flight beyond what each has cost so far. */
  const reservedAhead = (): number =>
    [...inFlight].reduce((sum, f) => sum + Math.max(0, f.reservedUsd - (f.record.costUsd ?? 0)), 0)

  /** Starts a request whose worst case fits; holds it while others in flight may free their reservations. */
  const decide = (pending: Pending): void => {
    const left = options.budgetLeft?.()
    if (left === undefined || pending.worstUsd <= left - reservedAhead()) return pending.start()
    if (inFlight.size === 0) return pending.refuse()
    waiting.push(pending)
  }

  /** A request ended: those held may fit now. */
  const admitWaiting = (): void => {
    for (const pending of waiting.splice(0)) decide(pending)
  }

  /** The cap is crossed: every request in flight is cut, and none held goes up. */
  const cutAll = (): void => {
    for (const flight of [...inFlight]) flight.cut()
    for (const pending of waiting.splice(0)) pending.refuse()
  }
  const checkBudget = (): void => {
    if ((inFlight.size > 0 || waiting.length > 0) && options.overBudget?.()) cutAll()
  }

  const send = (
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    body: Buffer,
    call: ModelCall,
    /** The body was rewritten, so it goes up plain, whatever encoding the agent sent. */
    plain = false
  ): void => {
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
      checkBudget()
    }
    const finish = (): void => {
      if (ended) return
      ended = true
      inFlight.delete(flight)
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
      checkBudget()
      admitWaiting()
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
            402,
            "ralph-action's dollar budget is spent (max-cost): the request was cut. The run stops."
          )
        incoming?.destroy()
        outgoing.destroy()
        finish()
      }
    }
    inFlight.add(flight)
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

  const server = http.createServer(forward)
  const sockets = new Set<Duplex>()
  server.on('connection', socket => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    const target = request.url ?? ''
    const match = HOST_PORT.exec(target)
    const host = match?.[1] ?? target
    if (!match || !hostAllowed(host, options.allowedHosts ?? [])) {
      refuse(safeTarget(target))
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\nnot in allowed-hosts\n')
      return
    }
    const remote = net.connect(Number(match[2]), host)
    sockets.add(remote)
    remote.on('close', () => sockets.delete(remote))
    remote.on('connect', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) remote.write(head)
      remote.pipe(socket)
      socket.pipe(remote)
    })
    remote.on('error', error => {
      socket.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\n\r\n${error.message}\n`)
    })
    socket.on('close', () => remote.destroy())
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    placeholderKey,
    requests,
    refused,
    refusedRequests,
    refusedWhy,
    get refusedUnnamed() {
      return refusedUnnamed
    },
    refuse,
    namingRefusals,
    close: () =>
      new Promise<void>(resolve => {
        for (const socket of sockets) socket.destroy()
        agent.destroy()
        server.close(() => resolve())
      })
  }
}
