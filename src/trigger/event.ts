// What started the run, as a discriminated union with type guards: the one parse of GITHUB_EVENT_NAME and
// its payload, used by the run's context (context.ts) and by the admission (admission.ts). Nothing here
// trusts the payload's text: it is only typed, never fetched again nor run.

export interface IssuePayload {
  number: number
  title: string
  body: string
  author: string
  authorType: string
  /** The "issue" is a pull request (its conversation tab). */
  isPullRequest: boolean
}

export interface CommentPayload {
  id: number
  body: string
  author: string
  authorType: string
  createdAt: string
  updatedAt: string
}

export interface IssueCommentTrigger {
  name: 'issue_comment'
  action: string
  issue: IssuePayload
  comment: CommentPayload
}
export interface IssuesTrigger {
  name: 'issues'
  action: string
  issue: IssuePayload
  label?: string
  sender: string
}
/** A pull request as an event carries it. */
export interface PullPayload {
  number: number
  title: string
  body: string
  author: string
  authorType: string
  head: { ref: string; sha: string; repo?: string }
  base: { ref: string }
}
export interface PullRequestTrigger extends PullPayload {
  name: 'pull_request' | 'pull_request_target'
  action: string
  /** The label applied, on `labeled`. */
  label?: string
  sender: string
}
/** A review submitted (or edited, dismissed) on a pull request. */
export interface PullRequestReviewTrigger {
  name: 'pull_request_review'
  action: string
  review: {
    id: number
    /** '' when the review has no body (only line comments). */
    body: string
    /** As the webhook writes it: `changes_requested`, `commented`, `approved`, `dismissed`. */
    state: string
    author: string
    authorType: string
    commitId: string
  }
  pull: PullPayload
  sender: string
}
/** A workflow run that was requested, is in progress, or completed. */
export interface WorkflowRunTrigger {
  name: 'workflow_run'
  action: string
  run: {
    id: number
    /** The workflow's name, and its file (`.github/workflows/ci.yml`). */
    workflow: string
    path: string
    event: string
    conclusion: string
    headBranch: string
    headSha: string
    /** `owner/name` of the repository the run's commit comes from (a fork's for a fork's pull request). */
    headRepo: string
    runNumber: number
    runAttempt: number
    url: string
  }
  sender: string
}
export interface ReviewCommentTrigger {
  name: 'pull_request_review_comment'
  action: string
}
export interface PushTrigger {
  name: 'push'
  ref: string
  deleted: boolean
  sender: string
}
export interface ScheduleTrigger {
  name: 'schedule'
  schedule?: string
}
export interface DispatchTrigger {
  name: 'workflow_dispatch'
  sender: string
  inputs: Record<string, unknown>
}
export interface UnsupportedTrigger {
  name: 'unsupported'
  eventName: string
}

export type TriggerEvent =
  | IssueCommentTrigger
  | IssuesTrigger
  | PullRequestTrigger
  | PullRequestReviewTrigger
  | ReviewCommentTrigger
  | PushTrigger
  | ScheduleTrigger
  | DispatchTrigger
  | WorkflowRunTrigger
  | UnsupportedTrigger

/** The account that sent an event, as its payload names it: the login and the account type (`User`, `Bot`). */
export interface EventSender {
  login: string
  type: string
}

/** What started the run, with the account that sent it when the payload names one (any kind may). */
export type SentTrigger = TriggerEvent & { from?: EventSender }

export const isIssueCommentTrigger = (e: TriggerEvent): e is IssueCommentTrigger => e.name === 'issue_comment'
export const isIssuesTrigger = (e: TriggerEvent): e is IssuesTrigger => e.name === 'issues'
export const isPullRequestTrigger = (e: TriggerEvent): e is PullRequestTrigger =>
  e.name === 'pull_request' || e.name === 'pull_request_target'
export const isPullRequestReviewTrigger = (e: TriggerEvent): e is PullRequestReviewTrigger =>
  e.name === 'pull_request_review'
export const isWorkflowRunTrigger = (e: TriggerEvent): e is WorkflowRunTrigger => e.name === 'workflow_run'
export const isPushTrigger = (e: TriggerEvent): e is PushTrigger => e.name === 'push'
export const isScheduleTrigger = (e: TriggerEvent): e is ScheduleTrigger => e.name === 'schedule'
export const isDispatchTrigger = (e: TriggerEvent): e is DispatchTrigger => e.name === 'workflow_dispatch'

