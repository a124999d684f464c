// What the run says of its held-out gates (#37): in the stop's detail, the record and the pull request. With
// `holdout-feedback: none` a failure is one fixed line: no gate's name, no output, nothing a next run could use.
import type { HoldoutRecord } from '../results.js'

/** What the loop hears of a failure with `holdout-feedback: none`: this line, nothing else. */
export const HOLDOUT_FAILED = 'a held-out gate failed'

/** The failure's line: that one failed, or (full) which failed. Empty when they passed. */
export function holdoutFeedback(record: HoldoutRecord): string {
  if (record.passed) return ''
  const failed = (record.runs ?? []).filter(run => !run.passed).map(run => run.name)
  if (record.feedback === 'none' || failed.length === 0) return HOLDOUT_FAILED
  return `${HOLDOUT_FAILED} (${failed.join(', ')})`
}
