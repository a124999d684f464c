// Smart HTTP git on loopback, in front of bare repositories (git http-backend as CGI), answering as GitHub
// does for `<server>/<owner>/<repo>`: reads are open, pushes need `Authorization: basic x-access-token:<token>`
// with a token the test allows. Served as http://github.localhost:<port>: libcurl (so git) resolves
// *.localhost to loopback, and @actions/artifact accepts a *.localhost GITHUB_SERVER_URL as github.com.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { applyFault, FaultSchedule, gitRoute } from '../support/faults.js'
import { serveHttpBackend } from '../support/git-http-backend.js'

export interface GitServer {
  /** For GITHUB_SERVER_URL and clone URLs: `http://github.localhost:<port>`. */
  url: string
  /** `owner/repo` → the bare repository's path. */
  repos: Map<string, string>
  /** Tokens allowed to push. */
  pushTokens: Set<string>
  /** Every request: method, path, the token it carried, the status (0: reset, stalled or dropped). */
  requests: { method: string; path: string; token?: string; status: number; fault?: string }[]
  /** Faults by route: `receive-pack-refs`, `receive-pack`, `upload-pack-refs`, `upload-pack`. */
  faults: FaultSchedule
  /** Called, synchronously, when a push arrives (its first request), before it is answered. */
  onPush?: () => void
  close(): Promise<void>
}

function tokenOf(req: IncomingMessage): string | undefined {
  const m = /^basic\s+(.+)$/i.exec(req.headers.authorization ?? '')
  if (!m) return undefined
  const [user, ...rest] = Buffer.from(m[1], 'base64').toString('utf8').split(':')
  return user === 'x-access-token' ? rest.join(':') : undefined
}

export async function startGitServer(): Promise<GitServer> {
  const repos = new Map<string, string>()
  const pushTokens = new Set<string>()
  const requests: GitServer['requests'] = []
  const faults = new FaultSchedule()
  const gitServer: GitServer = {
    url: '',
    repos,
    pushTokens,
    requests,
    faults,
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://github.localhost')
    const m = /^\/([^/]+)\/([^/]+?)(?:\.git)?(\/.*)$/.exec(url.pathname)
    const token = tokenOf(req)
    const entry: GitServer['requests'][number] = {
      method: req.method ?? 'GET',
      path: url.pathname + url.search,
      token,
      status: 0
    }
    requests.push(entry)
    const answer = (status: number, text: string, headers: Record<string, string> = {}) => {
      entry.status = status
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(text)
    }
    const dir = m ? repos.get(`${m[1]}/${m[2]}`) : undefined
    if (!m || !dir) return answer(404, 'Repository not found.\n')
    const isPush = url.searchParams.get('service') === 'git-receive-pack' || m[3] === '/git-receive-pack'
    if (isPush && url.searchParams.get('service') === 'git-receive-pack') gitServer.onPush?.()
    if (isPush && (!token || !pushTokens.has(token))) {
      // GitHub asks for credentials (401) when none are sent, and refuses (403) a token that may not write.
      return token
        ? answer(403, `Permission to ${m[1]}/${m[2]}.git denied to github-actions[bot].\n`)
        : answer(401, 'Invalid username or token.\n', { 'www-authenticate': 'Basic realm="GitHub"' })
    }
    const env = {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: dir.slice(0, dir.lastIndexOf('/')),
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: `/${dir.slice(dir.lastIndexOf('/') + 1)}${m[3]}`,
      REQUEST_METHOD: req.method ?? 'GET',
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      CONTENT_LENGTH: req.headers['content-length'] ?? '',
      HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
      GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      REMOTE_USER: isPush ? 'x-access-token' : '',
      REMOTE_ADDR: '127.0.0.1'
    }
    // With `dropAnswer` the backend does its work and the client hears nothing.
    const serve = (dropAnswer: boolean): void =>
      serveHttpBackend(req, res, env, { dropAnswer, onStatus: status => (entry.status = status) })
    const fault = faults.take(gitRoute(req.method ?? 'GET', url))
    if (!fault) return serve(false)
    entry.fault = fault
    applyFault(fault, req, res, {
      answer: (status, headers, message) => answer(status, `${message}\n`, headers),
      proceed: serve
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  gitServer.url = `http://github.localhost:${port}`
  return gitServer
}
