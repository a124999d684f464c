// The run record (progress.md, status.json, logs/) uploaded as one artifact, and artifacts downloaded and
// unpacked with bounds. @actions/artifact is imported only here and only when an upload happens: it is most of
// the bundle and ~250 ms of start-up. A download is ours (the signed URL, then a streaming unzip), not the
// library's: the library unpacks whatever the zip holds, however large, before any check.
import { createWriteStream, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { Readable, Transform, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Octokit } from './client.js'
import { backoffMs, mayRetry, retryTiming, sleep, type RetryTiming } from './retry.js'

export interface UploadedArtifact {
  id?: number
  size?: number
  name: string
  files: number
}

/** Every file under `dir`, absolute, skipping status.json's in-flight temp files. */
export function recordFiles(dir: string): string[] {
  const files: string[] = []
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile() && !entry.name.endsWith('.tmp')) files.push(full)
    }
  }
  walk(dir)
  return files.sort()
}

/** A name the artifact service accepts: no " : < > | * ? \ / or control characters. */
export function safeArtifactName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/["<>|*?:\\/\x00-\x1f]+/g, '-')
}

/**
 * Uploads the record folder as artifact `name`. Throws when the service refuses it (the caller turns that
 * into a warning: a lost upload must not fail a run that did its work).
 */
export async function uploadRecord(
  dir: string,
  name: string,
  options: { retentionDays?: number | undefined } = {}
): Promise<UploadedArtifact> {
  statSync(dir)
  const files = recordFiles(dir)
  const { DefaultArtifactClient } = await import('@actions/artifact')
  const client = new DefaultArtifactClient()
  const uploaded = await client.uploadArtifact(safeArtifactName(name), files, dir, {
    ...(options.retentionDays !== undefined ? { retentionDays: options.retentionDays } : {}),
    // Logs compress well; the default level is a good trade for text.
    compressionLevel: 6
  })
  return {
    ...(uploaded.id !== undefined ? { id: uploaded.id } : {}),
    ...(uploaded.size !== undefined ? { size: uploaded.size } : {}),
    name: safeArtifactName(name),
    files: files.length
  }
}

/** Where another run's artifacts are (the job token needs `actions: read`); absent: this run's. */
export interface FindBy {
  token: string
  workflowRunId: number
  repositoryOwner: string
  repositoryName: string
}

/**
 * What may be unpacked from an artifact: everything is data from another job (one an agent ran in), so it is
 * bounded while it streams, before anything of it is trusted.
 */
export interface UnpackRules {
  /** The most bytes the entry `name` may unpack to; undefined: not expected, never written. */
  most: (name: string) => number | undefined
  /** The most bytes all entries may unpack to, written or not (the zip itself is held to it too). */
  total: number
  /** The most entries. */
  entries: number
  /** An unexpected entry refuses the artifact (else it is read past, never written). */
  strict?: boolean
}

const inMegabytes = (bytes: number): string => `${Math.round(bytes / (1024 * 1024))} MB`
/** An entry's name as a log line may show it: the zip's, so printable ASCII only, and short. */
const shown = (name: string | undefined): string =>
  JSON.stringify((name ?? '').slice(0, 100).replace(/[^\x20-\x7e]/g, '?'))

/** An artifact refused by its rules: nothing of it is left written. */
export class UnpackRefused extends Error {
  override name = 'UnpackRefused'
  constructor(
    readonly why: 'entry' | 'total' | 'unexpected' | 'entries' | 'twice',
    /** The entry that broke the rule (for `total`, the one being unpacked then). */
    readonly entry: string | undefined,
    /** The bound broken, in bytes (entries, for `entries`). */
    readonly limit: number
  ) {
    super(
      why === 'unexpected'
        ? `it holds ${shown(entry)}, which it never holds`
        : why === 'twice'
          ? `it holds ${shown(entry)} twice`
          : why === 'entries'
            ? `it holds more than ${limit} entries`
            : why === 'entry'
              ? `${shown(entry)} unpacks to more than ${inMegabytes(limit)}`
              : `it unpacks to more than ${inMegabytes(limit)}`
    )
  }
}

/** A download that failed on the way (the connection, a 5xx, a stall): worth another try. */
class InTransit extends Error {
  override name = 'InTransit'
}

/** An HTTP answer that is not the one asked for: in transit when a 5xx or a 429. */
function httpStatus(status: number, what: string): Error {
  const message = `${what} answered HTTP ${status}`
  return status >= 500 || status === 429 ? new InTransit(message) : new Error(message)
}

const TWIRP = 'twirp/github.actions.results.api.v1.ArtifactService'

