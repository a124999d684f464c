// Feedback on the issue: 👀 on the triggering comment at once, then ONE tracking comment, created when the
// loop starts, edited after every iteration (iteration, gates ✓/✗, cost so far, a link to the run) and
// finalised with the outcome and the pull request. The post step finalises it as cancelled when main did
// not, so it never stays "working…". Failures to give feedback are warnings: they never fail a run.
import { startingStatus, type LoopEvent, type LoopStatus } from '../loop/index.js'
import type { Octokit } from './client.js'
import { postComment } from './comments.js'
import { fit } from '../text/markdown.js'
import {
  MAX_COMMENT_CHARS,
  renderFinal,
  renderWorking,
  type TrackingInfo,
  type TrackingOutcome
} from '../report/tracking.js'

export interface IssueTarget {
  owner: string
  repo: string
  issueNumber: number
}

export type Warn = (message: string) => void

const MARKER_RE = /^<!-- ralph-action:tracking run=([0-9A-Za-z_-]*) state=(working|final) -->/

/** 👀 on the triggering comment (or on the issue when a label started it). Answers whether it worked. */
export async function acknowledge(
  octokit: Octokit,
  target: IssueTarget & { commentId?: number },
  warn: Warn = () => {}
): Promise<boolean> {
  try {
    if (target.commentId !== undefined)
      await octokit.rest.reactions.createForIssueComment({
        owner: target.owner,
        repo: target.repo,
        comment_id: target.commentId,
        content: 'eyes'
      })
    else
      await octokit.rest.reactions.createForIssue({
        owner: target.owner,
        repo: target.repo,
        issue_number: target.issueNumber,
        content: 'eyes'
      })
    return true
  } catch (error) {
    warn(`Could not react with 👀 on #${target.issueNumber}: ${messageOf(error)}`)
    return false
  }
}

/** Posts a refusal (TriggerPlan's `reply`) on the issue; answers the reply's URL, or undefined. */
export async function postRefusal(
  octokit: Octokit,
  target: IssueTarget,
  reply: string,
  warn: Warn = () => {}
): Promise<string | undefined> {
  try {
    return (await postComment(octokit, target, fit(reply, MAX_COMMENT_CHARS))).html_url
  } catch (error) {
    warn(`Could not reply on #${target.issueNumber}: ${messageOf(error)}`)
    return undefined
  }
}

/** The one tracking comment of a run. Create it when the loop starts; keep `id` in the step state. */
export class TrackingComment {
  private finalised = false

  private constructor(
    private readonly octokit: Octokit,
    readonly target: IssueTarget,
    readonly info: TrackingInfo,
    readonly id: number,
    readonly url: string,
    private readonly warn: Warn
  ) {}

  /** Posts "working…" and answers the comment; undefined (with a warning) when GitHub refused. */
  static async create(
    octokit: Octokit,
    target: IssueTarget,
    info: TrackingInfo,
    warn: Warn = () => {}
  ): Promise<TrackingComment | undefined> {
    try {
      const data = await postComment(octokit, target, renderWorking(info))
      return new TrackingComment(octokit, target, info, data.id, data.html_url, warn)
    } catch (error) {
      warn(`Could not post the tracking comment on #${target.issueNumber}: ${messageOf(error)}`)
      return undefined
    }
  }

  /**
   * A chain's comment, posted by its first run, from the id its continuation names: only a tracking comment
   * of this action on that issue is taken (undefined otherwise, and a new one is posted).
   */
  static async resume(
    octokit: Octokit,
    target: IssueTarget,
    info: TrackingInfo,
    id: number,
    warn: Warn = () => {}
  ): Promise<TrackingComment | undefined> {
    try {
      const { data } = await octokit.rest.issues.getComment({
        owner: target.owner,
        repo: target.repo,
        comment_id: id
      })
      const onIssue = data.issue_url.endsWith(`/issues/${target.issueNumber}`)
      if (!onIssue || !MARKER_RE.test(data.body ?? '')) return undefined
      return new TrackingComment(octokit, target, info, id, data.html_url, warn)
    } catch (error) {
      warn(`The chain's tracking comment ${id} could not be read (${messageOf(error)}): posting a new one.`)
      return undefined
    }
  }

  /** The comment again, from an id saved in the step state (the post step). */
  static attach(
    octokit: Octokit,
    target: IssueTarget,
    info: TrackingInfo,
    id: number,
    warn: Warn = () => {}
  ): TrackingComment {
    return new TrackingComment(octokit, target, info, id, '', warn)
  }

