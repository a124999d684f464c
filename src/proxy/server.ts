// The model proxy: a loopback HTTP server the agent CLI takes for its model API. It holds the real API key
// (the agent has only a per-run placeholder), forwards each request over HTTPS to the upstream, passes the
// response through as it arrives, and reads the tokens from it on the way, so that every agent's cost is
// metered at the wire and a dollar budget can end a stream in the middle. The cap fails closed: only the
// endpoints the meter can price are forwarded, each model call is pre-authorised at its worst case against
// what is left, and every request in flight is cut once the cap is crossed. It also serves CONNECT for the
// hosts a workflow allows, and names every host and request it refuses. This file is the front door (who may ask
// what, refusals, CONNECT); an admitted request's exchange is upstream.ts's, the reservations budget-gate.ts's.
import { randomBytes } from 'node:crypto'
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import https from 'node:https'
import net, { type AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import tls from 'node:tls'
import { BudgetGate, type Pending } from './budget-gate.js'
import { preauthorize } from './preauth.js'
import type { MeteredRequest, ModelProxyOptions } from './types.js'
import { answer, FREE_CALL, send, type ModelCall, type Upstream } from './upstream.js'
import { decodeBody, endpointOf, MAX_REQUEST_BODY, modelInPath, unknownQuery } from './wire.js'

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

/** Request bodies held at once (read, waiting or going up): an agent cannot make the proxy's memory its weapon. */
const MAX_HELD_BYTES = 256 * 1024 * 1024

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

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** A path of the agent's, kept only in the characters of paths: it goes into the log and the record. */
const safePath = (path: string): string =>
  /^[A-Za-z0-9_.~:/%@-]{1,200}$/.test(path) ? path : 'a path with other characters'

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
  const gate = new BudgetGate(options)
  const up: Upstream = { options, upstream, agent, requests, gate }

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
      if (endpoint.kind === 'free') return send(up, request, response, url, body, FREE_CALL)
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
        start: () => {
          // The agent may have hung up while the repository's budget was asked.
          if (!response.destroyed)
            send(up, request, response, url, pre.body ?? body, call, pre.body !== undefined)
        },
        refuse: () => refuseForBudget(response, url.pathname, pre.worstUsd, pre.worst.model, pre.media),
        refuseForLedger: why =>
          refuseForBudget(response, url.pathname, pre.worstUsd, pre.worst.model, pre.media, why)
      }
      // The agent hung up while its request was held: it is no longer waiting.
      response.on('close', () => gate.withdraw(pending))
      gate.decide(pending)
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
    answer(response, options.wire, status, `ralph-action's model proxy does not forward ${name}: ${why}.`)
  }
  const dollars = (usd: number): string => `$${usd.toFixed(4)}`

  /** A model call whose worst case does not fit: recorded, answered as a spent budget, never forwarded. */
  const refuseForBudget = (
    response: ServerResponse,
    path: string,
    worstUsd: number,
    model: string | undefined,
    media: string | undefined,
    /** The repository's budget refused it, saying why. */
    ledger?: string
  ): void => {
    if (response.destroyed) return
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
      ...(ledger !== undefined
        ? { refused: 'ledger' as const, error: ledger }
        : {
            refused: 'budget' as const,
            error: `its worst case (${dollars(worstUsd)}${why}) does not fit in what is left of the budget (${dollars(left)})`
          })
    }
    requests.push(record)
    options.onRequest?.(record)
    answer(
      response,
      options.wire,
      402,
      ledger !== undefined
        ? `ralph-action's budget for the repository cannot grant this request (it may cost ${dollars(worstUsd)}${why}): ${ledger}. The run stops.`
        : `ralph-action's dollar budget is spent: this request may cost ${dollars(worstUsd)}${why} and ${dollars(left)} is left (max-cost). The run stops.`
    )
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
