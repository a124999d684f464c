// progress.md's text, for people: the header, each section (setup, baseline, iteration) as the loop goes,
// and the outcome put on top when the run is finished.
import { charts, formatCost, gateEvidence, iterationCost, iterationTable } from './overview.js'
import { code, fence } from '../text/markdown.js'
import { exitWords } from '../text/exit-words.js'
import { showPath } from '../text/tree-path.js'
import type {
  BaselineRecord,
  CheckRun,
  IterationRecord,
  KilledBy,
  LoopResult,
  LoopStatus,
  VerificationRecord
} from './types.js'

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`
const dollars = (usd: number): string => `$${usd.toFixed(4)}`

const indent = (text: string, by: string): string =>
  text
    .split('\n')
    .map(line => (line ? by + line : line))
    .join('\n')

function checkLine(check: CheckRun): string {
  const how = check.passed
    ? ''
    : check.timedOut
      ? ', timed out'
      : check.killedBy
        ? `, stopped (${check.killedBy})`
        : `, ${exitWords(check)}`
  const tests = check.tests ? `, ${check.tests.run} test${check.tests.run === 1 ? '' : 's'}` : ''
  const head = `- ${check.passed ? 'PASS' : 'FAIL'} \`${check.name}\` (${seconds(check.durationMs)}${how}${tests})`
  const tail = check.tail.trimEnd()
  if (check.passed) {
    const last = tail.split('\n').at(-1)?.trim()
    return last ? `${head}: ${last.slice(0, 200)}` : head
  }
  return tail ? `${head}\n\n${indent(fence(tail), '  ')}\n` : head
}

/** `- Checks: 1/3 passing (gates 3.1s)` and a line a check. */
function checkLines(checks: CheckRun[], wallMs: number | undefined): string[] {
  const passing = checks.filter(c => c.passed).length
  const took = wallMs !== undefined ? ` (gates ${seconds(wallMs)})` : ''
  return [`- Checks: ${passing}/${checks.length} passing${took}`, '', ...checks.map(checkLine)]
}

/** The baseline in a few words: `every check passes`, `2 of 3 checks failing` or `stopped`. */
export function baselineVerdict(baseline: BaselineRecord): string {
  if (baseline.verdict === 'green') return 'every check passes'
  if (baseline.verdict === 'interrupted') return 'stopped'
  return `${baseline.checks.filter(c => !c.passed).length} of ${baseline.checks.length} checks failing`
}

