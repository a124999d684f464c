// The model proxy: a loopback HTTP server the agent CLI takes for its model API. It holds the real API key
// (the agent has only a per-run placeholder), forwards each request over HTTPS to the upstream, passes the
// response through as it arrives, and reads the tokens from it on the way, so that every agent's cost is
// metered at the wire and a dollar budget can end a stream in the middle. It also serves CONNECT for the
// hosts a workflow allows, and names every host it refuses.
import { randomBytes } from 'node:crypto'
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import https from 'node:https'
import net, { type AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import tls from 'node:tls'
import type { UsageReport } from '../agents/types.js'
import { SseReader, WireUsage, type ModelWire } from './wire.js'

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
  /** Asked after every usage change: true ends the stream in flight (the budget is crossed). */
  overBudget?(): boolean
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
    const record: MeteredRequest = {
      seq: requests.length + 1,
      method: request.method ?? 'GET',
      path: url.pathname,
      status: 0,
      usage: { input: 0, output: 0, cache_read: 0, cache_write: 0 }
    }
    requests.push(record)
    const meter = new WireUsage(options.wire, modelInPath(url.pathname))
    const headers: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(request.headers))
      if (value !== undefined && !NOT_FORWARDED.has(name)) headers[name] = value
    Object.assign(headers, keyHeader(options.wire, options.apiKey), { 'accept-encoding': 'identity' })
    const basePath = upstream.pathname.replace(/\/$/, '')
    const target = `${basePath}${url.pathname}${url.search}`
    const send = upstream.protocol === 'https:' ? https.request : http.request
    const outgoing = send({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port || undefined,
      method: request.method,
      path: target,
      headers: { ...headers, host: upstream.host },
      agent
    })
    const settle = (): void => {
      record.costUsd = meter.seen ? options.price(meter.usage) : undefined
      record.usage = { ...meter.usage }
      options.onRequest?.(record)
    }
    const fail = (message: string): void => {
      if (record.error === undefined) record.error = message
    }
    // The request's model, for a response that does not name it (Gemini names it in the path).
    let requestBody = Buffer.alloc(0)
    request.on('data', (chunk: Buffer) => {
      if (requestBody.length < 64 * 1024) requestBody = Buffer.concat([requestBody, chunk])
    })
    request.on('end', () => {
      if (meter.usage.model) return
      const model = /"model"\s*:\s*"([^"]+)"/.exec(requestBody.toString('utf8'))?.[1]
      if (model) meter.usage.model = model
    })
    request.pipe(outgoing)
    response.on('close', () => {
      // The agent hung up (or was killed): the upstream request goes too.
      if (!response.writableFinished) {
        fail('the agent closed the connection')
        outgoing.destroy()
      }
    })
    outgoing.on('error', error => {
      fail(`upstream ${upstream.host}: ${error.message}`)
      if (!response.headersSent) {
        response.writeHead(502, { 'content-type': 'application/json' })
        response.end(
          JSON.stringify({ error: { message: `model proxy: upstream ${upstream.host}: ${error.message}` } })
        )
      } else response.destroy()
      settle()
    })
    outgoing.on('response', incoming => {
      record.status = incoming.statusCode ?? 0
      const out: Record<string, string | string[]> = {}
      for (const [name, value] of Object.entries(incoming.headers))
        if (value !== undefined && !NOT_RETURNED.has(name)) out[name] = value
      response.writeHead(record.status, incoming.statusMessage, out)
      response.flushHeaders()
      const type = String(incoming.headers['content-type'] ?? '')
      const encoded = (incoming.headers['content-encoding'] ?? 'identity') !== 'identity'
      const changed = (): void => {
        settle()
        if (options.overBudget?.()) {
          record.cut = true
          incoming.destroy()
          // What was forwarded still arrives, then the connection ends without the stream's end.
          response.socket?.end()
          settle()
        }
      }
      const sse =
        !encoded && type.includes('text/event-stream')
          ? new SseReader(json => meter.read(json) && changed())
          : undefined
      const json = !encoded && !sse && type.includes('json') ? ([] as Buffer[]) : undefined
      let jsonBytes = 0
      const ok = record.status >= 200 && record.status < 300
      if (ok && !sse && !json) record.unread = true
      incoming.on('data', (chunk: Buffer) => {
        // Forwarded first, read after: the agent never waits for the meter.
        if (!response.write(chunk)) {
          incoming.pause()
          response.once('drain', () => incoming.resume())
        }
        sse?.push(chunk)
        if (json && jsonBytes < MAX_JSON_BODY) {
          json.push(chunk)
          jsonBytes += chunk.length
        }
      })
      incoming.on('end', () => {
        sse?.end()
        if (json && jsonBytes < MAX_JSON_BODY) {
          try {
            if (meter.read(JSON.parse(Buffer.concat(json).toString('utf8')))) changed()
          } catch {
            // Not JSON after all: what it cost cannot be read.
            if (ok) record.unread = true
          }
        } else if (json && ok) record.unread = true
        response.end()
        settle()
      })
      incoming.on('error', error => {
        fail(error.message)
        response.destroy()
        settle()
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
