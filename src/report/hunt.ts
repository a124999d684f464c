// The body of a nightly hunt's failure report: its hidden marker (failures in a row, since when), the latest
// failure and what the issue is for. github/hunt-report.ts opens, updates and closes it.
import { fit } from '../text/markdown.js'

/** A hidden marker in the failure issue of a nightly hunt: labelling it is not a request. */
export const HUNT_REPORT_MARKER = '<!-- ralph-action:hunt-failure'

/** GitHub refuses issue bodies over 65,536 characters; stay well under. */
const MAX_ISSUE_CHARS = 65000

export interface FailureReport {
  owner: string
  repo: string
  ralphName: string
  runUrl: string
  /** One line: the stop reason and its detail. */
  reason: string
  /** Markdown below it (e.g. the iteration table); cut to fit. */
  details?: string
  /** Default `ralph`. */
  label?: string
  now?: Date
}

export const REPORT_RE =
  /^<!-- ralph-action:hunt-failure ralph=([A-Za-z0-9_-]+) failures=(\d+) first=([0-9-]+) -->/

export const reportMarker = (ralphName: string, failures: number, first: string): string =>
  `${HUNT_REPORT_MARKER} ralph=${ralphName} failures=${failures} first=${first} -->`

export function renderReport(report: FailureReport, failures: number, first: string, today: string): string {
  const times = failures === 1 ? 'once' : `${failures} times in a row, since ${first}`
  return fit(
    [
      reportMarker(report.ralphName, failures, first),
      `### The nightly hunt \`${report.ralphName}\` failed`,
      '',
      `**Latest (${today}):** ${oneLine(report.reason)} — [the run](${report.runUrl})`,
      '',
      `It has failed ${times}.`,
      ...(report.details ? ['', report.details] : []),
      '',
      `_ralph-action updates this issue on the next failure instead of opening another, and closes it when a ` +
        `hunt succeeds. Labelling it does not start a loop._`
    ].join('\n'),
    MAX_ISSUE_CHARS
  )
}

export const oneLine = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 500 ? `${flat.slice(0, 499)}…` : flat
}
