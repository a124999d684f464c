// Renders the loop's events as the reference runtime's console does (plain text, no colour), plus our gates,
// cost and stop reason.
import {
  baselineVerdict,
  formatCost,
  type CheckRun,
  type IterationRecord,
  type LoopEvent
} from '../loop/index.js'
import { formatDuration } from '../ralph/index.js'
import { exitWords } from '../text/exit-words.js'

const RULE = '──────────────────────'

export interface ConsoleOptions {
  out: (text: string) => void
  /** `-t`, shown in the header like the reference (undefined: not given). */
  agentTimeoutSeconds?: number | undefined
  /**
   * Show the agent's output live (default true): the readable transcript of JSON-stream agents (text, one
   * line per tool call, errors, the result), the raw output of plain ones, as the reference shows it.
   */
  showAgentOutput?: boolean
  /** The completion tag the loop waits for ('' = the checks alone decide), for the verdict's wording. */
  completionTag?: string
}

/** Lines of a failing check's output shown under it (all of it is in the record). */
const FAILING_CHECK_LINES = 5

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

const FAILURE_LABEL: Record<string, string> = {
  api_error: 'API error',
  usage_limit: 'usage limit',
  max_turns: 'turn limit',
  budget: "the agent's own budget cap",
  input_error: 'input refused',
  auth_error: 'authentication failed',
  error: 'error'
}

const seconds = (ms: number): string => formatDuration(ms / 1000)

function verdictLine(record: IterationRecord, tag: string): string {
  const n = record.iteration
  const took = seconds(record.durationMs)
  const agent = record.agent
  switch (record.verdict) {
    case 'passed':
      return `✓ Iteration ${n} passed every check (${took})`
    case 'completed':
      return `✓ Iteration ${n} completed: the agent said it is done (${took})`
    case 'ran':
      return `✓ Iteration ${n} completed (${took})`
    case 'checks_failed':
      return `✗ Iteration ${n} failed its checks (${took})`
    case 'checks_passed_no_tag':
      return `◐ Iteration ${n}: the checks pass; the agent has not given the completion tag <promise>${tag}</promise> (${took})`
    case 'agent_timed_out':
      return `⏱ Iteration ${n} timed out after ${took}`
    case 'agent_failed':
      return agent?.isError && agent.exitCode === 0
        ? `✗ Iteration ${n} failed: the agent reported an error (${took})`
        : `✗ Iteration ${n} failed with exit code ${agent?.exitCode ?? agent?.signal ?? '?'} (${took})`
    case 'interrupted':
      return `■ Iteration ${n} interrupted (${took})`
    case 'crashed':
      return `✗ Iteration ${n} crashed (${took})`
  }
}

/** Why a check failed, and the last lines it printed (bash's "command not found" among them). */
function checkLines(check: CheckRun): string {
  const how = check.passed ? '' : check.timedOut ? ', timed out' : `, ${exitWords(check)}`
  const head = `  ${check.passed ? '✓' : '✗'} check ${check.name} (${seconds(check.durationMs)}${how})\n`
  if (check.passed) return head
  const tail = check.tail
    .split('\n')
    .filter(line => line.trim() !== '')
    .slice(-FAILING_CHECK_LINES)
  return head + tail.map(line => `      ${line}\n`).join('')
}