/** The progress.md section of the baseline: the gates before iteration 1, as an iteration 0. */
export function baselineSection(baseline: BaselineRecord): string {
  const lines = [
    `## Baseline (iteration 0): ${baselineVerdict(baseline)}`,
    '',
    `- Started ${baseline.startedAt} · ${seconds(baseline.durationMs)} · the gates alone, before the first agent run${baseline.parallel ? ', run together' : ''}`,
    ...checkLines(baseline.checks, baseline.checksMs)
  ]
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n\n`
}

/** The progress.md section of the setup commands, run before the baseline. */
export function setupSection(runs: CheckRun[]): string {
  const passing = runs.every(run => run.passed)
  const lines = [
    `## Setup: ${passing ? 'done' : 'failed'}`,
    '',
    '- The setup commands, before the first gate ran',
    '',
    ...runs.map(checkLine)
  ]
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n\n`
}

/** The progress.md lines of a clean verification (verify.ts). */
function verificationLines(verification: VerificationRecord): string[] {
  const short = verification.commit.slice(0, 12)
  const head =
    verification.verdict === 'passed'
      ? `- Verified on a clean checkout of ${short}: every gate passed (${seconds(verification.durationMs)})`
      : verification.verdict === 'interrupted'
        ? `- Clean checkout of ${short}: stopped`
        : `- Clean checkout of ${short}: FAILED, so the iteration does not count as passing (${seconds(verification.durationMs)})`
  const reverts = verification.protectedReverts?.length
    ? [
        `- Protected paths put back from the base there: ${verification.protectedReverts.map(showPath).join(', ')}`
      ]
    : []
  const runs = [...verification.setup, ...verification.checks].filter(run => !run.passed).map(checkLine)
  return [head, ...reverts, ...(runs.length > 0 ? ['', ...runs] : [])]
}

/** The progress.md section of one iteration. */
export function progressSection(record: IterationRecord): string {
  const verdict =
    record.verdict === 'checks_passed_no_tag'
      ? 'checks pass; the agent has not given the completion tag'
      : record.verdict.replace(/_/g, ' ')
  const lines: string[] = [`## Iteration ${record.iteration}: ${verdict}`, '']
  const agent = record.agent
  const spent = iterationCost(record)
  const cost = agent ? ` · cost ${spent}${spent === 'unknown' ? '' : ` (${agent.usage.cost_source})`}` : ''
  lines.push(`- Started ${record.startedAt} · ${seconds(record.durationMs)}${cost}`)
  if (record.commands.length > 0)
    lines.push(
      `- Commands: ${record.commands
        .map(c => `\`${c.name}\` ${c.timedOut ? 'timed out' : exitWords(c)} (${seconds(c.durationMs)})`)
        .join(', ')}`
    )
  if (agent) {
    const end = agent.killedBy
      ? `stopped (${agent.killedBy})`
      : agent.timedOut
        ? 'timed out'
        : `${exitWords(agent)}${agent.isError ? ', reported an error' : ''}`
    lines.push(`- Agent (${agent.preset}): ${end} in ${seconds(agent.durationMs)}`)
    const failure = agent.failure
    if (failure)
      lines.push(
        `- Agent failure (${failure.kind.replace(/_/g, ' ')}): ${failure.message}${failure.resetsAt ? ` (lifts at ${failure.resetsAt})` : ''}`
      )
    if (agent.permissionDenials?.length)
      lines.push(
        `- Permission denied: ${agent.permissionDenials.map(d => (d.detail ? `${d.tool} (${d.detail})` : d.tool)).join(', ')}`
      )
    if (agent.apiRetries) lines.push(`- API retries: ${agent.apiRetries}`)
    const requests = agent.usage.requests
    if (requests) {
      const count = (n: number, what: string): string => (n > 0 ? `, ${n} ${what}` : '')
      const unread = requests.filter(r => r.unread).length
      lines.push(
        `- Model requests metered at the wire: ${requests.length}` +
          count(requests.filter(r => r.cut).length, 'cut at the budget') +
          count(
            requests.filter(r => r.refused).length,
            'refused (their worst case did not fit in the budget)'
          ) +
          count(unread, 'unreadable (their cost is unknown; charged their worst case)') +
          count(
            requests.filter(r => r.worst_case && !r.unread && !r.impossible_usage).length,
            'with no usage seen (charged their worst case)'
          ) +
          count(
            requests.filter(r => r.impossible_usage).length,
            "with usage that cannot be true (the upstream's fault; charged their worst case)"
          )
      )
    }
    const said = agent.usage.agent_said
    if (said) {
      const diff = agent.usage.cost_usd - said.cost_usd
      lines.push(
        `- The agent's own figure: $${said.cost_usd.toFixed(4)} (${said.cost_source}); metered minus that: ${diff < 0 ? '-' : '+'}$${Math.abs(diff).toFixed(4)}`
      )
    }
  }
  const signal = record.completion.given
    ? 'given'
    : record.completion.statusExit === false
      ? 'not given (EXIT_SIGNAL: false)'
      : 'not given'
  if (agent) lines.push(`- Completion signal: ${signal}`)
  if (record.reverts?.length)
    lines.push(
      `- Protected paths put back from the start commit before the checks: ${record.reverts.map(r => `${code(showPath(r.path))} (${r.why})`).join(', ')}`
    )
  if (record.checks.length > 0) lines.push(...checkLines(record.checks, record.checksMs))
  if (record.diffStat !== undefined) {
    const summary = record.diffStat.trim().split('\n').at(-1)?.trim()
    lines.push(
      `- Changed since the start: ${summary || 'nothing'}${record.progressed === false ? ' (no change this iteration)' : ''}`
    )
  }
  if (record.commit?.sha) lines.push(`- Commit: ${record.commit.sha}`)
  if (record.verification) lines.push(...verificationLines(record.verification))
  if (record.commit?.error) lines.push(`- Commit failed: ${record.commit.error}`)
  if (record.error) lines.push(`- Crashed: ${record.error}`)
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n\n`
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

export function header(status: LoopStatus): string {
  const budgets = status.budgets
  const limits = [
    budgets.maxIterations !== undefined
      ? `at most ${plural(budgets.maxIterations, 'iteration')}`
      : 'no iteration cap',
    budgets.maxTimeSeconds !== undefined ? `max time ${budgets.maxTimeSeconds}s` : undefined,
    budgets.maxCostUsd !== undefined ? `max cost ${dollars(budgets.maxCostUsd)}` : undefined,
    budgets.agentTimeoutSeconds !== undefined ? `agent timeout ${budgets.agentTimeoutSeconds}s` : undefined
  ].filter(Boolean)
  return [
    `# Ralph loop: ${status.ralph.name}`,
    '',
    `- Started ${status.startedAt} in ${status.workTree}${status.worktree ? ` (worktree on branch ${status.worktree.branch})` : ''}`,
    `- Budgets: ${limits.join(', ')}`,
    status.start.commit ? `- Starting commit: ${status.start.commit}` : undefined,
    '',
    ''
  ]
    .filter(line => line !== undefined)
    .join('\n')
}

/** What an enforced stop was measured from. */
const CROSSING: Record<KilledBy, string> = {
  timeout: 'the time budget ran out',
  budget_exhausted: 'the cost budget was reached',
  budget: "the repository's budget refused a request",
  cancelled: 'the cancel'
}

/** How the run ended, then the overview (the iteration table, the cost and duration charts), then each gate start to end. */
export function outcome(result: LoopResult): string {
  const lines = [
    `## Stopped: ${result.stopReason}`,
    '',
    `${result.stopDetail}`,
    '',
    `- Iterations: ${result.iterations.length} · duration ${seconds(result.durationMs)}`,
    `- Cost: ${formatCost(result)}${result.cost.enforced ? '' : ' (the dollar budget could not be enforced)'}`
  ]
  const enforced = result.enforcement
  if (enforced)
    lines.push(
      `- Enforcement: ${enforced.killed ? `the ${enforced.killed} was stopped` : 'nothing was running; the loop stopped'} ${enforced.latencyMs} ms after ${CROSSING[enforced.cause]}`
    )
  const jobs = result.chain?.jobs ?? []
  if (jobs.length > 0)
    lines.push(
      `- Jobs: ${jobs.length}, this one last: ${jobs.map((job, i) => `${i + 1}. run ${job.run.id} (${plural(job.iterations, 'iteration')}, ${dollars(job.costUsd)}, ${seconds(job.durationMs)}, ${job.stopReason})`).join('; ')}`
    )
  for (const warning of result.warnings) lines.push(`- Warning: ${warning}`)
  if (result.iterations.length > 0 || result.baseline)
    lines.push(
      '',
      '## Overview',
      '',
      iterationTable(result, Infinity),
      '',
      charts(result),
      '',
      '## Gates',
      '',
      gateEvidence(result)
    )
  return `${lines.join('\n')}\n\n`
}
