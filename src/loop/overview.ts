// The run at a glance, in Markdown: each iteration's verdict, gates, cost and duration as a table, and the
// cost and duration per iteration as charts (mermaid xychart, which GitHub renders). progress.md opens
// with them, and the job summary shows the same ones (src/report/summary.ts): one renderer for both.
import { cell, code, codeCell, fence } from '../text/markdown.js'
import type { BaselineRecord, CheckRun, IterationRecord, IterationVerdict, LoopStatus } from './types.js'
import { showPath } from '../text/tree-path.js'
import { holdoutFeedback } from './clean/holdout-text.js'

const VERDICT: Record<IterationVerdict, string> = {
  passed: '✅ passed',
  completed: '✅ done',
  checks_failed: '❌ gates failed',
  checks_passed_no_tag: '🟡 gates pass, no completion tag',
  agent_failed: '⚠️ agent failed',
  agent_timed_out: '⏱️ agent timed out',
  ran: '➖ ran',
  interrupted: '⏹️ stopped',
  crashed: '💥 crashed'
}

export const verdictLabel = (verdict: IterationVerdict): string => VERDICT[verdict]

/** `42s`, `3m 05s`, `1h 02m`. */
// Padded so durations line up in the reports' tables; prompts and the CLI keep the reference's `2m 30s` (ralph/render.ts).
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`
}

/** One agent run's cost: dollars, or "unknown" when the agent reported none. */
export function iterationCost(it: IterationRecord): string {
  if (!it.agent) return '–'
  const usage = it.agent.usage
  return usage.cost_source === 'unknown' && usage.cost_usd === 0 ? 'unknown' : `$${usage.cost_usd.toFixed(4)}`
}

/** The run's cost: dollars and where they come from, or "unknown" when no agent reported any. */
export function formatCost(status: Pick<LoopStatus, 'cost'>): string {
  const { cost } = status
  if (cost.source === 'unknown' && cost.totalUsd === 0) return 'unknown (the agent reported no cost)'
  return `$${cost.totalUsd.toFixed(4)} (${cost.source})`
}

/** The gates in the order they ran, the baseline's first. */
function gateNames(status: LoopStatus): string[] {
  const names: string[] = []
  for (const checks of [status.baseline?.checks ?? [], ...status.iterations.map(it => it.checks)])
    for (const c of checks) if (!names.includes(c.name)) names.push(c.name)
  return names
}

const MAX_GATE_COLUMNS = 6

/** A gate's time in a table: tenths of a second below a minute (which gate to speed up is in the tenths). */
function gateTime(ms: number): string {
  return ms < 59_950 ? `${(ms / 1000).toFixed(1)}s` : formatDuration(ms)
}

const BASELINE_LABEL: Record<BaselineRecord['verdict'], string> = {
  green: '✅ baseline: gates pass',
  failing: '🔎 baseline: gates failing',
  interrupted: '⏹️ baseline: stopped'
}

/**
 * The iteration table: verdict, each gate ✓/✗ with its duration, cost, duration. The baseline (the gates
 * before the first agent run) is row 0; then the last `maxRows` iterations, with a line saying where the
 * others are (`elsewhere`, e.g. "in the run record").
 */
export function iterationTable(status: LoopStatus, maxRows = 50, elsewhere = 'in the run record'): string {
  const gates = gateNames(status)
  const columns = gates.length <= MAX_GATE_COLUMNS
  const head = ['#', 'Verdict', ...(columns ? gates.map(g => codeCell(g)) : ['Gates']), 'Cost', 'Duration']
  const gateCells = (checks: CheckRun[]): string[] => {
    if (columns)
      return gates.map(g => {
        const check = checks.find(c => c.name === g)
        return check ? `${check.passed ? '✓' : '✗'} ${gateTime(check.durationMs)}` : '–'
      })
    const slowest = checks.reduce<CheckRun | undefined>(
      (top, c) => (top && top.durationMs >= c.durationMs ? top : c),
      undefined
    )
    const tally = `${checks.filter(c => c.passed).length}/${checks.length} ✓`
    return [slowest ? `${tally} (slowest ${codeCell(slowest.name)} ${gateTime(slowest.durationMs)})` : tally]
  }
  const rows: string[][] = []
  const baseline = status.baseline
  if (baseline)
    rows.push([
      '0',
      BASELINE_LABEL[baseline.verdict],
      ...gateCells(baseline.checks),
      '–',
      formatDuration(baseline.durationMs)
    ])
  const shown = status.iterations.slice(-maxRows)
  for (const it of shown)
    rows.push([
      String(it.iteration),
      verdictLabel(it.verdict),
      ...gateCells(it.checks),
      iterationCost(it),
      formatDuration(it.durationMs)
    ])
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`]
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`)
  const hidden = status.iterations.length - shown.length
  if (hidden > 0)
    lines.push('', `_${hidden} earlier iteration${hidden === 1 ? ' is' : 's are'} ${elsewhere}._`)
  return lines.join('\n')
}

const CHART_POINTS = 50

/** Mermaid xychart blocks: cost (when known) and duration per iteration (the last 50). */
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

/** A check run's test count, where its runner's was read (an optional field of CheckRun, #27 part 2). */
interface TestCount {
  run: number
  passed: number
  failed?: number
  skipped?: number
}

/** Lines of a failing gate's output that say why, first: errors and failures before anything else. */
const WHY = /fail|error|✖|assert|expected|not ok|exception/i
/** How much of a failing gate's output the gate table shows. */
const WHY_LINES = 2
const WHY_CHARS = 160

/** `✗ exit 1: AssertionError…`: a gate's state in one table cell. */
function gateState(check: CheckRun | undefined): string {
  if (!check) return '–'
  const tests = (check as CheckRun & { tests?: TestCount }).tests
  if (check.passed) return tests ? `✓ ${tests.passed}/${tests.run} tests passed` : '✓ passed'
  const how = check.timedOut
    ? 'timed out'
    : check.killedBy
      ? `stopped (${check.killedBy})`
      : check.exitCode === null
        ? 'not started'
        : `exit ${check.exitCode}`
  const lines = check.tail
    .split('\n')
    .map(line => line.trim())
    .filter(Boolean)
  const why = [...lines.filter(line => WHY.test(line)), ...lines].slice(0, WHY_LINES).join(' · ')
  return `✗ ${how}${why ? `: ${code(cell(why, WHY_CHARS))}` : ''}`
}

/** The clean verification's sentence (with its protected-path reverts), or why there was none. */
function verificationSentence(status: LoopStatus): string | undefined {
  const verification = status.verification
  if (status.verify === 'tree')
    return '_Not verified on a clean checkout (`verify: tree`): the gates ran in the loop’s own tree only._'
  if (!verification) return undefined
  const short = code(verification.commit.slice(0, 12))
  const reverts = verification.protectedReverts?.length
    ? ` Protected paths put back from the base before its gates ran: ${verification.protectedReverts.map(p => code(showPath(p))).join(', ')}.`
    : ''
  const setup = verification.setup.length > 0 ? ', after the setup commands' : ''
  const holdout = verification.holdout
  const heldOut = holdout?.passed
    ? ` **Held-out gates passed** there too (gates the agent never saw): ${(holdout.gates ?? []).map(name => code(name)).join(', ')}.`
    : ''
  if (verification.verdict === 'passed')
    return `**Verified on a clean checkout of ${short}**: every gate passed again on exactly that commit, with no ignored or untracked file of the loop’s tree${setup}.${reverts}${heldOut}`
  if (verification.verdict === 'interrupted')
    return `_The clean checkout of ${short} was stopped before its gates finished._`
  if (holdout && !holdout.passed)
    return `**Every gate passed again on a clean checkout of ${short}, but ${holdoutFeedback(holdout)}** there.${reverts}`
  return `**The gates failed on a clean checkout of ${short}** (they passed in the loop’s own tree)${setup}.${reverts}`
}

/**
 * Each gate at the start (the baseline) and at the end (the clean checkout's run when there was one, else the
 * last iteration's), with the first lines of why a failing one failed, then the clean verification's sentence.
 */
export function gateEvidence(status: LoopStatus): string {
  const end = status.verification?.checks.length
    ? status.verification.checks
    : status.iterations.at(-1)?.checks
  const names = gateNames(status)
  for (const c of end ?? []) if (!names.includes(c.name)) names.push(c.name)
  if (names.length === 0) return '_No gates: the agent’s completion signal decides._'
  const find = (runs: CheckRun[] | undefined, name: string): CheckRun | undefined =>
    runs?.find(c => c.name === name)
  const commandOf = (name: string): string =>
    find(end, name)?.run ??
    find(status.baseline?.checks, name)?.run ??
    status.iterations.flatMap(it => it.checks).find(c => c.name === name)?.run ??
    ''
  const rows = names.map(name => [
    codeCell(name),
    codeCell(commandOf(name), 60),
    gateState(find(status.baseline?.checks, name)),
    gateState(find(end, name))
  ])
  const lines = [
    '| Gate | Command | At the start | At the end |',
    '| --- | --- | --- | --- |',
    ...rows.map(row => `| ${row.join(' | ')} |`)
  ]
  const sentence = verificationSentence(status)
  return sentence ? `${lines.join('\n')}\n\n${sentence}` : lines.join('\n')
}
