// `git http-backend` (part of git) as a CGI behind node:http: the smart-HTTP half both test git servers share.
import { spawn } from 'node:child_process'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { resetConnection } from './faults.js'

/**
 * Runs http-backend for one request and relays its answer. With `dropAnswer` the backend does its work (a
 * push lands) and the client hears nothing: the connection is reset instead.
 */
export function serveHttpBackend(
  req: IncomingMessage,
  res: ServerResponse,
  env: NodeJS.ProcessEnv,
  options: { dropAnswer: boolean; onStatus: (status: number) => void }
): void {
  const backend = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] })
  req.pipe(backend.stdin)
  // CGI output: headers, a blank line, the body.
  let head = Buffer.alloc(0)
  let started = false
  backend.stdout.on('data', (chunk: Buffer) => {
    if (options.dropAnswer) return
    if (started) return void res.write(chunk)
    head = Buffer.concat([head, chunk])
    const end = head.indexOf('\r\n\r\n')
    if (end < 0) return
    started = true
    let status = 200
    const headers: Record<string, string> = {}
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':')
      const name = line.slice(0, colon).trim()
      const value = line.slice(colon + 1).trim()
      if (name.toLowerCase() === 'status') status = parseInt(value, 10)
      else headers[name] = value
    }
    options.onStatus(status)
    res.writeHead(status, headers)
    res.write(head.subarray(end + 4))
  })
  backend.stderr.resume()
  backend.on('close', () => {
    if (options.dropAnswer) return resetConnection(req, res)
    if (started) return void res.end()
    options.onStatus(500)
    res.writeHead(500, { 'content-type': 'text/plain' }).end('git http-backend gave no answer\n')
  })
}
