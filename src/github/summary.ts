// The job summary: the outcome in one sentence, the iteration table (verdict, each gate ✓/✗, cost, duration),
// a chart of cost and duration per iteration (mermaid xychart, which GitHub renders), the gates, and links
// to the pull request and the run record.
import * as core from '@actions/core'
import type { LoopStatus } from '../loop/index.js'
import {
  code,
  formatCost,
  formatDuration,
  gateList,
  iterationTable,
  outcomeSentence,
  type RunReport
} from './run-report.js'

/** GitHub refuses a step summary over 1 MiB; the patch and tables are cut well before. */
const MAX_PATCH_CHARS = 60_000
const CHART_POINTS = 50

function fence(text: string, lang = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map(m => m[0].length))
  const marks = '`'.repeat(Math.max(3, longest + 1))
  return `${marks}${lang}\n${text.replace(/\n+$/, '')}\n${marks}`
}

/** Mermaid xychart blocks: cost (when known) and duration per iteration. */
export function charts(status: LoopStatus): string {
  const its = status.iterations.slice(-CHART_POINTS)
  if (its.length === 0) return ''
  const x = `x-axis "Iteration" [${its.map(it => it.iteration).join(', ')}]`
  const blocks: string[] = []
  const costs = its.map(it => it.agent?.usage.cost_usd ?? 0)
  if (costs.some(c => c > 0)) {
    const top = Math.max(...costs)
    blocks.push(
      fence(
        [
          'xychart-beta',
          '  title "Cost per iteration (USD)"',
          `  ${x}`,
          `  y-axis "USD" 0 --> ${Number((top * 1.1).toPrecision(3))}`,
          `  bar [${costs.map(c => Number(c.toFixed(4))).join(', ')}]`
        ].join('\n'),
        'mermaid'
      )
    )
  }
  const seconds = its.map(it => Math.round(it.durationMs / 100) / 10)
  blocks.push(
    fence(
      [
        'xychart-beta',
        '  title "Duration per iteration (seconds)"',
        `  ${x}`,
        `  y-axis "seconds" 0 --> ${Math.max(1, Math.ceil(Math.max(...seconds) * 1.1))}`,
        `  bar [${seconds.join(', ')}]`,
        `  line [${seconds.join(', ')}]`
      ].join('\n'),
      'mermaid'
    )
  )
  return blocks.join('\n\n')
}

/** The summary's markdown. */
export function renderSummary(report: RunReport): string {
  const { status, delivery, links } = report
  const out: string[] = [`## Ralph loop: ${report.task.name}`, '', outcomeSentence(report), '']
  const facts = [
    status.stopReason ? `**Stop reason:** ${code(status.stopReason)}` : undefined,
    `**Iterations:** ${status.iterations.length}${status.budgets.maxIterations ? ` of ${status.budgets.maxIterations}` : ''}`,
    `**Cost:** ${formatCost(status)}${status.budgets.maxCostUsd !== undefined ? ` (budget $${status.budgets.maxCostUsd})` : ''}`,
    `**Duration:** ${formatDuration(status.durationMs)}`
  ].filter(Boolean)
  out.push(facts.join(' · '), '')
  const linkLine = [
    delivery.pullRequest
      ? `[Pull request #${delivery.pullRequest.number}](${delivery.pullRequest.url})`
      : undefined,
    delivery.branch && delivery.pushed ? `branch ${code(delivery.branch)}` : undefined,
    links.artifact
      ? `[Run record${links.artifactName ? ` (${code(links.artifactName)})` : ''}](${links.artifact})`
      : undefined,
    `[This run](${links.run})`
  ].filter(Boolean)
  out.push(linkLine.join(' · '), '')
  const warnings = [...delivery.problems]
  if (links.recordNotUploaded)
    warnings.push(`The run record could not be uploaded as an artifact: ${links.recordNotUploaded}.`)
  for (const problem of warnings) out.push(`> [!WARNING]\n> ${problem.replace(/\n/g, '\n> ')}`, '')
  for (const note of delivery.notes) out.push(`> [!NOTE]\n> ${note.replace(/\n/g, '\n> ')}`, '')
  if (status.iterations.length > 0) {
    out.push('### Iterations', '', iterationTable(status), '')
    out.push('### Gates', '', gateList(status), '')
    out.push('### Cost and duration per iteration', '', charts(status), '')
  }
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

/** Appends the summary to GITHUB_STEP_SUMMARY. */
export async function writeSummary(report: RunReport): Promise<void> {
  await core.summary.addRaw(renderSummary(report), true).write()
}
