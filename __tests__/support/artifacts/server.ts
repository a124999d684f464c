// The Actions results service on loopback, in front of a real azurite blob store: its ArtifactService
// (Twirp JSON, github.actions.results.api.v1) for @actions/artifact, and its CacheService (cache service v2)
// for @actions/cache, both used unchanged. A test reads each artifact back file by file and sees every cache
// entry. Requests are checked field by field against the services' messages.
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  BlobSASPermissions,
  BlobServiceClient,
  generateBlobSASQueryParameters,
  SASProtocol,
  StorageSharedKeyCredential,
  type ContainerClient
} from '@azure/storage-blob'
import { applyFault, FaultSchedule, resetConnection, type FaultKind } from '../faults.js'
import { DEV_ACCOUNT, DEV_ACCOUNT_KEY, startAzurite, type Azurite } from './azurite.js'
import { readZip } from './zip.js'

const SERVICES = [
  'github.actions.results.api.v1.ArtifactService',
  'github.actions.results.api.v1.CacheService'
]
const CONTAINER = 'actions-results'

export interface StoredArtifact {
  /** The int64 database id (what FinalizeArtifact returns and the action outputs as artifact-id). */
  id: number
  name: string
  workflowRunBackendId: string
  workflowJobRunBackendId: string
  blobName: string
  mimeType?: string | undefined
  expiresAt?: string | undefined
  createdAt: string
  finalized: boolean
  size?: number
  /** `sha256:<hex>` as sent by the client at finalize time. */
  digest?: string
}

/** A cache entry (cache service v2): one blob per key and version. */
export interface StoredCacheEntry {
  id: number
  key: string
  /** The client's hash of the cached paths and the compression (a restore must give the same). */
  version: string
  blobName: string
  createdAt: string
  finalized: boolean
  size?: number
}

export interface ArtifactRequest {
  method: string
  body: unknown
  /** 0 when the connection was reset, stalled or its answer dropped. */
  status: number
  fault?: FaultKind
}

export interface ArtifactViolation {
  method: string
  message: string
}

/** Make the next call(s) of a Twirp method fail with this status and Twirp error. */
export interface ArtifactFailure {
  method:
    | 'CreateArtifact'
    | 'FinalizeArtifact'
    | 'ListArtifacts'
    | 'GetSignedArtifactURL'
    | 'DeleteArtifact'
    | 'CreateCacheEntry'
    | 'FinalizeCacheEntryUpload'
    | 'GetCacheEntryDownloadURL'
  status: number
  code?: string
  msg?: string
  times?: number
}

export interface ArtifactService {
  /** For ACTIONS_RESULTS_URL (the client uses only its origin). */
  resultsUrl: string
  /** For ACTIONS_RUNTIME_TOKEN: an unsigned JWT whose scp names this run and job. */
  runtimeToken: string
  workflowRunBackendId: string
  workflowJobRunBackendId: string
  /** ACTIONS_RUNTIME_TOKEN, ACTIONS_RESULTS_URL, and GITHUB_SERVER_URL (the client refuses GHES hosts). */
  env: Record<string, string>
  requests: ArtifactRequest[]
  /** Requests the real service would refuse (unknown fields, wrong ids, size/hash mismatch…). Expect `[]`. */
  violations: ArtifactViolation[]
  failures: ArtifactFailure[]
  /** GitHub's bad minutes, by Twirp method (CreateArtifact, FinalizeArtifact, …). */
  faults: FaultSchedule
  /** Finalized artifacts, oldest first. */
  listArtifacts(): StoredArtifact[]
  /** Finalized cache entries, oldest first. */
  listCacheEntries(): StoredCacheEntry[]
  /** The artifact's zip as uploaded. */
  downloadZip(name: string): Promise<Buffer>
  /** The artifact's files by their path inside the zip. */
  downloadArtifact(name: string): Promise<Map<string, Buffer>>
  /**
   * A read-only URL of a finalized artifact's zip in the blob store, by its id: where GitHub's REST download
   * (GET …/actions/artifacts/{id}/zip) redirects. Undefined for an unknown id.
   */
  signedDownloadUrl(id: number): string | undefined
  /** A runtime token for another job of the same run (artifacts are shared across a run's jobs). */
  tokenForJob(workflowJobRunBackendId: string): string
  /** A runtime token for a job of ANOTHER workflow run (whose artifacts this run's jobs cannot see). */
  tokenForRun(workflowRunBackendId: string, workflowJobRunBackendId: string): string
  close(): Promise<void>
}

class TwirpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    msg: string
  ) {
    super(msg)
  }
}

type FieldType = 'string' | 'int64' | 'int32' | 'timestamp' | 'strings' | 'message'

/** Fields each request message has, with their JSON types (proto3 JSON: int64 as string, wrappers unwrapped). */
const REQUEST_FIELDS: Record<string, Record<string, FieldType>> = {
  CreateCacheEntry: { metadata: 'message', key: 'string', version: 'string' },
  FinalizeCacheEntryUpload: { metadata: 'message', key: 'string', size_bytes: 'int64', version: 'string' },
  GetCacheEntryDownloadURL: {
    metadata: 'message',
    key: 'string',
    restore_keys: 'strings',
    version: 'string'
  },
  CreateArtifact: {
    workflow_run_backend_id: 'string',
    workflow_job_run_backend_id: 'string',
    name: 'string',
    expires_at: 'timestamp',
    version: 'int32',
    mime_type: 'string'
  },
  FinalizeArtifact: {
    workflow_run_backend_id: 'string',
    workflow_job_run_backend_id: 'string',
    name: 'string',
    size: 'int64',
    hash: 'string'
  },
  ListArtifacts: {
    workflow_run_backend_id: 'string',
    workflow_job_run_backend_id: 'string',
    name_filter: 'string',
    id_filter: 'int64'
  },
  GetSignedArtifactURL: {
    workflow_run_backend_id: 'string',
    workflow_job_run_backend_id: 'string',
    name: 'string'
  },
  DeleteArtifact: { workflow_run_backend_id: 'string', workflow_job_run_backend_id: 'string', name: 'string' }
}

function unsignedJwt(payload: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
  return `${part({ typ: 'JWT', alg: 'none' })}.${part(payload)}.`
}

function scopeOf(token: string): { run: string; job: string } | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as {
      scp?: string
    }
    for (const scope of String(payload.scp ?? '').split(' ')) {
      const [name, run, job] = scope.split(':')
      if (name === 'Actions.Results' && run && job) return { run, job }
    }
  } catch {
    return undefined
  }
  return undefined
}

