// The git server of every test: smart HTTP on loopback in front of one bare repository, answering as
// github.com does for `<server>/<owner>/<repo>`: `git http-backend` (part of git) as a CGI behind node:http,
// with GitHub's auth rules (basic auth as x-access-token; anonymous fetch of a public repository; 401 for a
// missing or unknown token, 403 "Permission to … denied to github-actions[bot]." for a token without write
// access, as GitHub answers a job token with `contents: read`). Every request's Authorization header is
// recorded, so a test can prove what reached the server — and what did not.
// Served as http://github.localhost:<port>: libcurl (so git) resolves *.localhost to loopback, and
// @actions/artifact accepts a *.localhost GITHUB_SERVER_URL as github.com.
// Rejections GitHub makes on push are reproduced with a proc-receive hook, which lets the server answer each
// ref with GitHub's own reason text (` ! [remote rejected] b -> b (refusing to allow a GitHub App …)`).
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { applyFault, FaultSchedule, gitRoute, resetConnection, type FaultKind } from './faults.js'
import { tempDir } from '../git/temp-repo.js'

export interface GitRequest {
  method: string
  /** The path with its query (`/acme/widgets/info/refs?service=git-receive-pack`). */
  path: string
  service: 'upload-pack' | 'receive-pack' | 'other'
  /** The Authorization header as received. */
  authorization?: string | undefined
  /** The token from a basic `x-access-token:<token>` header. */
  token?: string | undefined
  /** 0 when the connection was reset, stalled or its answer dropped. */
  status: number
  fault?: FaultKind
}

export type Access = 'write' | 'read'

export interface GitServer {
  /** Stands for GITHUB_SERVER_URL (an origin): `http://github.localhost:<port>`. */
  url: string
  /** owner/repo */
  repository: string
  /** `<url>/<owner>/<repo>`, the URL actions/checkout configures as origin. */
  cloneUrl: string
  /** The bare repository on disk. */
  bareDir: string
  requests: GitRequest[]
  /** token → access. Anything else is refused (401 for an unknown token, as GitHub does). */
  tokens: Map<string, Access>
  /** A private repository needs a token to fetch too. */
  private: boolean
  /** The login a token acts as, for GitHub's 403 message. */
  actor: string
  /** Runs git in the bare repository. */
  git(...args: string[]): string
  /** Commits files onto a branch of the remote, as someone else pushing would (no HTTP, no auth). */
  commitOnRemote(branch: string, files: Record<string, string>, message?: string): string
  /**
   * From now on, refuse pushes the way GitHub does: `reason` as the ref's rejection reason, `remoteLines`
   * on stderr ("remote: …"). With `onlyIfTouching`, only pushes whose new commits change paths under it.
   */
  rejectPushes(rejection: { reason: string; remoteLines?: string[]; onlyIfTouching?: string }): void
  acceptPushes(): void
  /** Faults by route: `receive-pack-refs`, `receive-pack`, `upload-pack-refs`, `upload-pack`. */
  faults: FaultSchedule
  /**
   * The push requests (receive-pack, refused or not) made with `token`: a test asks whether a job with that
   * token tried to push at all. A token without write access is refused at the first, as GitHub does.
   */
  pushAttemptsBy(token: string): GitRequest[]
  /** Called, synchronously, when a push's pack arrives (a dry run sends none), before it is answered. */
  onPush?: () => void
  close(): Promise<void>
}

export const WRITE_TOKEN = 'ghs_writeToken0123456789'

export function basicHeaderOf(token: string): string {
  return `basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`
}

/**
 * Serves `bareDir` (an existing bare repository, left in place on close) or, without it, a new empty one
 * whose `main` is the default branch. WRITE_TOKEN may push; add more to `tokens`.
 */