/** "2 iterations — 1 passed, 1 failed": what each iteration came to, in words. */
function tallyLine(iterations: IterationRecord[]): string {
  const count = (verdicts: IterationRecord['verdict'][]): number =>
    iterations.filter(it => verdicts.includes(it.verdict)).length
  const parts = [
    [count(['passed', 'completed']), 'passed'],
    [count(['ran']), 'ran'],
    [count(['checks_passed_no_tag']), 'passed the checks without the completion tag'],
    [count(['checks_failed', 'agent_failed', 'crashed']), 'failed'],
    [count(['agent_timed_out']), 'timed out'],
    [count(['interrupted']), 'interrupted']
  ] as const
  const said = parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`)
  return `${plural(iterations.length, 'iteration')}${said.length > 0 ? ` — ${said.join(', ')}` : ''}`
}

/** A listener for runLoop's events that prints a readable console log through `out`. */
export function consoleRenderer(options: ConsoleOptions): (event: LoopEvent) => void {
  const { out } = options
  const tag = options.completionTag ?? 'COMPLETE'
  let toldChecksAlone = false
  const live = options.showAgentOutput !== false
  let commandsRan = 0
  let transcript = false
  let atLineStart = true
  const agentText = (text: string): void => {
    if (text === '') return
    out(text)
    atLineStart = text.endsWith('\n')
  }
  const endAgentText = (): void => {
    if (!atLineStart) out('\n')
    atLineStart = true
  }
  return event => {
    switch (event.type) {
      case 'loop_started': {
        const s = event.status
        out(`▶ Running: ${s.ralph.name}\n`)
        const info: string[] = []
        if (options.agentTimeoutSeconds !== undefined)
          info.push(`timeout ${formatDuration(options.agentTimeoutSeconds)}`)
        const checks = s.budgets
        // ralphify's run has no cap by default: say so, since the loop then runs until stopped.
        info.push(
          checks.maxIterations !== undefined
            ? `max ${plural(checks.maxIterations, 'iteration')}`
            : 'no iteration cap (-n N sets one)'
        )
        if (checks.maxTimeSeconds !== undefined)
          info.push(`max time ${formatDuration(checks.maxTimeSeconds)}`)
        if (checks.maxCostUsd !== undefined) info.push(`max cost $${checks.maxCostUsd.toFixed(2)}`)
        if (info.length > 0) out(`  ${info.join(' · ')}\n`)
        out(`  Record: ${s.recordDir}\n`)
        break
      }
      case 'baseline_started':
        out(
          `\nBaseline ───────\n  Running the ${event.checks} check(s)${event.parallel ? ' together' : ''} before the first agent run\n`
        )
        break
      case 'baseline_finished': {
        const b = event.baseline
        const mark = b.verdict === 'green' ? '✓' : b.verdict === 'failing' ? '✗' : '■'
        const next = b.verdict === 'failing' ? ': iteration 1 gets their output' : ''
        out(`${mark} Baseline: ${baselineVerdict(b)}${next} (${seconds(b.durationMs)})\n`)
        break
      }
      case 'iteration_started':
        commandsRan = 0
        out(`\nIteration ${event.iteration} ───────\n`)
        break
      case 'command_finished':
        commandsRan++
        if (event.command.timedOut) out(`  Command ${event.command.name} timed out\n`)
        break
      case 'agent_started':
        if (commandsRan > 0) out(`  Commands: ${commandsRan} ran\n`)
        transcript = event.transcript === true
        break
      case 'agent_output':
        if (live && !transcript) agentText(event.chunk.toString('utf8'))
        break
      case 'agent_transcript':
        if (live) agentText(event.line.endsWith('\n') ? event.line : `${event.line}\n`)
        break
      case 'agent_finished': {
        endAgentText()
        const agent = event.agent
        if (agent.failure)
          out(`  ✗ ${FAILURE_LABEL[agent.failure.kind] ?? agent.failure.kind}: ${agent.failure.message}\n`)
        if (agent.permissionDenials?.length)
          out(
            `  ! permission denied: ${agent.permissionDenials.map(d => (d.detail ? `${d.tool} (${d.detail})` : d.tool)).join(', ')}\n`
          )
        for (const note of agent.notes) out(`  ${note}\n`)
        break
      }
      case 'check_finished':
        out(checkLines(event.check))
        break
      case 'verify_finished': {
        const v = event.verification
        const short = v.commit.slice(0, 12)
        if (v.verdict === 'passed') out(`  ✓ verified on a clean checkout of ${short}\n`)
        else if (v.verdict === 'failed') {
          out(`  ✗ on a clean checkout of ${short} (tracked files only):\n`)
          for (const run of [...v.setup, ...v.checks].filter(r => !r.passed)) out(checkLines(run))
        }
        break
      }
      case 'iteration_finished': {
        const r = event.record
        out(`${verdictLine(r, tag)}\n`)
        if (r.verdict === 'checks_passed_no_tag' && !toldChecksAlone) {
          toldChecksAlone = true
          out(`  To let the checks alone decide, run with --completion-tag ''.\n`)
        }
        break
      }
      case 'waiting':
        out(`Waiting ${formatDuration(event.seconds)}...\n`)
        break
      case 'warning':
        out(`  ! ${event.message}\n`)
        break
      case 'cost_update':
        break
      case 'stop': {
        const r = event.result
        out(`\n${RULE}\n`)
        out(`Done: ${tallyLine(r.iterations)}\n`)
        // A crash's message follows on stderr ("Run crashed: …"): said once.
        out(`Stopped: ${event.reason} — ${r.error !== undefined ? 'the run crashed' : event.detail}\n`)
        out(`Cost: ${formatCost(r)} · Duration: ${seconds(r.durationMs)}\n`)
        out(`Record: ${r.recordDir}\n`)
        break
      }
    }
  }
}