export async function startArtifactService(
  options: { workflowRunBackendId?: string; workflowJobRunBackendId?: string } = {}
): Promise<ArtifactService> {
  const azurite: Azurite = await startAzurite()
  const credential = new StorageSharedKeyCredential(DEV_ACCOUNT, DEV_ACCOUNT_KEY)
  const container: ContainerClient = new BlobServiceClient(
    azurite.blobEndpoint,
    credential
  ).getContainerClient(CONTAINER)
  try {
    await container.create()
  } catch (error) {
    await azurite.close()
    throw error
  }

  const runId = options.workflowRunBackendId ?? 'c0ffee00-0000-4000-8000-000000000001'
  const jobId = options.workflowJobRunBackendId ?? 'c0ffee00-0000-4000-8000-000000000002'
  const tokenForRun = (run: string, job: string) =>
    unsignedJwt({
      scp: `Actions.ExampleScope Actions.Results:${run}:${job}`,
      iss: 'vstoken.actions.githubusercontent.com',
      exp: Math.floor(Date.now() / 1000) + 6 * 3600
    })
  const tokenForJob = (job: string) => tokenForRun(runId, job)
  const runtimeToken = tokenForJob(jobId)
  const artifacts: StoredArtifact[] = []
  const cacheEntries: StoredCacheEntry[] = []
  const requests: ArtifactRequest[] = []
  const violations: ArtifactViolation[] = []
  const failures: ArtifactFailure[] = []
  const faults = new FaultSchedule()
  let nextId = 8_000_000_001

  const sas = (blobName: string, permissions: string, minutes: number, contentDisposition?: string) => {
    const query = generateBlobSASQueryParameters(
      {
        containerName: CONTAINER,
        blobName,
        permissions: BlobSASPermissions.parse(permissions),
        startsOn: new Date(Date.now() - 60_000),
        expiresOn: new Date(Date.now() + minutes * 60_000),
        protocol: SASProtocol.HttpsAndHttp,
        ...(contentDisposition === undefined ? {} : { contentDisposition })
      },
      credential
    ).toString()
    return `${container.getBlockBlobClient(blobName).url}?${query}`
  }

  const methods: Record<
    string,
    (body: Record<string, unknown>, scope: { run: string; job: string }) => Promise<unknown>
  > = {
    async CreateArtifact(body, scope) {
      const name = String(body.name ?? '')
      if (!name) throw new TwirpError(400, 'invalid_argument', 'name is required')
      if (body.version !== 7)
        throw new TwirpError(400, 'invalid_argument', `unsupported version ${String(body.version)}`)
      if (artifacts.some(a => a.finalized && a.workflowRunBackendId === scope.run && a.name === name)) {
        throw new TwirpError(
          409,
          'already_exists',
          'an artifact with this name already exists on the workflow run'
        )
      }
      const blobName = `${scope.run}/${scope.job}/${createHash('sha256').update(`${name}:${nextId}`).digest('hex').slice(0, 16)}.zip`
      const pending = artifacts.findIndex(
        a => !a.finalized && a.workflowRunBackendId === scope.run && a.name === name
      )
      if (pending >= 0) artifacts.splice(pending, 1)
      artifacts.push({
        id: nextId++,
        name,
        workflowRunBackendId: scope.run,
        workflowJobRunBackendId: scope.job,
        blobName,
        mimeType: body.mime_type as string | undefined,
        expiresAt: body.expires_at as string | undefined,
        createdAt: new Date().toISOString(),
        finalized: false
      })
      return { ok: true, signed_upload_url: sas(blobName, 'racw', 360) }
    },

    async FinalizeArtifact(body, scope) {
      const name = String(body.name ?? '')
      const artifact = artifacts.find(
        a => !a.finalized && a.workflowRunBackendId === scope.run && a.name === name
      )
      if (!artifact) throw new TwirpError(404, 'not_found', `no artifact named ${name} is being uploaded`)
      const blob = container.getBlockBlobClient(artifact.blobName)
      const content = (await blob.exists()) ? await blob.downloadToBuffer() : Buffer.alloc(0)
      const size = Number(body.size ?? 0)
      if (size !== content.length) {
        throw new TwirpError(
          400,
          'invalid_argument',
          `size ${size} does not match the uploaded blob (${content.length} bytes)`
        )
      }
      const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`
      if (body.hash !== undefined && body.hash !== digest) {
        throw new TwirpError(
          400,
          'invalid_argument',
          `hash ${String(body.hash)} does not match the uploaded blob (${digest})`
        )
      }
      artifact.finalized = true
      artifact.size = content.length
      artifact.digest = digest
      return { ok: true, artifact_id: String(artifact.id) }
    },

    async ListArtifacts(body, scope) {
      const found = artifacts.filter(
        a =>
          a.finalized &&
          a.workflowRunBackendId === scope.run &&
          (body.name_filter === undefined || a.name === body.name_filter) &&
          (body.id_filter === undefined || String(a.id) === String(body.id_filter))
      )
      return {
        artifacts: found.map(a => ({
          workflow_run_backend_id: a.workflowRunBackendId,
          workflow_job_run_backend_id: a.workflowJobRunBackendId,
          database_id: String(a.id),
          name: a.name,
          size: String(a.size ?? 0),
          created_at: a.createdAt,
          digest: a.digest
        }))
      }
    },

    async GetSignedArtifactURL(body, scope) {
      const artifact = artifacts.find(
        a => a.finalized && a.workflowRunBackendId === scope.run && a.name === body.name
      )
      if (!artifact) throw new TwirpError(404, 'not_found', `artifact ${String(body.name)} not found`)
      return { signed_url: sas(artifact.blobName, 'r', 60) }
    },

    // Cache service v2. Entries are shared by every run of the stand (as a repository's default branch's are).
    async CreateCacheEntry(body) {
      const key = String(body.key ?? '')
      const version = String(body.version ?? '')
      if (!key || !version) throw new TwirpError(400, 'invalid_argument', 'key and version are required')
      if (cacheEntries.some(e => e.finalized && e.key === key && e.version === version))
        throw new TwirpError(
          409,
          'already_exists',
          'cache entry with the same key, version and scope already exists'
        )
      const pending = cacheEntries.findIndex(e => !e.finalized && e.key === key && e.version === version)
      if (pending >= 0) cacheEntries.splice(pending, 1)
      const blobName = `caches/${createHash('sha256').update(`${key}:${version}:${nextId}`).digest('hex').slice(0, 24)}`
      cacheEntries.push({
        id: nextId++,
        key,
        version,
        blobName,
        createdAt: new Date().toISOString(),
        finalized: false
      })
      return { ok: true, signed_upload_url: sas(blobName, 'racw', 360) }
    },

    async FinalizeCacheEntryUpload(body) {
      const entry = cacheEntries.find(e => !e.finalized && e.key === body.key && e.version === body.version)
      if (!entry)
        throw new TwirpError(404, 'not_found', `no cache entry ${String(body.key)} is being uploaded`)
      const blob = container.getBlockBlobClient(entry.blobName)
      const size = (await blob.exists()) ? ((await blob.getProperties()).contentLength ?? 0) : 0
      if (String(size) !== String(body.size_bytes))
        throw new TwirpError(
          400,
          'invalid_argument',
          `size ${String(body.size_bytes)} does not match the uploaded blob (${size} bytes)`
        )
      entry.finalized = true
      entry.size = size
      return { ok: true, entry_id: String(entry.id) }
    },

    async GetCacheEntryDownloadURL(body) {
      // The primary key exactly, then each restore key as a prefix (newest entry first); the version must match.
      const usable = cacheEntries.filter(e => e.finalized && e.version === body.version).reverse()
      const restoreKeys = Array.isArray(body.restore_keys) ? body.restore_keys.map(String) : []
      const entry =
        usable.find(e => e.key === body.key) ??
        restoreKeys.map(prefix => usable.find(e => e.key.startsWith(prefix))).find(e => e !== undefined)
      if (!entry) return { ok: false }
      return { ok: true, signed_download_url: sas(entry.blobName, 'r', 60), matched_key: entry.key }
    },

    async DeleteArtifact(body, scope) {
      const index = artifacts.findIndex(
        a => a.finalized && a.workflowRunBackendId === scope.run && a.name === body.name
      )
      if (index < 0) throw new TwirpError(404, 'not_found', `artifact ${String(body.name)} not found`)
      const [artifact] = artifacts.splice(index, 1)
      await container.getBlockBlobClient(artifact.blobName).deleteIfExists()
      return { ok: true, artifact_id: String(artifact.id) }
    }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: Buffer) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    }
    const m = /^\/twirp\/([\w.]+)\/(\w+)$/.exec(req.url ?? '')
    const service = m?.[1] ?? ''
    const method = m?.[2] ?? String(req.url)
    const entry: ArtifactRequest = { method, body: undefined, status: 0 }
    requests.push(entry)
    const refuse = (error: TwirpError, record = true) => {
      if (record) violations.push({ method, message: error.message })
      entry.status = error.status
      reply(error.status, { code: error.code, msg: error.message })
    }
    if (req.method !== 'POST' || !m || !SERVICES.includes(service) || !methods[method])
      return refuse(new TwirpError(404, 'bad_route', `no handler for ${req.method} ${req.url}`))
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return refuse(new TwirpError(400, 'malformed', 'the stand-in speaks Twirp JSON only'))
    }
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1]
    const scope = token ? scopeOf(token) : undefined
    if (!scope) return refuse(new TwirpError(401, 'unauthenticated', 'missing or invalid runtime token'))

    let body: Record<string, unknown>
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>
    } catch {
      return refuse(new TwirpError(400, 'malformed', 'the body is not JSON'))
    }
    entry.body = body
    for (const [field, value] of Object.entries(body)) {
      const type = REQUEST_FIELDS[method][field]
      if (!type) return refuse(new TwirpError(400, 'malformed', `unknown field ${field} in ${method}`))
      const ok =
        type === 'message'
          ? typeof value === 'object' && value !== null && !Array.isArray(value)
          : type === 'strings'
            ? Array.isArray(value) && value.every(item => typeof item === 'string')
            : type === 'int32'
              ? Number.isInteger(value)
              : type === 'int64'
                ? typeof value === 'string' && /^-?\d+$/.test(value)
                : type === 'timestamp'
                  ? typeof value === 'string' && !Number.isNaN(Date.parse(value))
                  : typeof value === 'string'
      if (!ok)
        return refuse(new TwirpError(400, 'malformed', `field ${field} of ${method} is not a valid ${type}`))
    }
    const forArtifacts = service.endsWith('.ArtifactService')
    // An artifact is the run's: another job of it reads one by the ids ListArtifacts gave (download-artifact
    // across jobs), so GetSignedArtifactURL names the uploading job, not the caller's.
    const crossJob = method === 'GetSignedArtifactURL'
    if (
      forArtifacts &&
      (body.workflow_run_backend_id !== scope.run ||
        (!crossJob && body.workflow_job_run_backend_id !== scope.job))
    ) {
      return refuse(new TwirpError(403, 'permission_denied', 'backend ids do not match the runtime token'))
    }

    const proceed = async (dropAnswer: boolean) => {
      const injected = failures.findIndex(f => f.method === method)
      if (injected >= 0) {
        const failure = failures[injected]
        failure.times = (failure.times ?? 1) - 1
        if (failure.times <= 0) failures.splice(injected, 1)
        return refuse(
          new TwirpError(failure.status, failure.code ?? 'internal', failure.msg ?? 'injected failure'),
          false
        )
      }
      try {
        const result = await methods[method](body, scope)
        if (dropAnswer) return resetConnection(req, res)
        entry.status = 200
        reply(200, result)
      } catch (error) {
        if (dropAnswer) return resetConnection(req, res)
        if (error instanceof TwirpError) return refuse(error, error.code !== 'not_found')
        entry.status = 500
        violations.push({
          method,
          message: `stand-in error: ${error instanceof Error ? error.message : String(error)}`
        })
        reply(500, { code: 'internal', msg: String(error) })
      }
    }
    const fault = faults.take(method)
    if (!fault) return proceed(false)
    entry.fault = fault
    applyFault(fault, req, res, {
      answer: (status, headers, message) => {
        entry.status = status
        res
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify({ code: status === 429 ? 'resource_exhausted' : 'unavailable', msg: message }))
      },
      proceed: dropAnswer => void proceed(dropAnswer)
    })
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => void handle(req, res, Buffer.concat(chunks)))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const resultsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`

  const finalized = (name: string) => {
    const artifact = artifacts.find(a => a.finalized && a.name === name)
    if (!artifact) {
      const names = artifacts.filter(a => a.finalized).map(a => a.name)
      throw new Error(`no artifact named ${name} was uploaded (have: ${names.join(', ') || 'none'})`)
    }
    return artifact
  }
  const downloadZip = async (name: string) =>
    container.getBlockBlobClient(finalized(name).blobName).downloadToBuffer()

  return {
    resultsUrl,
    runtimeToken,
    workflowRunBackendId: runId,
    workflowJobRunBackendId: jobId,
    env: {
      ACTIONS_RUNTIME_TOKEN: runtimeToken,
      ACTIONS_RESULTS_URL: resultsUrl,
      // @actions/cache speaks to the results service (cache service v2) only when the runner says so.
      ACTIONS_CACHE_SERVICE_V2: 'true',
      GITHUB_SERVER_URL: 'https://github.com'
    },
    requests,
    violations,
    failures,
    faults,
    listArtifacts: () => artifacts.filter(a => a.finalized),
    listCacheEntries: () => cacheEntries.filter(e => e.finalized),
    downloadZip,
    downloadArtifact: async name => readZip(await downloadZip(name)),
    signedDownloadUrl: id => {
      const artifact = artifacts.find(a => a.finalized && a.id === id)
      // GitHub's redirect names the file as a browser would save it (rscd in the blob URL's query).
      return artifact && sas(artifact.blobName, 'r', 1, `attachment; filename="${artifact.name}.zip"`)
    },
    tokenForJob,
    tokenForRun,
    close: async () => {
      await new Promise<void>(resolve => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await azurite.close()
    }
  }
}
