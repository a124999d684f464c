// Feedback on the issue: 👀 on the triggering comment at once, then ONE tracking comment, created when the
// loop starts, edited after every iteration (iteration, gates ✓/✗, cost so far, a link to the run) and
// finalised with the outcome and the pull request. The post step finalises it as cancelled when main did
// not, so it never stays "working…". Failures to give feedback are warnings: they never fail a run.
import type { IterationRecord, LoopEvent, LoopStatus, StopReason } from '../loop/index.js'
import type { Octokit } from './client.js'
import { postComment } from './comments.js'
import { verdictLabel } from './run-report.js'

/** GitHub refuses comment bodies over 65,536 characters; stay well under. */
export const MAX_COMMENT_CHARS = 65000
/** Iterations shown in the comment (the rest are in the run record). */
export const TRACKING_ROWS = 25

export interface IssueTarget {
  owner: string
  repo: string
  issueNumber: number
}

export interface TrackingInfo {
  /** Shown in the title. */
  ralphName: string
  /** GITHUB_RUN_ID: the marker ties the comment to this run. */
  runId: string
  runUrl: string
  branch?: string
  /** Who started it (without @). */
  actor?: string
  maxIterations?: number
}

export type Warn = (message: string) => void

/** The hidden first line of a tracking comment; `state` says whether a step still has to finalise it. */
export const trackingMarker = (runId: string, state: 'working' | 'final'): string =>
  `<!-- ralph-action:tracking run=${runId.replace(/[^0-9A-Za-z_-]/g, '')} state=${state} -->`
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
    return (await postComment(octokit, target, fit(reply))).html_url
  } catch (error) {
    warn(`Could not reply on #${target.issueNumber}: ${messageOf(error)}`)
    return undefined
  }
}

/** How the run ended, for the final edit. */
export interface TrackingOutcome {
  status: LoopStatus
  pullRequest?: { number: number; url: string; operation: 'created' | 'updated' }
  /** One more sentence: why nothing was delivered, a delivery problem, where the artifact is. */
  note?: string
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
    status: status ?? emptyStatus(),
    note: finished
      ? 'The run finished, but its last report did not reach this comment; the record is in the run’s artifact.'
      : 'The run was cancelled or timed out before it finished; its record is in the run’s artifact.'
  })
  return done ? 'finalised' : 'failed'
}

// --- bodies ----------------------------------------------------------------------------------------

const HEADLINE: Record<StopReason, string> = {
  all_checks_passed: '✅ Every gate passed',
  completed: '✅ Done (the agent said so; no gates)',
  max_iterations: '❌ Used every iteration without passing the gates',
  budget_exhausted: '💸 Out of budget',
  timeout: '⏱️ Out of time',
  circuit_open: '❌ Stopped: no progress',
  agent_error: '💥 Stopped on an error',
  cancelled: '⏹️ Cancelled',
  already_green: '✅ Nothing to do: every gate already passed'
}

export function renderWorking(info: TrackingInfo, status?: LoopStatus): string {
  const n = status?.iterations.length ?? 0
  const of = info.maxIterations ? ` of at most ${info.maxIterations}` : ''
  const now = n === 0 ? 'starting' : `${n} iteration${n === 1 ? '' : 's'} done${of}`
  const lines = [
    trackingMarker(info.runId, 'working'),
    `### 🔁 ralph ${code(info.ralphName)} is working… (${now})`,
    ''
  ]
  if (status && n > 0) lines.push(table(status.iterations), '', `Cost so far: ${cost(status)}.`, '')
  lines.push(footer(info))
  return fit(lines.join('\n'))
}