export async function startGitServer(
  options: { owner?: string; repo?: string; private?: boolean; bareDir?: string } = {}
): Promise<GitServer> {
  const owner = options.owner ?? 'acme'
  const name = options.repo ?? 'widgets'
  const root = options.bareDir ? undefined : tempDir('ralph-git-server-')
  const bareDir = options.bareDir ?? path.join(root as string, owner, `${name}.git`)
  const bare = (...args: string[]) =>
    execFileSync('git', args, { cwd: bareDir, encoding: 'utf8', env: cleanEnv() })
  if (!options.bareDir) {
    mkdirSync(path.dirname(bareDir), { recursive: true })
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', bareDir], { env: cleanEnv() })
    bare('config', 'uploadpack.allowAnySHA1InWant', 'true')
    bare('config', 'receive.denyDeleteCurrent', 'false')
  }

  const requests: GitRequest[] = []
  const tokens = new Map<string, Access>([[WRITE_TOKEN, 'write']])
  const server: GitServer = {
    url: '',
    repository: `${owner}/${name}`,
    cloneUrl: '',
    bareDir,
    requests,
    tokens,
    private: options.private ?? false,
    actor: 'github-actions[bot]',
    git: bare,
    commitOnRemote(branch, files, message = 'someone else') {
      const work = tempDir('ralph-remote-commit-')
      const git = (...args: string[]) =>
        execFileSync('git', args, { cwd: work, encoding: 'utf8', env: cleanEnv() }).trim()
      try {
        git('init', '--quiet')
        git('config', 'user.name', 'Someone')
        git('config', 'user.email', 'someone@example.com')
        const exists = bare('for-each-ref', `refs/heads/${branch}`).trim() !== ''
        if (exists) {
          git('fetch', '--quiet', bareDir, `refs/heads/${branch}`)
          git('checkout', '--quiet', '-B', 'work', 'FETCH_HEAD')
        } else {
          git('checkout', '--quiet', '-b', 'work')
        }
        for (const [file, content] of Object.entries(files)) {
          mkdirSync(path.dirname(path.join(work, file)), { recursive: true })
          writeFileSync(path.join(work, file), content)
        }
        git('add', '-A')
        git('commit', '--quiet', '--allow-empty', '-m', message)
        git('push', '--quiet', bareDir, `HEAD:refs/heads/${branch}`)
        return git('rev-parse', 'HEAD')
      } finally {
        rmSync(work, { recursive: true, force: true })
      }
    },
    rejectPushes(rejection) {
      writeFileSync(path.join(bareDir, 'rejection.json'), JSON.stringify(rejection))
      const hook = path.join(bareDir, 'hooks', 'proc-receive')
      writeFileSync(hook, PROC_RECEIVE_HOOK)
      chmodSync(hook, 0o755)
      bare('config', 'receive.procReceiveRefs', 'refs/heads')
    },
    acceptPushes() {
      bare('config', '--unset-all', 'receive.procReceiveRefs')
    },
    faults: new FaultSchedule(),
    pushAttemptsBy: token => requests.filter(r => r.service === 'receive-pack' && r.token === token),
    close: () =>
      new Promise<void>(resolve => {
        http.close(() => {
          if (root) rmSync(root, { recursive: true, force: true })
          resolve()
        })
        http.closeAllConnections()
      })
  }

  const http = createServer((req, res) => handle(server, req, res))
  await new Promise<void>(resolve => http.listen(0, '127.0.0.1', resolve))
  server.url = `http://github.localhost:${(http.address() as AddressInfo).port}`
  server.cloneUrl = `${server.url}/${owner}/${name}`
  return server
}