/** The run and job this job's runtime token names (its `Actions.Results:<run>:<job>` scope). */
function backendIds(token: string): { run: string; job: string } {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    scp?: unknown
  }
  for (const scope of String(payload.scp ?? '').split(' ')) {
    const [name, run, job] = scope.split(':')
    if (name === 'Actions.Results' && run && job) return { run, job }
  }
  throw new Error('the runtime token names no workflow run')
}

/** fetch, its failures to get an answer made InTransit. */
async function reach(url: string | URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init)
  } catch (error) {
    throw new InTransit((error as Error).message, { cause: error })
  }
}

/** One call of the artifact service (Twirp JSON, as @actions/artifact makes it), with this job's runtime token. */
async function twirp(method: string, body: object, timing: RetryTiming): Promise<Record<string, unknown>> {
  const token = process.env.ACTIONS_RUNTIME_TOKEN ?? ''
  const base = process.env.ACTIONS_RESULTS_URL
  if (!token || !base) throw new Error('ACTIONS_RUNTIME_TOKEN or ACTIONS_RESULTS_URL is not set')
  const response = await reach(new URL(`/${TWIRP}/${method}`, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timing.requestTimeoutMs)
  })
  const text = await response.text().catch((error: Error) => {
    throw new InTransit(error.message)
  })
  if (!response.ok) throw httpStatus(response.status, `the artifact service's ${method}`)
  return JSON.parse(text) as Record<string, unknown>
}

/** A signed URL of this run's artifact `id`, from the artifact service. */
async function signedUrlOfThisRun(id: number, timing: RetryTiming): Promise<string> {
  const own = backendIds(process.env.ACTIONS_RUNTIME_TOKEN ?? '')
  const listed = await twirp(
    'ListArtifacts',
    { workflow_run_backend_id: own.run, workflow_job_run_backend_id: own.job, id_filter: String(id) },
    timing
  )
  const artifact = (Array.isArray(listed.artifacts) ? listed.artifacts : [])[0] as
    Record<string, unknown> | undefined
  if (!artifact) throw new Error(`this run has no artifact ${id}`)
  const signed = await twirp(
    'GetSignedArtifactURL',
    {
      workflow_run_backend_id: String(artifact.workflow_run_backend_id),
      workflow_job_run_backend_id: String(artifact.workflow_job_run_backend_id),
      name: String(artifact.name)
    },
    timing
  )
  if (typeof signed.signed_url !== 'string') throw new Error('the artifact service gave no download URL')
  return signed.signed_url
}

/** Where GitHub redirects the download of another run's artifact `id` (GET …/artifacts/{id}/zip). */
async function signedUrlOfOtherRun(octokit: Octokit, findBy: FindBy, id: number): Promise<string> {
  const { status, headers } = await octokit.request(
    'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}',
    {
      owner: findBy.repositoryOwner,
      repo: findBy.repositoryName,
      artifact_id: id,
      archive_format: 'zip',
      request: { redirect: 'manual' }
    }
  )
  const location = (headers as Record<string, string | undefined>).location
  if (Number(status) !== 302 || !location) throw httpStatus(Number(status), `the download of artifact ${id}`)
  return location
}

/** Bytes through, refused past `limit`: the check runs on every chunk, before it goes on to be written. */
function counted(limit: number, over: () => Error, seen: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen.bytes += chunk.length
      if (seen.bytes > limit) done(over())
      else done(null, chunk)
    }
  })
}

/** Reads what it is given and keeps none of it. */
const nowhere = (): Writable => new Writable({ write: (_chunk, _encoding, done) => done() })

/** Ends when `file` is closed (destroyed first if it is not): an fs stream closes once its open has come back. */
function closed(file: Writable): Promise<void> {
  if (file.closed) return Promise.resolve()
  return new Promise(resolve => {
    file.once('close', resolve)
    file.destroy()
  })
}

/** A new file for entry `name` inside `dir` (never an existing one, nor anything a link points to). */
function fileFor(dir: string, name: string): Writable {
  const file = path.join(dir, name)
  if (path.relative(dir, file).startsWith('..')) throw new UnpackRefused('unexpected', name, 0)
  mkdirSync(path.dirname(file), { recursive: true })
  return createWriteStream(file, { flags: 'wx', mode: 0o600 })
}

