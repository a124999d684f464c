// The pull request's title and body: what was asked, the iteration table, the gates, the cost, links to the
// run and its record, and `Closes #N` when an issue started the run. Kept under GitHub's 65,536 characters
// by cutting the task first (it is in the run record), then the table.
import { codeCell } from '../text/markdown.js'
import {
  formatCost,
  formatDuration,
  gateEvidence,
  iterationTable,
  REVERTS_HEADING,
  REVERTS_INTRO,
  revertList,
  type RunReport
} from './run-report.js'

/** GitHub refuses longer bodies (422 "body is too long"). */
export const MAX_PR_BODY_CHARS = 65_536
/** Room kept under the limit for the marker and whatever delivery appends. */
const BODY_BUDGET = MAX_PR_BODY_CHARS - 1_536
const TASK_CHARS = 6_000
/** Lines of what was left out shown in the body (the record keeps them all). */
const NOT_DELIVERED_LINES = 20

/** In every pull request body the action writes: with its author, it tells the action's own apart. */
export const PULL_REQUEST_MARKER = '<!-- ralph-action:pull-request -->'

export interface PullRequestText {
  title: string
  body: string
}

export interface PrBodyOptions {
  /** `Closes #N`: the issue that started the run (issue 6 wires the triggers). */
  closes?: number
  /** The pull request's title from the input; default names the ralph and the task. */
  title?: string
  /** The work did not pass its gates (on-failure: draft-pr). */
  failing?: boolean
  /** A line added to the body, e.g. that the PR was made with GITHUB_TOKEN. */
  note?: string
  /** The "Review these" section (#37): delivered lines that touch what a test runner judges by. */
  review?: string
}

function quoteBlock(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .trimEnd()
    .split('\n')
    .map(line => `> ${line}`)
    .join('\n')
}

/** First line of the task, plain, for a default title. */
function taskHeadline(text: string): string {
  const line = text
    .replace(/<!--[\s\S]*?-->/g, '')
    .split('\n')
    .map(l =>
      l
        .replace(/^#+\s*/, '')
        .replace(/\{\{[^}]*\}\}/g, '')
        .replace(/\s{2,}/g, ' ')
        .trim()
    )
    .find(l => l !== '')
  return line ?? ''
}

/** The body's first Markdown heading (a ralph author's own title), plain; '' when it has none. */
function firstHeading(text: string): string {
  const match = /^#{1,3}[ \t]+(.+)$/m.exec(text.replace(/<!--[\s\S]*?-->/g, ''))
  return match
    ? match[1]
        .replace(/\{\{[^}]*\}\}/g, '')
        .replace(/\s{2,}/g, ' ')
        .replace(/#+$/, '')
        .trim()
    : ''
}

/** What the gates say, for a title: `tests, lint green after 3 iterations`. */
function gatesHeadline(report: RunReport): string {
  const names = [...new Set(report.status.iterations.flatMap(it => it.checks.map(c => c.name)))]
  const n = report.status.iterations.length
  const after = `after ${n} iteration${n === 1 ? '' : 's'}`
  if (names.length === 0) return `done ${after}`
  const shown = names.length > 3 ? `${names.slice(0, 3).join(', ')} +${names.length - 3}` : names.join(', ')
  return `${shown} green ${after}`
}

/**
 * The default title: a ralph's is its own first heading, else what its gates say (its first line is an
 * instruction to the agent, not a title); an inline task's (a `/ralph` comment, the task input) is its
 * first line, as a person wrote it.
 */
export function pullRequestTitle(report: RunReport, options: PrBodyOptions = {}): string {
  if (options.title) return options.title
  const prefix = options.failing ? '[gates failing] ' : ''
  const own = report.task.file ? firstHeading(report.task.text) : taskHeadline(report.task.text)
  const headline =
    own ||
    (report.task.file
      ? options.failing
        ? gatesHeadline(report).replace(/^.* (after)/, '$1')
        : gatesHeadline(report)
      : '')
  const short = headline.length > 72 ? `${headline.slice(0, 71)}…` : headline
  return `${prefix}ralph ${report.task.name}${short ? `: ${short}` : ''}`
}

