// A local stand-in for api.github.com: every request is routed and checked against GitHub's OpenAPI
// description before a stateful handler answers it. Requests the real API would reject are answered as
// GitHub answers them AND recorded in `violations`, so a test can require that none happened.
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { applyFault, FaultSchedule, resetConnection, type FaultKind } from '../faults.js'
import { EventPayloads } from './events.js'
import { answerGraphql } from './graphql.js'
import {
  errorBody,
  GitHubError,
  handlers,
  JOB_LOG_PATH,
  jobLogSignature,
  type HandlerContext,
  type HandlerResult
} from './handlers.js'
import {
  loadDescription,
  OperationValidators,
  Router,
  SCHEMA_BASE,
  type JsonSchema,
  type Operation,
  type SchemaProblem
} from './openapi.js'
import { Renderer } from './render.js'
import { GitHubState, type GitHubStateOptions } from './state.js'

export interface GitHubApiOptions extends GitHubStateOptions {
  /** Check every response body against the description too (default true; ~0.1-0.5 s to compile per big schema). */
  checkResponses?: boolean
  /** Answer 401 to requests without a token (default true: the action always sends one). */
  requireAuth?: boolean
  /** Record query/body fields the description does not know (GitHub ignores them silently). Default true. */
  flagUnknownFields?: boolean
}

export interface RecordedRequest {
  method: string
  path: string
  query: Record<string, string | string[]>
  operationId?: string | undefined
  /** The token from the Authorization header, if any. */
  token?: string | undefined
  /** The login that token acts as. */
  actor: string
  /** The X-GitHub-Api-Version header, if sent. */
  apiVersion?: string | undefined
  body: unknown
  /** The status answered; 0 when the connection was reset, stalled or its answer dropped. */
  status: number
  /** The fault the schedule injected into this request, if any. */
  fault?: FaultKind
}

export type ViolationKind =
  | 'no-route'
  | 'path-parameter'
  | 'query'
  | 'unknown-field'
  | 'body'
  | 'json'
  | 'auth'
  | 'user-agent'
  | 'api-version'
  /** A GraphQL document GitHub would refuse, or a deprecated field the action must not rely on. */
  | 'graphql'
  /** A request to the blob store (a job log's download URL) that it refuses: unsigned, expired, with a token. */
  | 'blob'

export interface Violation {
  method: string
  path: string
  operationId?: string | undefined
  kind: ViolationKind
  message: string
}

export interface Unimplemented {
  method: string
  path: string
  operationId: string
}

export interface ResponseProblem {
  operationId: string
  status: number
  message: string
}

export interface GitHubApi {
  /** Base URL for Octokit (`baseUrl`) and GITHUB_API_URL. */
  url: string
  state: GitHubState
  /** Every request, in order. */
  requests: RecordedRequest[]
  /**
   * `METHOD /path` of every request but GET and HEAD made with `token`, in order, whether it was answered or
   * refused (a read-only token's are refused): what a job with that token tried to change.
   */
  writesBy(token: string): string[]
  /** Requests the real API would have rejected, or fields it would have ignored. Expect `[]`. */
  violations: Violation[]
  /** Valid requests for operations the stand-in does not implement (answered 501). Expect `[]`. */
  unimplemented: Unimplemented[]
  /** Stand-in bugs: responses that do not match the description, handler crashes. Expect `[]` too. */
  responseProblems: ResponseProblem[]
  /** Environment for a process that should talk to this stand-in the way an action does. */
  env: Record<string, string>
  /** Webhook payloads (for GITHUB_EVENT_PATH) that agree with the state: same numbers, ids and users. */
  events: EventPayloads
  /** GitHub's bad minutes, by operationId: the Nth valid request of an operation fails as planned. */
  faults: FaultSchedule
  close(): Promise<void>
}

const API_VERSIONS = ['2022-11-28', '2026-03-10']

let description: ReturnType<typeof loadDescription> | undefined
let router: Router | undefined
let validators: OperationValidators | undefined

function shared() {
  description ??= loadDescription()
  router ??= new Router(description.operations)
  validators ??= new OperationValidators(description.schemas)
  return { description, router, validators }
}

/**
 * Checks a webhook payload against GitHub's schema for it, e.g. `checkEventPayload('issue-comment-created', p)`
 * (the names of the description's `webhook-*` schemas). Returns the problems; [] when it conforms.
 */
