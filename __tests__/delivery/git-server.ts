// A git server on loopback that answers like github.com does for git over HTTPS: `git http-backend` (part of
// git) behind node:http, with GitHub's auth rules (basic auth as x-access-token; anonymous fetch of a public
// repo; 401 for a bad token, 403 "Permission to … denied" for a token without write access). Every request's
// Authorization header is recorded, so a test can prove what reached the server — and what did not.
// Rejections GitHub makes on push are reproduced with a proc-receive hook, which lets the server answer each
// ref with GitHub's own reason text (` ! [remote rejected] b -> b (refusing to allow a GitHub App …)`).
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { applyFault, FaultSchedule, gitRoute, type FaultKind } from '../support/faults.js'
import { serveHttpBackend } from '../support/git-http-backend.js'
import { tempDir } from '../git/temp-repo.js'

export interface GitRequest {
  method: string
  path: string
  service: 'upload-pack' | 'receive-pack' | 'other'
  /** The Authorization header as received. */
  authorization?: string
  /** The token from a basic `x-access-token:<token>` header. */
  token?: string
  /** 0 when the connection was reset, stalled or its answer dropped. */
  status: number
  fault?: FaultKind
}

export type Access = 'write' | 'read'

export interface GitServer {
  /** Stands for GITHUB_SERVER_URL (an origin). */
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
  close(): Promise<void>
}

export const WRITE_TOKEN = 'ghs_writeToken0123456789'

export function basicHeaderOf(token: string): string {
  return `basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`
}

export async function startGitServer(
  options: { owner?: string; repo?: string; private?: boolean } = {}
): Promise<GitServer> {
  const owner = options.owner ?? 'acme'
  const name = options.repo ?? 'widgets'
  const root = tempDir('ralph-git-server-')
  const bareDir = path.join(root, owner, `${name}.git`)
  mkdirSync(path.dirname(bareDir), { recursive: true })
  const bare = (...args: string[]) =>
    execFileSync('git', args, { cwd: bareDir, encoding: 'utf8', env: cleanEnv() })
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', bareDir], { env: cleanEnv() })
  bare('config', 'uploadpack.allowAnySHA1InWant', 'true')
  bare('config', 'receive.denyDeleteCurrent', 'false')

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
    close: () =>
      new Promise<void>(resolve => {
        http.close(() => {
          rmSync(root, { recursive: true, force: true })
          resolve()
        })
        http.closeAllConnections()
      })
  }

  const http = createServer((req, res) => handle(server, root, req, res))
  await new Promise<void>(resolve => http.listen(0, '127.0.0.1', resolve))
  server.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  server.cloneUrl = `${server.url}/${owner}/${name}`
  return server
}

function handle(server: GitServer, root: string, req: IncomingMessage, res: ServerResponse): void {
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
    path: url.pathname,
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
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: url.pathname,
    REQUEST_METHOD: req.method ?? 'GET',
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
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
