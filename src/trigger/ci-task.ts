// A failing CI run as the task of a round: the failing jobs and steps, and the end of each failing job's log
// as a reader of the Actions log would want it: no timestamps, no colour codes, no workflow commands (the
// runner's `##[group]`, `##[error]`…), cut where the failing step ended, bounded per job and in all. The log
// is the output of code the pull request holds, so it is data like an issue: sanitised and fenced.
import type { FailedJob, LogTail } from '../github/ci-jobs.js'
import { code, fence } from '../text/markdown.js'
import { MAX_TASK_CHARS, sanitizeText } from './sanitize.js'

export interface CiTaskInput {
  pullNumber: number
  run: {
    id: number
    workflow: string
    runNumber: number
    runAttempt: number
    conclusion: string
    headSha: string
    event: string
    url: string
  }
  /** The failing jobs, each with its log's end or why it could not be read. */
  jobs: { job: FailedJob; log?: LogTail; logProblem?: string }[]
}

/** Bounds: lines and characters of one job's log, characters of all logs together, and jobs shown with a log. */
export const CI_BOUNDS = { lines: 150, jobChars: 6000, totalChars: 18000, jobs: 6 } as const

const TIMESTAMP = /^\uFEFF?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]/g
// The runner's own markers at a line's start: a group, a step's command, an annotation.
const LINE_COMMAND = /^##\[(group|endgroup|command|error|warning|notice|debug|section)\](.*)$/i
// The `::name params::data` form, as a program printed it (the runner shows it when commands are stopped).
const COLON_COMMAND = /^[\s\u0085]*::([A-Za-z][\w-]*)(?:[ \t][^\n]*?)?::(.*)$/
// Anything else of the legacy form, anywhere in a line (the runner acts on it anywhere).
const LEGACY_COMMAND = /##\[[^\]\n]*\]/g
const LABELS: Record<string, string> = { error: 'Error: ', warning: 'Warning: ', notice: 'Notice: ' }

/** One log line with its timestamp, colours and workflow commands taken out; undefined: nothing left to show. */
function cleanLine(raw: string): string | undefined {
  let line = raw.replace(TIMESTAMP, '').replace(ANSI, '')
  const marked = LINE_COMMAND.exec(line)
  if (marked) {
    const kind = marked[1].toLowerCase()
    if (kind === 'endgroup') return undefined
    line = (LABELS[kind] ?? '') + marked[2]
  } else {
    const colon = COLON_COMMAND.exec(line)
    if (colon) {
      const kind = colon[1].toLowerCase()
      // A mask names a secret; stop-commands a token: neither is the agent's business.
      if (kind === 'add-mask' || kind === 'stop-commands' || kind === 'endgroup') return undefined
      line = (LABELS[kind] ?? '') + colon[2]
    }
  }
  // Until none is left: taking one out must not join two halves into a new one.
  for (let before = ''; before !== line;) {
    before = line
    line = line.replace(LEGACY_COMMAND, '')
  }
  return line.replace(/##\[/g, '## [').replace(/^([\s\u0085]*):(?=:)/, '$1: ')
}

/**
 * A job log made readable: timestamps, colours and workflow commands out, and cut after its last error line
 * (the failing step's end: what follows is the runner tidying up).
 */
export function cleanLog(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n')
  let end = lines.length - 1
  while (end >= 0 && !/##\[error\]/i.test(lines[end])) end--
  const kept = end >= 0 ? lines.slice(0, end + 1) : lines
  return kept.flatMap(line => cleanLine(line) ?? []).join('\n')
}

/** The last `lines` lines of `text`, within `chars` characters (whole lines), and how many were left out. */
export function logExcerpt(
  text: string,
  bounds: { lines: number; chars: number }
): { text: string; omitted: number } {
  const all = text.split('\n')
  let kept = all.slice(-bounds.lines)
  let size = kept.reduce((n, line) => n + line.length + 1, 0)
  while (kept.length > 1 && size > bounds.chars) {
    size -= kept[0].length + 1
    kept = kept.slice(1)
  }
  // One line longer than the bound on its own: its end.
  if (size > bounds.chars) kept = [`…${kept[0].slice(-(bounds.chars - 1))}`]
  return { text: kept.join('\n'), omitted: all.length - kept.length }
}

const said = (conclusion: string): string => (conclusion === 'timed_out' ? 'timed out' : 'failed')
const name = (text: string): string =>
  code(sanitizeText(text, { singleLine: true, maxChars: 200 }) || '(unnamed)')

function jobSection(entry: CiTaskInput['jobs'][number], chars: number): string {
  const { job } = entry
  const steps = job.failedSteps.map(step => `${name(step.name)} (step ${step.number})`)
  const parts = [
    `### Job ${name(job.name)}: ${said(job.conclusion)}`,
    steps.length ? `Failed step${steps.length === 1 ? '' : 's'}: ${steps.join(', ')}` : ''
  ]
  if (entry.log) {
    const excerpt = logExcerpt(cleanLog(entry.log.text), { lines: CI_BOUNDS.lines, chars })
    const left = entry.log.cut || excerpt.omitted > 0
    const said = `The end of its log (timestamps and workflow commands removed${left ? '; the lines before are left out' : ''}):`
    // Fenced before sanitising: a log is code output, its angle brackets and attributes are what it says.
    parts.push(
      `${said}\n${sanitizeText(fence(excerpt.text || '(empty)', 'text'), { maxChars: Number.MAX_SAFE_INTEGER })}`
    )
  } else
    parts.push(
      `(Its log could not be read: ${sanitizeText(entry.logProblem ?? 'no log', { singleLine: true, maxChars: 200 })}.)`
    )
  return parts.filter(Boolean).join('\n\n')
}

/** The failing CI run as task markdown. */
export function renderCiTask(input: CiTaskInput): string {
  const { run } = input
  const shown = input.jobs.slice(0, CI_BOUNDS.jobs)
  const withLogs = Math.max(1, shown.filter(entry => entry.log).length)
  const chars = Math.min(CI_BOUNDS.jobChars, Math.floor(CI_BOUNDS.totalChars / withLogs))
  const parts = [
    `## CI failed on pull request #${input.pullNumber}`,
    `The workflow ${name(run.workflow)} (run #${run.runNumber}${run.runAttempt > 1 ? `, attempt ${run.runAttempt}` : ''}, ` +
      `started by ${name(run.event)}) ${said(run.conclusion)} on commit ${code(run.headSha.slice(0, 12))}.`,
    "This CI is the repository's own, not one of the loop's gates: the gates still decide, and the work is " +
      'verified on a clean checkout before it is pushed. Fix what the failure below shows; changing a test or ' +
      'the CI configuration to turn it green is not a fix.',
    ...shown.map(entry => jobSection(entry, chars))
  ]
  if (input.jobs.length === 0)
    parts.push(
      '(GitHub listed no failing job for this run: the workflow may have failed before any job ran.)'
    )
  const rest = input.jobs.slice(CI_BOUNDS.jobs)
  if (rest.length > 0)
    parts.push(
      `(${rest.length} more failing job${rest.length === 1 ? '' : 's'} not shown: ${rest.map(e => name(e.job.name)).join(', ')})`
    )
  const task = parts.join('\n\n')
  return task.length <= MAX_TASK_CHARS ? task : sanitizeText(task, { maxChars: MAX_TASK_CHARS })
}
