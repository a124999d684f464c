// What a run did, in the words the job summary and the pull request body share: the outcome sentence, the
// iteration table with each gate's ✓/✗, the gates, the cost and the duration. Pure functions of the result.
import { codeCell } from '../text/markdown.js'
import { STOP_WORDS, type LoopStatus, type StopReason } from '../loop/index.js'
import { showPath } from '../text/tree-path.js'

/** What the action did with the work after the loop. */
export interface DeliveryReport {
  branch?: string
  /** The last commit on the branch (pushed or not). */
  commit?: string
  pushed: boolean
  pullRequest?: { number: number; url: string; operation: 'created' | 'updated' }
  /** Why nothing was delivered, in a sentence ("the loop left no change against main"). */
  skipped?: string
  /** Known failures, each one line with its fix. */
  problems: string[]
  /** Things worth knowing that are not failures (e.g. "this PR will not trigger CI"). */
  notes: string[]
  /** The repository's budget: what the run reserved and spent, what is left today and this month (#38). */
  budget?: string
  /** The work as a patch, when it could not be pushed (also in the artifact). */
  patch?: { file: string; text: string }
  /** The loop goes on in another run (continue-jobs): its id and address when GitHub said them. */
  continued?: { runId?: string; url?: string }
  /** The loop should have gone on in another run and could not: why, in one line. */
  continuationFailed?: string
}

/** Where a continued loop goes on, in words: the next run, linked when its address is known. */
export function nextRunWords(continued: NonNullable<DeliveryReport['continued']>): string {
  const name = continued.runId !== undefined ? `run ${continued.runId}` : 'the next run of this workflow'
  return continued.url !== undefined ? `[${name}](${continued.url})` : name
}

/** A delivery that delivered nothing: skipped (a cancelled run), or failed with one problem. */
export function undelivered(branch: string, why: { skipped: string } | { problem: string }): DeliveryReport {
  if ('skipped' in why) return { branch, pushed: false, problems: [], notes: [], skipped: why.skipped }
  return { branch, pushed: false, problems: [why.problem], notes: [] }
}

/** Everything the summary and the pull request body are written from. */
export interface RunReport {
  /** The finished result, or the status of a run that was killed before it finished. */
  status: LoopStatus & { stopReason?: StopReason; stopDetail?: string }
  /** The ralph's name, its RALPH.md relative to the repository, or the inline task. */
  task: { name: string; file?: string; text: string }
  delivery: DeliveryReport
  /** `recordNotUploaded`: why the record is not an artifact (and where it is instead). */
  links: { run: string; artifact?: string; artifactName?: string; recordNotUploaded?: string }
  /** The base branch the work is compared with. */
  base?: string
  dryRun?: boolean
}

// The table, the charts and their small helpers are the run record's too (progress.md): one copy, in loop/.
// The gates' table, start to end, with the clean verification's sentence, is progress.md's too.
export { formatCost, formatDuration, gateEvidence, iterationTable, verdictLabel } from '../loop/index.js'

const pluralIterations = (n: number): string => `${n} iteration${n === 1 ? '' : 's'}`

/** The run in one sentence, starting with an emoji a reader can scan. */
export function outcomeSentence(report: RunReport): string {
  const { status, delivery, task } = report
  const name = `**${task.name}**`
  const n = status.iterations.length
  const reason = status.stopReason
  if (report.dryRun) return `🔎 Dry run of ${name}: the inputs and the ralph are valid; no agent ran.`
  if (reason === undefined || status.state !== 'finished')
    return `⏹️ ${name} did not finish (the job was cancelled or killed) after ${pluralIterations(n)}; the record of what ran is in the artifact.`
  const pr = delivery.pullRequest
  const delivered = pr
    ? ` and ${pr.operation === 'created' ? 'opened' : 'updated'} pull request [#${pr.number}](${pr.url})`
    : delivery.pushed && delivery.branch
      ? ` and pushed branch ${codeCell(delivery.branch)}`
      : ''
  const problem = delivery.problems[0]
  if (delivery.continued && !problem)
    return `⏩ ${name} ran out of this job's time after ${pluralIterations(n)} with gates still failing; the work is on branch ${codeCell(delivery.branch ?? '')}, and the loop goes on in ${nextRunWords(delivery.continued)}.`
  if (reason === 'already_green')
    return `✅ ${name}: every gate already passed before any agent ran (skip-if-green), so no agent ran and nothing was spent.`
  if (status.success) {
    const what =
      reason === 'completed'
        ? `finished in iteration ${n} (the agent said it was done)`
        : `passed every gate in iteration ${n}`
    if (problem) return `⚠️ ${name} ${what}, but the work was not delivered: ${problem}`
    if (delivery.skipped) return `✅ ${name} ${what}; ${delivery.skipped}.`
    return `✅ ${name} ${what}${delivered}.`
  }
  // The gates pass but the tag never came: say so, and how to let the gates alone decide (said once here).
  const noTag = reason === 'max_iterations' && status.iterations.at(-1)?.verdict === 'checks_passed_no_tag'
  const words = STOP_WORDS[reason]
  const why = noTag
    ? `used all ${pluralIterations(n)}: its gates pass, but the agent never gave the completion tag (the input ${codeCell('completion-tag: none')} lets the gates alone decide)`
    : words.did(pluralIterations(n))
  const detail = status.stopDetail && !noTag ? ` (${status.stopDetail.replace(/\.$/, '')})` : ''
  const tail = problem
    ? `; the work was not delivered: ${problem}`
    : delivered
      ? `;${delivered.replace(/^ and/, '')}`
      : ''
  return `${words.icon} ${name} ${why}${detail}${tail}.`.replace(/\.\.$/, '.')
}

/** Protected paths put back before the gates, by iteration; '' when none was. (At most `most` paths each.) */
export function revertList(status: LoopStatus, most = 20): string {
  const lines: string[] = []
  for (const it of status.iterations) {
    const reverts = it.reverts ?? []
    if (reverts.length === 0) continue
    const shown = reverts.slice(0, most).map(r => `${codeCell(showPath(r.path))} (${r.why})`)
    const more = reverts.length > most ? `, and ${reverts.length - most} more (in status.json)` : ''
    lines.push(`- Iteration ${it.iteration}: ${shown.join(', ')}${more}`)
  }
  return lines.join('\n')
}

/** The heading and the words over revertList, for the summary and the pull request body. */
export const REVERTS_HEADING = '### Protected paths put back'
export const REVERTS_INTRO =
  'The agent changed paths that judge its work; the action put them back from the start commit before the gates ran, so none of these changes is delivered.'