type Json = Record<string, unknown>
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {})
const str = (v: unknown): string => (typeof v === 'string' ? v : '')
const login = (v: unknown): string => str(obj(v).login)

function issueOf(value: unknown): IssuePayload {
  const issue = obj(value)
  return {
    number: Number(issue.number),
    title: str(issue.title),
    body: str(issue.body),
    author: login(issue.user),
    authorType: str(obj(issue.user).type),
    isPullRequest: issue.pull_request !== undefined && issue.pull_request !== null
  }
}

function pullOf(value: unknown, number?: unknown): PullPayload {
  const pull = obj(value)
  const head = obj(pull.head)
  const repo = str(obj(head.repo).full_name)
  return {
    number: Number(number ?? pull.number),
    title: str(pull.title),
    body: str(pull.body),
    author: login(pull.user),
    authorType: str(obj(pull.user).type),
    head: { ref: str(head.ref), sha: str(head.sha), ...(repo ? { repo } : {}) },
    base: { ref: str(obj(pull.base).ref) }
  }
}

/**
 * GITHUB_EVENT_NAME and the payload as a typed trigger, with its sender; payloads missing what a kind needs are
 * unsupported.
 */
export function parseTriggerEvent(eventName: string, payloadValue: unknown): SentTrigger {
  const trigger = parseKind(eventName, payloadValue)
  const sender = obj(obj(payloadValue).sender)
  const senderLogin = str(sender.login)
  return senderLogin ? { ...trigger, from: { login: senderLogin, type: str(sender.type) } } : trigger
}

function parseKind(eventName: string, payloadValue: unknown): TriggerEvent {
  const payload = obj(payloadValue)
  const action = str(payload.action)
  const sender = login(payload.sender)
  switch (eventName) {
    case 'issue_comment': {
      const comment = obj(payload.comment)
      if (!payload.issue || !payload.comment) break
      return {
        name: 'issue_comment',
        action,
        issue: issueOf(payload.issue),
        comment: {
          id: Number(comment.id),
          body: str(comment.body),
          author: login(comment.user),
          authorType: str(obj(comment.user).type),
          createdAt: str(comment.created_at),
          updatedAt: str(comment.updated_at)
        }
      }
    }
    case 'issues':
      if (!payload.issue) break
      return {
        name: 'issues',
        action,
        issue: issueOf(payload.issue),
        ...(payload.label ? { label: str(obj(payload.label).name) } : {}),
        sender
      }
    case 'pull_request':
    case 'pull_request_target':
      if (!payload.pull_request) break
      return {
        name: eventName,
        action,
        ...pullOf(payload.pull_request, payload.number),
        ...(payload.label ? { label: str(obj(payload.label).name) } : {}),
        sender
      }
    case 'pull_request_review': {
      const review = obj(payload.review)
      if (!payload.review || !payload.pull_request) break
      return {
        name: 'pull_request_review',
        action,
        review: {
          id: Number(review.id),
          body: str(review.body),
          state: str(review.state),
          author: login(review.user),
          authorType: str(obj(review.user).type),
          commitId: str(review.commit_id)
        },
        pull: pullOf(payload.pull_request),
        sender
      }
    }
    case 'workflow_run': {
      const run = obj(payload.workflow_run)
      if (!payload.workflow_run) break
      return {
        name: 'workflow_run',
        action,
        run: {
          id: Number(run.id),
          workflow: str(run.name),
          path: str(run.path),
          event: str(run.event),
          conclusion: str(run.conclusion),
          headBranch: str(run.head_branch),
          headSha: str(run.head_sha),
          headRepo: str(obj(run.head_repository).full_name),
          runNumber: Number(run.run_number),
          runAttempt: Number(run.run_attempt),
          url: str(run.html_url)
        },
        sender
      }
    }
    case 'pull_request_review_comment':
      return { name: 'pull_request_review_comment', action }
    case 'push':
      return { name: 'push', ref: str(payload.ref), deleted: payload.deleted === true, sender }
    case 'schedule':
      return { name: 'schedule', ...(payload.schedule ? { schedule: str(payload.schedule) } : {}) }
    case 'workflow_dispatch':
      return { name: 'workflow_dispatch', sender, inputs: obj(payload.inputs) }
  }
  return { name: 'unsupported', eventName }
}