export function checkEventPayload(webhook: string, payload: unknown): SchemaProblem[] {
  const { description, validators } = shared()
  if (!(`webhook-${webhook}` in description.schemas))
    throw new Error(`GitHub's description has no webhook ${webhook}`)
  const schema = { $ref: `${SCHEMA_BASE}webhook-${webhook}` }
  return validators.check(`webhook ${webhook}`, schema, payload)
}

export async function startGitHubApi(options: GitHubApiOptions = {}): Promise<GitHubApi> {
  const { router, validators } = shared()
  const state = new GitHubState(options)
  const requests: RecordedRequest[] = []
  const violations: Violation[] = []
  const unimplemented: Unimplemented[] = []
  const responseProblems: ResponseProblem[] = []
  // The API URL is known once the server listens; bodies are rendered only after that.
  const render = new Renderer(state, '')
  const faults = new FaultSchedule()
  let requestCount = 0

  const server = createServer((req, res) => {
    void readBody(req).then(raw => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`)
      const token = tokenOf(req)
      const actor = state.actorFor(token)
      const entry: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: queryObject(url),
        token,
        actor,
        apiVersion: req.headers['x-github-api-version'] as string | undefined,
        body: undefined,
        status: 0
      }
      requests.push(entry)
      const violation = (kind: ViolationKind, message: string, operationId?: string) =>
        violations.push({ method: entry.method, path: entry.path, operationId, kind, message })
      const send = (result: HandlerResult, operation?: Operation) => {
        entry.status = result.status
        if (operation && options.checkResponses !== false) checkResponse(operation, result)
        const headers: Record<string, string> = {
          'x-github-request-id': `STANDIN:${++requestCount}`,
          'x-github-api-version-selected': '2022-11-28',
          'x-ratelimit-limit': '5000',
          'x-ratelimit-remaining': String(Math.max(0, 5000 - requestCount)),
          'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
          'x-ratelimit-used': String(requestCount),
          'x-ratelimit-resource': 'core',
          ...result.headers
        }
        if (result.body === undefined) {
          res.writeHead(result.status, headers).end()
          return
        }
        headers['content-type'] = 'application/json; charset=utf-8'
        headers['x-github-media-type'] = 'github.v3; format=json'
        res.writeHead(result.status, headers).end(JSON.stringify(result.body))
      }
      const checkResponse = (operation: Operation, result: HandlerResult) => {
        // 401 is GitHub-wide and rarely listed per operation; 501 is the stand-in's own answer.
        if (result.status === 501 || result.status === 401) return
        const status = String(result.status)
        const documented =
          status in operation.responses ? operation.responses[status] : operation.responses.default
        // Any operation answers 404 for a resource (or repository) that does not exist, listed or not; a
        // handler marks the other errors GitHub gives beyond the description (a dispatch's 422s). Both: basic-error.
        if (documented === undefined && (result.status === 404 || result.unlisted)) {
          const key = 'basic-error response'
          const schema = { $ref: `${SCHEMA_BASE}basic-error` }
          for (const problem of validators.check(key, schema, result.body)) {
            const message = `${problem.pointer || '/'}: ${problem.message}`
            responseProblems.push({ operationId: operation.operationId, status: result.status, message })
          }
          return
        }
        if (documented === undefined) {
          const message = `status ${result.status} is not documented for ${operation.operationId}`
          responseProblems.push({ operationId: operation.operationId, status: result.status, message })
          return
        }
        if (!documented || result.body === undefined) return
        const key = `${operation.method} ${operation.path} ${result.status} response`
        for (const problem of validators.check(key, documented, result.body)) {
          const message = `${problem.pointer || '/'}: ${problem.message}`
          responseProblems.push({ operationId: operation.operationId, status: result.status, message })
        }
      }

      // GitHub refuses requests without a User-Agent before anything else.
      if (!req.headers['user-agent']) {
        violation('user-agent', 'request without a User-Agent header')
        const message =
          'Request forbidden by administrative rules. Please make sure your request has a User-Agent header ' +
          '(https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required).'
        return send({ status: 403, body: { message } })
      }

      // The description is for 2022-11-28 and lists 2026-03-10's breaking changes (not applied here).
      if (entry.apiVersion !== undefined && !API_VERSIONS.includes(entry.apiVersion)) {
        violation('api-version', `unsupported X-GitHub-Api-Version ${entry.apiVersion}`)
        const message = `Unsupported 'X-GitHub-Api-Version' header value: ${entry.apiVersion}`
        return send({
          status: 400,
          body: errorBody(400, message, 'https://docs.github.com/rest/about-the-rest-api/api-versions')
        })
      }

      // Not REST: GitHub's GraphQL endpoint, and the blob store a job log's URL points to.
      if (url.pathname === '/graphql' && entry.method === 'POST') {
        if (!token) {
          violation('auth', 'GraphQL request without a token')
          return send({
            status: 401,
            body: {
              message: 'This endpoint requires you to be authenticated.',
              documentation_url:
                'https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql'
            }
          })
        }
        let body: unknown
        try {
          body = JSON.parse(raw.toString('utf8'))
        } catch {
          violation('json', 'GraphQL body is not JSON')
          return send({ status: 400, body: { message: 'Problems parsing JSON' } })
        }
        entry.body = body
        const injected = state.failures.next.findIndex(f => f.operationId === 'graphql')
        if (injected >= 0) {
          const failure = state.failures.next[injected]
          failure.times = (failure.times ?? 1) - 1
          if (failure.times <= 0) state.failures.next.splice(injected, 1)
          entry.operationId = 'graphql'
          return send({ status: failure.status, body: failure.body ?? { message: 'Injected failure' } })
        }
        const answer = answerGraphql(state, {
          body,
          actor,
          readOnly: token !== undefined && state.readOnlyTokens.has(token)
        })
        entry.operationId = `graphql:${answer.operation}`
        for (const problem of answer.problems) violation('graphql', problem, entry.operationId)
        return send({ status: answer.status, body: answer.body })
      }
      if (url.pathname.startsWith(JOB_LOG_PATH) && entry.method === 'GET') {
        const jobId = Number(url.pathname.slice(JOB_LOG_PATH.length))
        const job = state.job(jobId)
        const expires = Number(url.searchParams.get('se'))
        const signed =
          job?.log !== undefined &&
          url.searchParams.get('sig') === jobLogSignature(state, jobId, expires) &&
          expires * 1000 >= state.clock().getTime()
        const authorization = req.headers.authorization !== undefined
        const range = req.headers.range
        const answerBlob = (status: number, text: string | Buffer, headers: Record<string, string> = {}) => {
          const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8')
          entry.status = status
          state.logDownloads.push({ jobId, authorization, range, status, bytes: bytes.length })
          res.writeHead(status, { 'content-length': String(bytes.length), ...headers }).end(bytes)
        }
        // Azure's blob store authenticates by the URL's signature and refuses a second mechanism.
        if (authorization) {
          violation('blob', 'the job log download URL was sent an Authorization header (the API token)')
          return answerBlob(400, 'InvalidAuthenticationInfo: only one authentication mechanism is allowed')
        }
        if (!signed) {
          violation('blob', 'the job log download URL is not signed, or has expired')
          return answerBlob(403, 'AuthenticationFailed: signature not valid or expired')
        }
        const log = Buffer.from(job.log as string, 'utf8')
        const wanted = /^bytes=(\d+)-(\d*)$/.exec(String(range ?? ''))
        if (wanted) {
          const start = Number(wanted[1])
          const end = Math.min(log.length - 1, wanted[2] ? Number(wanted[2]) : log.length - 1)
          if (start >= log.length) return answerBlob(416, '', { 'content-range': `bytes */${log.length}` })
          return answerBlob(206, log.subarray(start, end + 1), {
            'content-type': 'text/plain; charset=utf-8',
            'content-range': `bytes ${start}-${end}/${log.length}`,
            'accept-ranges': 'bytes'
          })
        }
        return answerBlob(200, log, { 'content-type': 'text/plain; charset=utf-8', 'accept-ranges': 'bytes' })
      }

      const match = router.match(entry.method, url.pathname)
      if (!match) {
        const wrongMethod = router.matchesAnyMethod(url.pathname)
        violation(
          'no-route',
          wrongMethod ? `${entry.method} is not an operation on this path` : 'no such route'
        )
        return send({ status: 404, body: errorBody(404, 'Not Found', 'https://docs.github.com/rest') })
      }
      const { operation } = match
      entry.operationId = operation.operationId
      const reject = (kind: ViolationKind, status: number, message: string) => {
        violation(kind, message, operation.operationId)
        return send({ status, body: errorBody(status, message, operation.docs) }, operation)
      }

      if (!token && options.requireAuth !== false) {
        return reject('auth', 401, 'Requires authentication')
      }

      // A job token without the write permission is refused before the request is looked at; GitHub answers
      // this 403 on every operation, listed or not, so the response is not checked against the operation.
      if (token !== undefined && state.readOnlyTokens.has(token) && !isRead(entry.method)) {
        const message = 'Resource not accessible by integration'
        return send({ status: 403, body: errorBody(403, message, operation.docs) })
      }

      // Path parameters: a value of the wrong type means no such resource.
      const params: Record<string, unknown> = { ...match.pathParams }
      const pathProblems = checkParams(validators, operation, 'path', params)
      if (pathProblems.length > 0) {
        violation('path-parameter', pathProblems.join(' '), operation.operationId)
        return send({ status: 404, body: errorBody(404, 'Not Found', operation.docs) }, operation)
      }

      // Query parameters.
      const query = collectQuery(operation, url)
      const known = new Set(operation.parameters.filter(p => p.in === 'query').map(p => p.name))
      const unknownQuery = Object.keys(query).filter(k => !known.has(k))
      if (unknownQuery.length > 0 && options.flagUnknownFields !== false) {
        violation(
          'unknown-field',
          `query parameter(s) ${unknownQuery.join(', ')} not in the description (GitHub ignores them)`,
          operation.operationId
        )
      }
      const queryProblems = checkParams(validators, operation, 'query', query)
      if (queryProblems.length > 0)
        return reject('query', 422, `Invalid request.\n\n${queryProblems.join('\n')}`)
      Object.assign(params, query)

      // Body.
      let body: unknown = undefined
      const bodySchema = jsonBodySchema(operation)
      if (raw.length > 0) {
        const contentType = String(req.headers['content-type'] ?? '')
        if (bodySchema !== undefined || contentType.includes('json')) {
          try {
            body = JSON.parse(raw.toString('utf8'))
          } catch {
            return reject('json', 400, 'Problems parsing JSON')
          }
        } else {
          body = raw
        }
      }
      entry.body = body
      if (bodySchema !== undefined) {
        if (body === undefined && operation.requestBody?.required) {
          return reject('body', 422, 'Invalid request.\n\nA JSON request body is required.')
        }
        if (body !== undefined && bodySchema) {
          const problems = validators.check(`${operation.method} ${operation.path} body`, bodySchema, body)
          if (problems.length > 0) {
            return reject('body', 422, `Invalid request.\n\n${problems.map(p => p.message).join('\n')}`)
          }
          const unknown = unknownBodyFields(bodySchema, body)
          if (unknown.length > 0 && options.flagUnknownFields !== false) {
            violation(
              'unknown-field',
              `body field(s) ${unknown.join(', ')} not in the description (GitHub ignores them)`,
              operation.operationId
            )
          }
        }
      }

      // Does the work and answers (or, for a dropped answer, only does the work).
      const proceed = (answer: typeof send = send) => {
        const injected = state.failures.next.findIndex(f => f.operationId === operation.operationId)
        if (injected >= 0) {
          const failure = state.failures.next[injected]
          failure.times = (failure.times ?? 1) - 1
          if (failure.times <= 0) state.failures.next.splice(injected, 1)
          return answer({
            status: failure.status,
            body: failure.body ?? errorBody(failure.status, 'Injected failure', operation.docs),
            headers: failure.headers
          })
        }

        const handler = handlers[operation.operationId]
        if (!handler) {
          unimplemented.push({ method: entry.method, path: entry.path, operationId: operation.operationId })
          return answer({
            status: 501,
            body: { message: `The GitHub stand-in does not implement ${operation.operationId} yet.` }
          })
        }
        const ctx: HandlerContext = { state, render, actor, token, params, body, operation, url }
        try {
          return answer(handler(ctx), operation)
        } catch (error) {
          if (error instanceof GitHubError)
            return answer({ status: error.status, body: error.body, unlisted: error.unlisted }, operation)
          const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
          responseProblems.push({
            operationId: operation.operationId,
            status: 500,
            message: `handler crashed: ${message}`
          })
          return answer({ status: 500, body: { message: 'Server Error' } })
        }
      }

      const fault = faults.take(operation.operationId)
      if (!fault) return proceed()
      entry.fault = fault
      applyFault(fault, req, res, {
        answer: (status, headers, message) =>
          send({ status, headers, body: errorBody(status, message, operation.docs) }),
        proceed: dropAnswer =>
          dropAnswer
            ? proceed((result, op) => {
                if (op && options.checkResponses !== false) checkResponse(op, result)
                entry.status = 0
                resetConnection(req, res)
              })
            : proceed()
      })
    })
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  render.apiUrl = url

  return {
    url,
    state,
    requests,
    writesBy: token =>
      requests.filter(r => r.token === token && !isRead(r.method)).map(r => `${r.method} ${r.path}`),
    violations,
    unimplemented,
    responseProblems,
    env: {
      GITHUB_API_URL: url,
      GITHUB_SERVER_URL: state.serverUrl,
      GITHUB_GRAPHQL_URL: `${url}/graphql`,
      GITHUB_REPOSITORY: state.fullName,
      GITHUB_REPOSITORY_OWNER: state.repo.owner
    },
    events: new EventPayloads(state, render),
    faults,
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

const isRead = (method: string): boolean => method === 'GET' || method === 'HEAD'

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise(resolve => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', () => resolve(Buffer.concat(chunks)))
  })
}

function tokenOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization
  if (!header) return undefined
  const m = /^(?:token|bearer)\s+(.+)$/i.exec(header.trim())
  if (m) return m[1]
  const basic = /^basic\s+(.+)$/i.exec(header.trim())
  if (basic) return Buffer.from(basic[1], 'base64').toString('utf8').split(':').pop()
  return header
}

function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key)
    out[key] = all.length === 1 ? all[0] : all
  }
  return out
}

function collectQuery(operation: Operation, url: URL): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of new Set(url.searchParams.keys())) {
    const name = key.endsWith('[]') ? key.slice(0, -2) : key
    const param = operation.parameters.find(p => p.in === 'query' && p.name === name)
    const isArray = typeof param?.schema === 'object' && param.schema.type === 'array'
    const values = url.searchParams.getAll(key)
    out[name] = isArray ? values : values[values.length - 1]
  }
  return out
}

function checkParams(
  validators: OperationValidators,
  operation: Operation,
  location: 'path' | 'query',
  values: Record<string, unknown>
): string[] {
  const params = operation.parameters.filter(p => p.in === location)
  if (params.length === 0) return []
  const schema: JsonSchema = {
    type: 'object',
    properties: Object.fromEntries(params.map(p => [p.name, anyOfForText(p.schema)])),
    required: params.filter(p => p.required).map(p => p.name)
  }
  // Coercion turns "42" into 42 inside `values`, so handlers see typed values.
  const key = `${operation.method} ${operation.path} ${location}`
  return validators.check(key, schema, values, true).map(p => {
    const name = p.pointer.split('/')[1]
    return name ? `Parameter '${name}': ${p.message}` : p.message
  })
}

/**
 * A parameter arrives as text, so `oneOf: [integer, string]` (a workflow's id or file name) matches "42" twice
 * once coerced: for parameters, one match is enough.
 */
function anyOfForText(schema: JsonSchema): JsonSchema {
  if (typeof schema !== 'object' || !Array.isArray(schema.oneOf)) return schema
  const { oneOf, ...rest } = schema
  return { ...rest, anyOf: oneOf }
}

function jsonBodySchema(operation: Operation): JsonSchema | null | undefined {
  const content = operation.requestBody?.content
  if (!content) return undefined
  const type = Object.keys(content).find(t => t === 'application/json' || t.endsWith('+json'))
  return type === undefined ? undefined : content[type]
}

/** Top-level body fields the schema does not list (only for plain object schemas). */
function unknownBodyFields(schema: JsonSchema, body: unknown): string[] {
  if (typeof schema !== 'object' || !body || typeof body !== 'object' || Array.isArray(body)) return []
  if (schema.oneOf || schema.anyOf || schema.allOf || schema.additionalProperties !== undefined) return []
  const properties = schema.properties as Record<string, unknown> | undefined
  if (!properties) return []
  return Object.keys(body).filter(k => !(k in properties))
}
