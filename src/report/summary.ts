// The job summary: the outcome in one sentence, the iteration table (verdict, each gate ✓/✗, cost, duration),
// a chart of cost and duration per iteration (mermaid xychart, which GitHub renders), the gates, and links
// to the pull request and the run record.
import * as core from '@actions/core'
import { charts } from '../loop/index.js'
import { codeCell, fence } from '../text/markdown.js'
import {
  formatCost,
  formatDuration,
  gateEvidence,
  iterationTable,
  nextRunWords,
  outcomeSentence,
  REVERTS_HEADING,
  REVERTS_INTRO,
  revertList,
  type RunReport
} from './run-report.js'

/** GitHub refuses a step summary over 1 MiB; the patch and tables are cut well before. */
const MAX_PATCH_CHARS = 60_000
/** The summary's markdown. */
export function renderSummary(report: RunReport): string {
  const { status, delivery, links } = report
  const out: string[] = [`## Ralph loop: ${report.task.name}`, '', outcomeSentence(report), '']
  const facts = [
    status.stopReason ? `**Stop reason:** ${codeCell(status.stopReason)}` : undefined,
    `**Iterations:** ${status.iterations.length}${status.budgets.maxIterations ? ` of ${status.budgets.maxIterations}` : ''}`,
    `**Cost:** ${formatCost(status)}${status.budgets.maxCostUsd !== undefined ? ` (budget $${status.budgets.maxCostUsd})` : ''}`,
    `**Duration:** ${formatDuration(status.durationMs)}`
  ].filter(Boolean)
  out.push(facts.join(' · '), '')
  const linkLine = [
    delivery.pullRequest
      ? `[Pull request #${delivery.pullRequest.number}](${delivery.pullRequest.url})`
      : undefined,
    delivery.branch && delivery.pushed ? `branch ${codeCell(delivery.branch)}` : undefined,
    delivery.continued ? `the loop goes on in ${nextRunWords(delivery.continued)}` : undefined,
    links.artifact
      ? `[Run record${links.artifactName ? ` (${codeCell(links.artifactName)})` : ''}](${links.artifact})`
      : undefined,
    `[This run](${links.run})`
  ].filter(Boolean)
  out.push(linkLine.join(' · '), '')
  const warnings = [...delivery.problems]
  if (links.recordNotUploaded)
    warnings.push(`The run record could not be uploaded as an artifact: ${links.recordNotUploaded}.`)
  for (const problem of warnings) out.push(`> [!WARNING]\n> ${problem.replace(/\n/g, '\n> ')}`, '')
  for (const note of delivery.notes) out.push(`> [!NOTE]\n> ${note.replace(/\n/g, '\n> ')}`, '')
  if (delivery.budget) out.push(`💸 ${delivery.budget}`, '')
  if (status.iterations.length > 0 || status.baseline) {
    out.push('### Iterations', '', iterationTable(status), '')
    out.push('### Gates', '', gateEvidence(status), '')
  }
  const reverts = revertList(status)
  if (reverts) out.push(REVERTS_HEADING, '', REVERTS_INTRO, '', reverts, '')
  if (status.iterations.length > 0) out.push('### Cost and duration per iteration', '', charts(status), '')
  if (delivery.patch) {
    const text =
      delivery.patch.text.length > MAX_PATCH_CHARS
        ? `${delivery.patch.text.slice(0, MAX_PATCH_CHARS)}\n… (cut: the whole patch is ${delivery.patch.file} in the run record)`
        : delivery.patch.text
    out.push(
      '<details><summary>The work as a patch (apply with <code>git am</code>)</summary>',
      '',
      fence(text, 'diff'),
      '',
      '</details>',
      ''
    )
  }
  for (const warning of status.warnings) out.push(`- ⚠️ ${warning}`)
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`
}

/** What a dry run checked and would do, with the first prompt: a dry run's summary is never empty. */
export function renderDryRunSummary(dry: {
  task: RunReport['task']
  branch: string
  checks: { name: string; run: string }[]
  maxIterations?: number
  prompt: string
}): string {
  const gates = dry.checks.map(c => `- ${codeCell(c.name)}: ${codeCell(c.run)}`).join('\n')
  return [
    `## Ralph loop: ${dry.task.name} (dry run)`,
    '',
    `🔎 Dry run of **${dry.task.name}**${dry.task.file ? ` (${codeCell(dry.task.file)})` : ''}: the inputs and the ralph are valid and every program it starts was found; no agent ran. A run would work on branch ${codeCell(dry.branch)}${dry.maxIterations ? `, for at most ${dry.maxIterations} iteration${dry.maxIterations === 1 ? '' : 's'}` : ''}.`,
    '',
    '### Gates',
    '',
    gates || '_No gates: the agent’s completion signal decides._',
    '',
    '### The first prompt',
    '',
    fence(dry.prompt, 'markdown'),
    ''
  ].join('\n')
}

/** Appends a dry run's summary to GITHUB_STEP_SUMMARY. */
export async function writeDryRunSummary(dry: Parameters<typeof renderDryRunSummary>[0]): Promise<void> {
  await core.summary.addRaw(renderDryRunSummary(dry), true).write()
}

/** Appends the summary to GITHUB_STEP_SUMMARY. */
export async function writeSummary(report: RunReport): Promise<void> {
  await core.summary.addRaw(renderSummary(report), true).write()
}