export function renderFinal(info: TrackingInfo, outcome: TrackingOutcome): string {
  const { status, pullRequest } = outcome
  const n = status.iterations.length
  const headline =
    status.stopReason !== undefined
      ? HEADLINE[status.stopReason]
      : status.state === 'finished'
        ? '⏹️ Finished'
        : '⏹️ Cancelled'
  const after =
    status.stopReason === 'already_green' ? '(no agent ran)' : `after ${n} iteration${n === 1 ? '' : 's'}`
  const pr = pullRequest
    ? ` — pull request #${pullRequest.number} ${pullRequest.operation === 'created' ? 'opened' : 'updated'}: ${pullRequest.url}`
    : ''
  const lines = [trackingMarker(info.runId, 'final'), `### ${headline} ${after}${pr}`, '']
  if (status.stopDetail) lines.push(`${cell(status.stopDetail, 400)}.`.replace(/\.\.$/, '.'), '')
  if (outcome.note) lines.push(cell(outcome.note, 1000), '')
  if (n > 0) lines.push(table(status.iterations), '', `Cost: ${cost(status)}.`, '')
  lines.push(footer(info))
  return fit(lines.join('\n'))
}

function table(iterations: IterationRecord[]): string {
  const shown = iterations.slice(-TRACKING_ROWS)
  const rows = ['| # | Verdict | Gates | Cost | Time |', '| --- | --- | --- | --- | --- |']
  for (const it of shown) {
    const gates = it.checks.length
      ? it.checks.map(c => `${c.passed ? '✓' : '✗'} ${code(c.name)}`).join(' ')
      : '–'
    const spent = !it.agent
      ? '–'
      : it.agent.usage.cost_source === 'unknown'
        ? '?'
        : `$${it.agent.usage.cost_usd.toFixed(2)}`
    rows.push(
      `| ${it.iteration} | ${verdictLabel(it.verdict)} | ${gates} | ${spent} | ${duration(it.durationMs)} |`
    )
  }
  const hidden = iterations.length - shown.length
  if (hidden > 0)
    rows.push('', `_${hidden} earlier iteration${hidden === 1 ? '' : 's'} are in the run record._`)
  return rows.join('\n')
}

function footer(info: TrackingInfo): string {
  const parts = [`[The run](${info.runUrl})`]
  if (info.branch) parts.push(`branch ${code(info.branch)}`)
  if (info.actor) parts.push(`started by @${info.actor}`)
  return parts.join(' · ')
}

function cost(status: LoopStatus): string {
  if (status.cost.source === 'unknown' && status.cost.totalUsd === 0)
    return 'unknown (the agent reported none)'
  const max = status.cost.maxUsd !== undefined ? ` of $${status.cost.maxUsd.toFixed(2)}` : ''
  return `$${status.cost.totalUsd.toFixed(2)}${max} (${status.cost.source})`
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  return m < 60 ? `${m}m ${s % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`
}

/** One line for a table or a sentence: no pipes, no newlines, bounded. */
function cell(text: string, max: number): string {
  const flat = text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

function code(text: string): string {
  const flat = cell(text, 80)
  return flat.includes('`') ? `\`\` ${flat} \`\`` : `\`${flat}\``
}

/** Keeps a body under GitHub's limit, cutting the middle of the text, never the marker. */
export function fit(body: string, max = MAX_COMMENT_CHARS): string {
  if (body.length <= max) return body
  const note = '\n\n_[… cut to fit GitHub’s comment limit]_\n\n'
  const head = Math.floor((max - note.length) * 0.6)
  const tail = max - note.length - head
  return body.slice(0, head) + note + body.slice(body.length - tail)
}

function emptyStatus(): LoopStatus {
  return {
    version: 1,
    state: 'running',
    ralph: { name: '', file: '', dir: '' },
    projectRoot: '',
    workTree: '',
    recordDir: '',
    startedAt: new Date(0).toISOString(),
    durationMs: 0,
    budgets: {},
    start: {},
    iterations: [],
    cost: {
      totalUsd: 0,
      source: 'unknown',
      enforced: true,
      tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 }
    },
    success: false,
    warnings: []
  }
}

function messageOf(error: unknown): string {
  // No answer (a reset, a timeout) has Octokit's stand-in status 500 but no response: no status to show.
  const answered = (error as { response?: unknown })?.response !== undefined
  const status = answered ? (error as { status?: unknown }).status : undefined
  const message = error instanceof Error ? error.message.split('\n')[0].slice(0, 200) : String(error)
  return typeof status === 'number' ? `HTTP ${status}: ${message}` : message
}
