// The run's GitHub context, read once from the runner's environment: where the run is (repository, run id,
// server), and what started it (the payload, and its typed form from event.ts). Nothing here trusts the
// payload's text.
import { existsSync, readFileSync } from 'node:fs'
import { parseTriggerEvent, type SentTrigger } from './event.js'

export interface RunContext {
  /** GITHUB_EVENT_NAME as the runner gave it. */
  eventName: string
  /** What started the run, typed, with its sender (event.ts). */
  event: SentTrigger
  /** The event's payload as the runner wrote it (GITHUB_EVENT_PATH), read once. */
  payload: Record<string, unknown>
  repo: { owner: string; repo: string }
  serverUrl: string
  apiUrl: string
  runId: string
  runAttempt: string
  runNumber: string
  job: string
  workflow: string
  sha: string
  ref: string
  refName: string
  headRef: string
  baseRef: string
  actor: string
  workspace: string
  /** The repository's default branch, when the payload names it. */
  defaultBranch?: string
  /** `<server>/<owner>/<repo>/actions/runs/<id>` (with the attempt when it is not the first). */
  runUrl: string
}

type Json = Record<string, unknown>

const obj = (value: unknown): Json =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {}
const str = (value: unknown): string => (typeof value === 'string' ? value : '')

function readPayload(file: string | undefined): Json {
  if (!file || !existsSync(file)) return {}
  try {
    return obj(JSON.parse(readFileSync(file, 'utf8')))
  } catch {
    // A broken event file is the runner's problem, not a reason to fail a loop that does not need it.
    return {}
  }
}

/** Reads the run's context from the runner's environment (GITHUB_* and the event payload file). */
export function readContext(env: NodeJS.ProcessEnv = process.env): RunContext {
  const eventName = env.GITHUB_EVENT_NAME ?? ''
  const payload = readPayload(env.GITHUB_EVENT_PATH)
  const repository = obj(payload.repository)
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? str(repository.full_name)).split('/')
  const serverUrl = (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, '')
  const runId = env.GITHUB_RUN_ID ?? ''
  const runAttempt = env.GITHUB_RUN_ATTEMPT ?? '1'
  const runUrl =
    `${serverUrl}/${owner}/${repo}/actions/runs/${runId}` +
    (runAttempt && runAttempt !== '1' ? `/attempts/${runAttempt}` : '')
  const defaultBranch = str(repository.default_branch)
  return {
    eventName,
    event: parseTriggerEvent(eventName, payload),
    payload,
    repo: { owner, repo },
    serverUrl,
    apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    runId,
    runAttempt,
    runNumber: env.GITHUB_RUN_NUMBER ?? '',
    job: env.GITHUB_JOB ?? '',
    workflow: env.GITHUB_WORKFLOW ?? '',
    sha: env.GITHUB_SHA ?? '',
    ref: env.GITHUB_REF ?? '',
    refName: env.GITHUB_REF_NAME ?? '',
    headRef: env.GITHUB_HEAD_REF ?? '',
    baseRef: env.GITHUB_BASE_REF ?? '',
    actor: env.GITHUB_ACTOR ?? '',
    workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
    ...(defaultBranch ? { defaultBranch } : {}),
    runUrl
  }
}

/** The page of one artifact of this run. */
export function artifactUrl(context: RunContext, artifactId: number | string): string {
  return `${context.serverUrl}/${context.repo.owner}/${context.repo.repo}/actions/runs/${context.runId}/artifacts/${artifactId}`
}
