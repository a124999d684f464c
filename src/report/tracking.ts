// The tracking comment's body: "working…" with the iterations so far, then the outcome. Pure functions of
// the run's status; github/tracking.ts posts and edits them.
import {
  formatDuration,
  STOP_WORDS,
  verdictLabel,
  type IterationRecord,
  type LoopStatus
} from '../loop/index.js'
import { cell, code, fit } from '../text/markdown.js'

/** GitHub refuses comment bodies over 65,536 characters; stay well under. */
export const MAX_COMMENT_CHARS = 65000
/** Iterations shown in the comment (the rest are in the run record). */
export const TRACKING_ROWS = 25

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

/** How the run ended, for the final edit. */
export interface TrackingOutcome {
  status: LoopStatus
  pullRequest?: { number: number; url: string; operation: 'created' | 'updated' }
  /** One more sentence: why nothing was delivered, a delivery problem, where the artifact is. */
  note?: string
  /** The work should have been delivered and was not (a push refused): the headline must not say ✅. */
  undelivered?: boolean
  /** The loop goes on in another run (continue-jobs), which edits this comment again. */
  continued?: boolean
}

/** The hidden first line of a tracking comment; `state` says whether a step still has to finalise it. */
export const trackingMarker = (runId: string, state: 'working' | 'final'): string =>
  `<!-- ralph-action:tracking run=${runId.replace(/[^0-9A-Za-z_-]/g, '')} state=${state} -->`

export function renderWorking(info: TrackingInfo, status?: LoopStatus): string {
  const n = status?.iterations.length ?? 0
  const of = info.maxIterations ? ` of at most ${info.maxIterations}` : ''
  const now = n === 0 ? 'starting' : `${n} iteration${n === 1 ? '' : 's'} done${of}`
  const lines = [
    trackingMarker(info.runId, 'working'),
    `### 🔁 ralph ${code(cell(info.ralphName, 80))} is working… (${now})`,
    ''
  ]
  if (status && n > 0) lines.push(table(status.iterations), '', `Cost so far: ${cost(status)}.`, '')
  lines.push(footer(info))
  return fit(lines.join('\n'), MAX_COMMENT_CHARS)
}

export function renderFinal(info: TrackingInfo, outcome: TrackingOutcome): string {
  const { status, pullRequest } = outcome
  const n = status.iterations.length
  const headline = outcome.continued
    ? "⏩ Out of this job's time: the loop goes on in the next run"
    : outcome.undelivered && status.success
      ? '⚠️ Every gate passed, but the work was not delivered'
      : status.stopReason !== undefined
        ? `${STOP_WORDS[status.stopReason].icon} ${STOP_WORDS[status.stopReason].headline}`
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
  return fit(lines.join('\n'), MAX_COMMENT_CHARS)
}

function table(iterations: IterationRecord[]): string {
  const shown = iterations.slice(-TRACKING_ROWS)
  const rows = ['| # | Verdict | Gates | Cost | Time |', '| --- | --- | --- | --- | --- |']
  for (const it of shown) {
    const gates = it.checks.length
      ? it.checks.map(c => `${c.passed ? '✓' : '✗'} ${code(cell(c.name, 80))}`).join(' ')
      : '–'
    const spent = !it.agent
      ? '–'
      : it.agent.usage.cost_source === 'unknown'
        ? '?'
        : `$${it.agent.usage.cost_usd.toFixed(2)}`
    rows.push(
      `| ${it.iteration} | ${verdictLabel(it.verdict)} | ${gates} | ${spent} | ${formatDuration(it.durationMs)} |`
    )
  }
  const hidden = iterations.length - shown.length
  if (hidden > 0)
    rows.push('', `_${hidden} earlier iteration${hidden === 1 ? '' : 's'} are in the run record._`)
  return rows.join('\n')
}

function footer(info: TrackingInfo): string {
  const parts = [`[The run](${info.runUrl})`]
  if (info.branch) parts.push(`branch ${code(cell(info.branch, 80))}`)
  if (info.actor) parts.push(`started by @${info.actor}`)
  return parts.join(' · ')
}

function cost(status: LoopStatus): string {
  if (status.cost.source === 'unknown' && status.cost.totalUsd === 0)
    return 'unknown (the agent reported none)'
  const max = status.cost.maxUsd !== undefined ? ` of $${status.cost.maxUsd.toFixed(2)}` : ''
  return `$${status.cost.totalUsd.toFixed(2)}${max} (${status.cost.source})`
}