function taskSection(report: RunReport, limit: number): string {
  const { task } = report
  const source = task.file ? `The ralph ${codeCell(task.name)} (${codeCell(task.file)}) asked:` : 'The task:'
  const text = task.text.trim()
  const cut = text.length > limit
  const shown = cut ? `${text.slice(0, limit)}…` : text
  return [
    '### What was asked',
    '',
    source,
    '',
    shown ? quoteBlock(shown) : '> (empty)',
    ...(cut
      ? ['', `_The task is cut here: it is ${text.length} characters; the whole of it is in the run record._`]
      : [])
  ].join('\n')
}

function render(report: RunReport, options: PrBodyOptions, taskLimit: number, rows: number): string {
  const { status, links } = report
  const n = status.iterations.length
  const result = status.success
    ? `Every gate passed in iteration ${n}.`
    : `The gates did not pass (${status.stopReason ?? 'unfinished'}${status.stopDetail ? `: ${status.stopDetail.replace(/\.$/, '')}` : ''}). This draft holds the work so far for a person to finish.`
  const record = links.artifactName
    ? `the run record is the artifact ${codeCell(links.artifactName)} on [the run's page](${links.run}#artifacts)`
    : `[the run](${links.run})`
  const sections = [
    taskSection(report, taskLimit),
    [
      '### Result',
      '',
      result,
      '',
      `Cost ${formatCost(status)} · ${formatDuration(status.durationMs)} · ${n} iteration${n === 1 ? '' : 's'}`
    ].join('\n'),
    ['### Gates', '', gateEvidence(status)].join('\n'),
    ['### Iterations', '', iterationTable(status, rows)].join('\n'),
    ...(options.review ? [options.review.trimEnd()] : []),
    ...(revertList(status) ? [[REVERTS_HEADING, '', REVERTS_INTRO, '', revertList(status)].join('\n')] : []),
    ...(status.notDelivered?.length
      ? [
          [
            '### Not delivered',
            '',
            ...status.notDelivered.slice(0, NOT_DELIVERED_LINES).map(line => `- ${codeCell(line, 300)}`),
            ...(status.notDelivered.length > NOT_DELIVERED_LINES
              ? [`- … and ${status.notDelivered.length - NOT_DELIVERED_LINES} more, in the run record`]
              : [])
          ].join('\n')
        ]
      : []),
    [
      '---',
      `Made by a ralph loop in [run ${links.run.split('/runs/')[1]?.split('/')[0] ?? ''}](${links.run}); ${record}.`,
      ...(options.note ? ['', options.note] : []),
      ...(options.closes !== undefined ? ['', `Closes #${options.closes}`] : [])
    ].join('\n')
  ]
  return `${PULL_REQUEST_MARKER}\n${sections.join('\n\n')}\n`
}

/** The pull request's title and body, within GitHub's length limit. */
export function pullRequestText(report: RunReport, options: PrBodyOptions = {}): PullRequestText {
  const title = pullRequestTitle(report, options)
  let body = render(report, options, TASK_CHARS, 50)
  if (body.length > BODY_BUDGET) {
    // Cut the task to what fits beside the rest, then the table.
    const without = render(report, options, 0, 50).length
    body = render(report, options, Math.max(500, BODY_BUDGET - without - 500), 50)
  }
  if (body.length > BODY_BUDGET) body = render(report, options, 500, 10)
  if (body.length > BODY_BUDGET) body = `${body.slice(0, BODY_BUDGET)}\n\n_(cut to GitHub's limit)_\n`
  return { title: title.length > 256 ? `${title.slice(0, 255)}…` : title, body }
}
