// The part both scripted servers share: a loopback HTTP server that records every request, reads (and
// decompresses) JSON bodies, and waits in a way that stops when the client hangs up.
import { appendFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import type { Usage } from './script.js'

/** One request as the server saw it, kept for assertions and for discovering what a CLI calls. */
export interface RecordedRequest {
  seq: number
  method: string
  url: string
  headers: Record<string, string | string[] | undefined>
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown
  /** How the server answered, e.g. `tool Write`, `text`, `http-error 529`, `404`. */
  answer: string
  /** The usage a model call's answer reported: what the upstream billed it. */
  billed?: Required<Usage>
  at: Date
}

export interface ScriptedServer {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:41234. */
  url: string
  requests: RecordedRequest[]
  /** Things a test should fail on: tools the CLI did not offer, a script that ran out of turns. */
  problems: string[]
  close(): Promise<void>
}

export interface ServerOptions {
  /** Append every request (JSON, one per line) to this file: handy when finding out what a CLI calls. */
  logFile?: string
}

export type Handler = (
  request: RecordedRequest,
  raw: IncomingMessage,
  response: ServerResponse,
  problems: string[]
) => Promise<void>

export async function startServer(options: ServerOptions, handle: Handler): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = []
  const problems: string[] = []
  const server = createServer((raw, response) => {
    void (async () => {
      const recorded: RecordedRequest = {
        seq: requests.length,
        method: raw.method ?? 'GET',
        url: raw.url ?? '/',
        headers: raw.headers,
        body: undefined,
        answer: '',
        at: new Date()
      }
      requests.push(recorded)
      try {
        recorded.body = parseBody(await readBody(raw), raw.headers['content-encoding'])
        if (options.logFile) appendFileSync(options.logFile, JSON.stringify(recorded) + '\n')
        await handle(recorded, raw, response, problems)
      } catch (error) {
        problems.push(`request ${recorded.seq} ${recorded.method} ${recorded.url}: ${String(error)}`)
        recorded.answer = 'server error'
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ error: { message: String(error) } }))
      }
    })()
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    problems,
    close: () =>
      new Promise<void>(resolve => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

function parseBody(bytes: Buffer, encoding: string | string[] | undefined): unknown {
  if (bytes.length === 0) return undefined
  const decoded =
    encoding === 'gzip'
      ? gunzipSync(bytes)
      : encoding === 'br'
        ? brotliDecompressSync(bytes)
        : encoding === 'deflate'
          ? inflateSync(bytes)
          : bytes
  if (encoding !== undefined && decoded === bytes && encoding !== 'identity')
    throw new Error(`cannot decode a request body with content-encoding ${String(encoding)}`)
  const text = decoded.toString('utf8')
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Resolves after `ms`, or early (with false) when the client has gone away. */
export function waitUnlessClosed(response: ServerResponse, ms: number): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(!isClosed(response))
  return new Promise(resolve => {
    const onClose = (): void => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      response.off('close', onClose)
      resolve(!isClosed(response))
    }, ms)
    response.once('close', onClose)
  })
}

export function isClosed(response: ServerResponse): boolean {
  return response.destroyed || response.writableEnded
}

/** Writes a server-sent event with both an `event:` line and a `data:` line, as both APIs do. */
export function sse(response: ServerResponse, type: string, data: Record<string, unknown>): void {
  if (isClosed(response)) return
  response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
}

export function startSse(response: ServerResponse, headers: Record<string, string> = {}): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers
  })
  response.flushHeaders()
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {}
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers })
  response.end(JSON.stringify(body))
}

/** Splits text into a few deltas, as a real model streams it. */
export function chunks(value: string, size = 24): string[] {
  const parts: string[] = []
  for (let i = 0; i < value.length; i += size) parts.push(value.slice(i, i + size))
  return parts.length > 0 ? parts : ['']
}

export function header(request: RecordedRequest, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}
