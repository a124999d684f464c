// The run's GitHub context, read once from the runner's environment: where the run is (repository, run id,
// server), and what started it, as a discriminated union with type guards so each trigger's fields are
// typed. Issue-comment triggers and trust (issue 6) extend this; nothing here trusts the payload's text.
import { existsSync, readFileSync } from 'node:fs'

export interface IssueRef {
  number: number
  title: string
  body: string
  /** Set when the "issue" is a pull request (GitHub's issues API covers both). */
  isPullRequest: boolean
  author: string
}

interface EventBase {
  /** The raw payload, for what is not typed yet. */
  payload: Record<string, unknown>
  /** Who triggered it (`sender.login`), when the payload says. */
  sender?: string
}

export interface PushEvent extends EventBase {
  name: 'push'
  ref: string
}
export interface ScheduleEvent extends EventBase {
  name: 'schedule'
  schedule?: string
}
export interface WorkflowDispatchEvent extends EventBase {
  name: 'workflow_dispatch'
  inputs: Record<string, unknown>
}
export interface IssuesEvent extends EventBase {
  name: 'issues'
  action: string
  issue: IssueRef
  label?: string
}
export interface IssueCommentEvent extends EventBase {
  name: 'issue_comment'
  action: string
  issue: IssueRef
  comment: { id: number; body: string; author: string; createdAt?: string; updatedAt?: string }
}
export interface PullRequestEvent extends EventBase {
  name: 'pull_request' | 'pull_request_target'
  action: string
  number: number
  head: { ref: string; sha: string; repo?: string }
  base: { ref: string; sha: string; repo?: string }
}
/** Any other trigger: its name and the payload as is. */
export interface OtherEvent extends EventBase {
  name: 'other'
  eventName: string
}

export type ActionEvent =
  | PushEvent
  | ScheduleEvent
  | WorkflowDispatchEvent
  | IssuesEvent
  | IssueCommentEvent
  | PullRequestEvent
  | OtherEvent

export interface RunContext {
  /** GITHUB_EVENT_NAME as the runner gave it. */
  eventName: string
  event: ActionEvent
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

const obj = (value: unknown): Json => (value && typeof value === 'object' ? (value as Json) : {})
const str = (value: unknown): string => (typeof value === 'string' ? value : '')
const login = (value: unknown): string => str(obj(value).login)

function issueRef(value: unknown): IssueRef {
  const issue = obj(value)
  return {
    number: Number(issue.number),
    title: str(issue.title),
    body: str(issue.body),
    isPullRequest: issue.pull_request !== undefined && issue.pull_request !== null,
    author: login(issue.user)
  }
}

function branchOf(value: unknown): { ref: string; sha: string; repo?: string } {
  const side = obj(value)
  const repo = str(obj(side.repo).full_name)
  return { ref: str(side.ref), sha: str(side.sha), ...(repo ? { repo } : {}) }
}

/** The trigger as a typed event. Unknown triggers and malformed payloads become `other`. */
export function parseEvent(eventName: string, payload: Json): ActionEvent {
  const sender = login(payload.sender) || undefined
  const base = { payload, ...(sender ? { sender } : {}) }
  switch (eventName) {
    case 'push':
      return { ...base, name: 'push', ref: str(payload.ref) }
    case 'schedule':
      return { ...base, name: 'schedule', ...(payload.schedule ? { schedule: str(payload.schedule) } : {}) }
    case 'workflow_dispatch':
      return { ...base, name: 'workflow_dispatch', inputs: obj(payload.inputs) }
    case 'issues':
      if (!payload.issue) break
      return {
        ...base,
        name: 'issues',
        action: str(payload.action),
        issue: issueRef(payload.issue),
        ...(payload.label ? { label: str(obj(payload.label).name) } : {})
      }
    case 'issue_comment': {
      if (!payload.issue || !payload.comment) break
      const comment = obj(payload.comment)
      return {
        ...base,
        name: 'issue_comment',
        action: str(payload.action),
        issue: issueRef(payload.issue),
        comment: {
          id: Number(comment.id),
          body: str(comment.body),
          author: login(comment.user),
          ...(comment.created_at ? { createdAt: str(comment.created_at) } : {}),
          ...(comment.updated_at ? { updatedAt: str(comment.updated_at) } : {})
        }
      }
    }
    case 'pull_request':
    case 'pull_request_target': {
      if (!payload.pull_request) break
      const pull = obj(payload.pull_request)
      return {
        ...base,
        name: eventName,
        action: str(payload.action),
        number: Number(payload.number ?? pull.number),
        head: branchOf(pull.head),
        base: branchOf(pull.base)
      }
    }
  }
  return { ...base, name: 'other', eventName }
}

export const isPushEvent = (event: ActionEvent): event is PushEvent => event.name === 'push'
export const isScheduleEvent = (event: ActionEvent): event is ScheduleEvent => event.name === 'schedule'
export const isWorkflowDispatchEvent = (event: ActionEvent): event is WorkflowDispatchEvent =>
  event.name === 'workflow_dispatch'
export const isIssuesEvent = (event: ActionEvent): event is IssuesEvent => event.name === 'issues'
export const isIssueCommentEvent = (event: ActionEvent): event is IssueCommentEvent =>
  event.name === 'issue_comment'
export const isPullRequestEvent = (event: ActionEvent): event is PullRequestEvent =>
  event.name === 'pull_request' || event.name === 'pull_request_target'

/**
 * The issue a run works on, for `Closes #N` in the pull request: an issue (not a pull request) that
 * triggered the run. Issue 6 decides which triggers start loops; this only names the issue.
 */
export function triggeringIssue(event: ActionEvent): number | undefined {
  if ((isIssuesEvent(event) || isIssueCommentEvent(event)) && !event.issue.isPullRequest) {
    return Number.isInteger(event.issue.number) && event.issue.number > 0 ? event.issue.number : undefined
  }
  return undefined
}

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
    event: parseEvent(eventName, payload),
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