function handle(server: GitServer, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost')
  const serviceParam = url.searchParams.get('service') ?? url.pathname.split('/').pop() ?? ''
  const service = serviceParam.endsWith('receive-pack')
    ? 'receive-pack'
    : serviceParam.endsWith('upload-pack')
      ? 'upload-pack'
      : 'other'
  const authorization = req.headers.authorization
  const basic = /^basic\s+(\S+)$/i.exec(authorization ?? '')
  const credentials = basic ? Buffer.from(basic[1], 'base64').toString('utf8') : undefined
  const token = credentials?.startsWith('x-access-token:')
    ? credentials.slice('x-access-token:'.length)
    : undefined
  const entry: GitRequest = {
    method: req.method ?? 'GET',
    path: url.pathname + url.search,
    service,
    authorization,
    token,
    status: 0
  }
  server.requests.push(entry)
  const answer = (status: number, text: string, headers: Record<string, string> = {}) => {
    entry.status = status
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(text)
  }
  // `/<owner>/<repo>[.git]/<rest>`: any other repository is not found.
  const route = /^\/([^/]+\/[^/]+?)(?:\.git)?(\/.*)$/.exec(url.pathname)
  if (!route || route[1] !== server.repository) return answer(404, 'Repository not found.\n')
  if (req.method === 'POST' && service === 'receive-pack') server.onPush?.()
  const access = token === undefined ? undefined : server.tokens.get(token)
  const needsAuth = service === 'receive-pack' || server.private
  if (needsAuth && authorization === undefined)
    return answer(401, 'Authentication required\n', { 'www-authenticate': 'Basic realm="GitHub"' })
  if (authorization !== undefined && access === undefined)
    return answer(
      401,
      'Invalid username or token. Password authentication is not supported for Git operations.\n',
      {
        'www-authenticate': 'Basic realm="GitHub"'
      }
    )
  if (service === 'receive-pack' && access !== 'write')
    return answer(403, `Permission to ${server.repository}.git denied to ${server.actor}.\n`)

  const env: NodeJS.ProcessEnv = {
    ...cleanEnv(),
    GIT_PROJECT_ROOT: path.dirname(server.bareDir),
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: `/${path.basename(server.bareDir)}${route[2]}`,
    REQUEST_METHOD: req.method ?? 'GET',
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    CONTENT_LENGTH: req.headers['content-length'] ?? '',
    REMOTE_ADDR: '127.0.0.1'
  }
  if (access) env.REMOTE_USER = 'x-access-token'
  if (req.headers['git-protocol']) env.GIT_PROTOCOL = String(req.headers['git-protocol'])
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = String(req.headers['content-encoding'])
  const serve = (dropAnswer: boolean): void =>
    serveHttpBackend(req, res, env, { dropAnswer, onStatus: status => (entry.status = status) })
  const fault = server.faults.take(gitRoute(entry.method, url))
  if (!fault) return serve(false)
  entry.fault = fault
  applyFault(fault, req, res, {
    answer: (status, headers, message) => answer(status, `${message}\n`, headers),
    proceed: serve
  })
}

/**
 * Runs `git http-backend` (a CGI) for one request and relays its answer. With `dropAnswer` the backend does its work (a
 * push lands) and the client hears nothing: the connection is reset instead.
 */
function serveHttpBackend(
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

/** The test process's environment without anything that would change how git behaves (the server is not the job). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value
  return { ...env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' }
}

// proc-receive speaks pkt-lines with receive-pack: version, then the commands, then one ok/ng per ref.
const PROC_RECEIVE_HOOK = `#!/usr/bin/env node
const fs = require('fs')
const { execFileSync } = require('child_process')
const rejection = JSON.parse(fs.readFileSync('rejection.json', 'utf8'))
let buf = Buffer.alloc(0)
const packets = []
let wake = null
process.stdin.on('data', d => {
  buf = Buffer.concat([buf, d])
  while (buf.length >= 4) {
    const len = parseInt(buf.subarray(0, 4).toString(), 16)
    if (len === 0) { packets.push(null); buf = buf.subarray(4); continue }
    if (buf.length < len) break
    packets.push(buf.subarray(4, len).toString().replace(/\\n$/, ''))
    buf = buf.subarray(len)
  }
  if (wake && packets.length) { const w = wake; wake = null; w() }
})
const next = () => new Promise(r => (packets.length ? r(packets.shift()) : (wake = () => r(packets.shift()))))
const section = async () => { const out = []; for (;;) { const p = await next(); if (p === null) return out; out.push(p) } }
const pkt = s => { const b = Buffer.from(s + '\\n'); return (b.length + 4).toString(16).padStart(4, '0') + b.toString() }
;(async () => {
  await section()
  process.stdout.write(pkt('version=1') + '0000')
  const commands = await section()
  const answers = []
  for (const command of commands) {
    const [oldSha, newSha, ref] = command.split(' ')
    let reject = true
    if (rejection.onlyIfTouching) {
      const range = /^0+$/.test(oldSha) ? [newSha, '--not', '--all'] : [oldSha + '..' + newSha]
      const touched = execFileSync('git', ['log', '--format=', '--name-only', ...range, '--', rejection.onlyIfTouching], { encoding: 'utf8' }).trim()
      reject = touched !== ''
    }
    if (reject) {
      for (const line of rejection.remoteLines || []) process.stderr.write(line + '\\n')
      answers.push(pkt('ng ' + ref + ' ' + rejection.reason))
    } else {
      execFileSync('git', ['update-ref', ref, newSha, /^0+$/.test(oldSha) ? '' : oldSha])
      answers.push(pkt('ok ' + ref))
    }
  }
  process.stdout.write(answers.join('') + '0000')
  process.stdin.destroy()
})()
`