/** Streams the zip at `url` into `dir` by `rules`; on a refusal or a failure, what was written is left to the caller. */
async function unpack(url: string, dir: string, rules: UnpackRules, timing: RetryTiming): Promise<void> {
  const { default: UnzipStream } = await import('unzip-stream/lib/unzip-stream.js')
  const controller = new AbortController()
  // A body that stops moving is cut off, as a request with no answer is.
  const idle = setTimeout(
    () => controller.abort(new InTransit('the download stalled')),
    timing.requestTimeoutMs
  )
  try {
    const response = await reach(url, { signal: controller.signal })
    if (!response.ok || !response.body) throw httpStatus(response.status, 'the artifact store')
    const source = Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0])
    const zip = new UnzipStream()
    // Which failed first, the download or the zip (each then fails the other with the same error).
    let first: 'download' | 'zip' | undefined
    source.on('data', () => idle.refresh())
    source.on('error', () => (first ??= 'download'))
    zip.on('error', () => (first ??= 'zip'))
    let refused: Error | undefined
    const refuse = (error: Error): void => {
      refused ??= error
      zip.destroy(error)
    }
    const seen = new Set<string>()
    // Every entry's bytes, written or not, against the bound of all (one count: entries may overlap in flight).
    const unpacked = { bytes: 0 }
    const entries: Promise<void>[] = []
    // The files opened: on a refusal each is closed before the caller empties the folder (a file whose open was
    // still on its way would otherwise appear after the emptying).
    const files: Writable[] = []
    const opened = (name: string): Writable => {
      const file = fileFor(dir, name)
      files.push(file)
      return file
    }
    zip.on('entry', entry => {
      const name = entry.path
      const most = entry.type === 'File' ? rules.most(name) : undefined
      const problem =
        seen.size >= rules.entries
          ? new UnpackRefused('entries', name, rules.entries)
          : seen.has(name)
            ? new UnpackRefused('twice', name, 0)
            : most === undefined && entry.type === 'File' && rules.strict
              ? new UnpackRefused('unexpected', name, 0)
              : // A header that says it is too big is believed; one that says it is small is not.
                most !== undefined && entry.size !== undefined && entry.size > most
                ? new UnpackRefused('entry', name, most)
                : undefined
      seen.add(name)
      if (problem) return refuse(problem)
      const total = counted(rules.total, () => new UnpackRefused('total', name, rules.total), unpacked)
      const done =
        most === undefined
          ? pipeline(entry, total, nowhere())
          : pipeline(
              entry,
              total,
              counted(most, () => new UnpackRefused('entry', name, most), { bytes: 0 }),
              opened(name)
            )
      entries.push(done.catch((error: Error) => refuse(error)))
    })
    // The zip is held to the bound too: a stored (uncompressed) entry weighs its bytes either way.
    const zipped = counted(
      rules.total + 1024 * 1024,
      () => new UnpackRefused('total', undefined, rules.total),
      { bytes: 0 }
    )
    try {
      await pipeline(source, zipped, zip)
      await Promise.all(entries)
      if (refused) throw refused
    } catch (error) {
      source.destroy()
      await Promise.all(files.map(closed))
      const failure = refused ?? (error as Error)
      if (failure instanceof UnpackRefused) throw failure
      if (first === 'download') throw new InTransit(failure.message, { cause: error })
      throw new Error(`it is not a zip that can be read (${failure.message})`, { cause: error })
    }
  } finally {
    clearTimeout(idle)
  }
}

/**
 * Downloads artifact `id` (this run's, or another run's through the REST API with `from`) and unpacks it into
 * `dir` by `rules`, streaming: nothing it may not hold is written, and it stops at the first bound broken
 * (UnpackRefused). A download that fails on the way is tried again from the start.
 */
export async function downloadInto(
  id: number,
  dir: string,
  rules: UnpackRules,
  from?: { octokit: Octokit; findBy: FindBy }
): Promise<void> {
  const timing = retryTiming()
  const deadline = Date.now() + timing.boundMs
  mkdirSync(dir, { recursive: true })
  // unzip-stream calls Buffer() (DEP0005): from the bundle, Node cannot tell that from our code, and warns.
  const warned = process.noDeprecation
  process.noDeprecation = true
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const url = from
          ? await signedUrlOfOtherRun(from.octokit, from.findBy, id)
          : await signedUrlOfThisRun(id, timing)
        return await unpack(url, dir, rules, timing)
      } catch (error) {
        emptied(dir)
        const wait = backoffMs(timing, attempt)
        if (!(error instanceof InTransit) || !mayRetry(timing, { attempt, waitMs: wait, deadline }))
          throw error
        await sleep(wait)
      }
    }
  } finally {
    process.noDeprecation = warned === true
  }
}

/** `dir`, made empty again. */
function emptied(dir: string): void {
  for (const name of readdirSync(dir)) rmSync(path.join(dir, name), { recursive: true, force: true })
}