  /** After each iteration: the table so far, the cost so far. Tried once: the next edit carries it. */
  async update(status: LoopStatus): Promise<boolean> {
    if (this.finalised) return false
    return this.edit(renderWorking(this.info, status), false)
  }

  /**
   * A listener for runLoop's `emit` that edits the comment after each iteration: one edit at a time, and
   * when iterations finish faster than GitHub answers, only the latest state is sent. Await `settled()`
   * before `finalise`, so a late progress edit cannot overwrite the outcome.
   */
  follow(): { emit: (event: LoopEvent) => void; settled: () => Promise<void> } {
    let status: LoopStatus | undefined
    let pending: LoopStatus | undefined
    let flight: Promise<void> = Promise.resolve()
    let flying = false
    const drain = async () => {
      flying = true
      while (pending) {
        const next = pending
        pending = undefined
        await this.update(next)
      }
      flying = false
    }
    return {
      emit: event => {
        if (event.type === 'loop_started') status = JSON.parse(JSON.stringify(event.status)) as LoopStatus
        if (!status) return
        if (event.type === 'cost_update') {
          status.cost.totalUsd = event.spentUsd
          status.cost.source = event.source
        }
        if (event.type !== 'iteration_finished') return
        status.iterations.push(event.record)
        pending = { ...status, iterations: [...status.iterations], cost: { ...status.cost } }
        if (!flying) flight = drain()
      },
      settled: () => flight
    }
  }

  async finalise(outcome: TrackingOutcome): Promise<boolean> {
    const done = await this.edit(renderFinal(this.info, outcome))
    if (done) this.finalised = true
    return done
  }

  private async edit(body: string, retry = true): Promise<boolean> {
    try {
      await this.octokit.rest.issues.updateComment({
        owner: this.target.owner,
        repo: this.target.repo,
        comment_id: this.id,
        body,
        ...(retry ? {} : { request: { retries: 0 } })
      })
      return true
    } catch (error) {
      this.warn(`Could not edit the tracking comment ${this.id}: ${messageOf(error)}`)
      return false
    }
  }
}

/**
 * For the post step: the tracking comment of this run, found by the id main saved (else by its marker
 * among the issue's comments by a bot), is finalised as cancelled unless main finalised it. `status` is
 * the run record's status.json as far as it got, when there is one.
 */
export async function finaliseCancelled(
  octokit: Octokit,
  target: IssueTarget & { commentId?: number },
  info: TrackingInfo,
  status?: LoopStatus,
  warn: Warn = () => {}
): Promise<'finalised' | 'already-final' | 'not-found' | 'failed'> {
  const repo = { owner: target.owner, repo: target.repo }
  let comment: { id: number; body?: string | null } | undefined
  try {
    if (target.commentId !== undefined) {
      comment = (await octokit.rest.issues.getComment({ ...repo, comment_id: target.commentId })).data
    } else {
      const all = await octokit.paginate(octokit.rest.issues.listComments, {
        ...repo,
        issue_number: target.issueNumber,
        per_page: 100
      })
      // Our own comment: the marker of this run, written by a bot (a person could copy the marker).
      comment = all
        .filter(c => c.user?.type === 'Bot' && MARKER_RE.exec(c.body ?? '')?.[1] === info.runId)
        .at(-1)
    }
  } catch (error) {
    if ((error as { status?: number }).status !== 404) {
      warn(`Could not read the tracking comment: ${messageOf(error)}`)
      return 'failed'
    }
  }
  const marker = MARKER_RE.exec(comment?.body ?? '')
  if (!comment || !marker || marker[1] !== info.runId) return 'not-found'
  if (marker[2] === 'final') return 'already-final'
  const tracking = TrackingComment.attach(octokit, target, info, comment.id, warn)
  const finished = status?.state === 'finished' && status.stopReason !== undefined
  const done = await tracking.finalise({
    status: status ?? startingStatus(),
    note: finished
      ? 'The run finished, but its last report did not reach this comment; the record is in the run’s artifact.'
      : 'The run was cancelled or timed out before it finished; its record is in the run’s artifact.'
  })
  return done ? 'finalised' : 'failed'
}

function messageOf(error: unknown): string {
  // No answer (a reset, a timeout) has Octokit's stand-in status 500 but no response: no status to show.
  const answered = (error as { response?: unknown })?.response !== undefined
  const status = answered ? (error as { status?: unknown }).status : undefined
  const message = error instanceof Error ? error.message.split('\n')[0].slice(0, 200) : String(error)
  return typeof status === 'number' ? `HTTP ${status}: ${message}` : message
}
