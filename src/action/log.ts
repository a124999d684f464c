// The loop in the Actions log: one collapsible group per iteration holding the agent's readable transcript,
// each gate's result and the verdict. What the agent (or a gate it may have edited) prints is untrusted: every
// workflow command in it is defused, line by line across chunks (a stolen ::stop-commands:: token is no key),
// and it is echoed between ::stop-commands:: markers as well.
import { randomUUID } from 'node:crypto'
import * as core from '@actions/core'
import { presetFor } from '../agents/index.js'
import {
  baselineVerdict,
  iterationCost,
  type IterationRecord,
  type LoopConfig,
  type LoopEvent
} from '../loop/index.js'
import { formatDuration, verdictLabel } from '../report/run-report.js'
import { WorkflowCommandFilter, neutralizeWorkflowCommands } from '../security/workflow-commands.js'

/** Lines of a failing gate's output shown in the log (the whole output is in the record). */
const FAILING_TAIL_LINES = 40

export interface LogWriter {
  /** Raw text to stdout (the log). */
  write(text: string): void
}

const stdoutWriter: LogWriter = { write: text => void process.stdout.write(text) }

function verdictLine(record: IterationRecord): string {
  const parts = [
    `${verdictLabel(record.verdict)} — iteration ${record.iteration} in ${formatDuration(record.durationMs)}`
  ]
  if (record.agent) parts.push(`cost ${iterationCost(record)}`)
  if (record.commit?.sha) parts.push(`commit ${record.commit.sha.slice(0, 12)}`)
  if (record.error) parts.push(record.error)
  return parts.join(' · ')
}

/**
 * A runLoop listener that renders the loop into the log. `close()` ends an open group (a cancelled loop
 * may stop mid-iteration) and resumes workflow commands.
 */
export function actionLogger(
  config: LoopConfig,
  out: LogWriter = stdoutWriter
): { emit: (event: LoopEvent) => void; close: () => void } {
  const transcriptOnly = presetFor(config.ralph.agentArgv, { presets: config.presets }).jsonStream
  const token = randomUUID().replace(/-/g, '')
  const filter = new WorkflowCommandFilter()
  let paused = false
  let atLineStart = true
  let inGroup = false

  const write = (text: string): void => {
    if (text === '') return
    out.write(text)
    atLineStart = /[\n\r]$/.test(text)
  }
  const raw = (text: string): void => {
    if (text === '') return
    if (!paused) {
      out.write(`::stop-commands::${token}\n`)
      paused = true
    }
    write(filter.push(text))
  }
  const resume = (): void => {
    if (!paused) return
    write(filter.flush())
    if (!atLineStart) out.write('\n')
    out.write(`::${token}::\n`)
    paused = false
    atLineStart = true
  }
  // Our own lines carry the agent's words too (its notes, a crash's reason): defused as well.
  const info = (line: string): void => {
    resume()
    core.info(neutralizeWorkflowCommands(line))
  }
  const endGroup = (): void => {
    resume()
    if (inGroup) core.endGroup()
    inGroup = false
  }

  const emit = (event: LoopEvent): void => {
    switch (event.type) {
      case 'loop_started': {
        const b = event.status.budgets
        const limits = [
          b.maxIterations !== undefined
            ? `at most ${b.maxIterations} iteration${b.maxIterations === 1 ? '' : 's'}`
            : undefined,
          b.maxTimeSeconds !== undefined ? `${formatDuration(b.maxTimeSeconds * 1000)} in all` : undefined,
          b.maxCostUsd !== undefined ? `$${b.maxCostUsd}` : undefined,
          b.agentTimeoutSeconds !== undefined
            ? `${formatDuration(b.agentTimeoutSeconds * 1000)} per agent run`
            : undefined
        ].filter(Boolean)
        info(
          `Running ralph ${event.status.ralph.name}: ${limits.join(', ')}. Record: ${event.status.recordDir}`
        )
        break
      }
      case 'baseline_started':
        endGroup()
        core.startGroup(
          `Baseline: the ${event.checks} gate${event.checks === 1 ? '' : 's'}${event.parallel ? ', together,' : ''} before the first agent run`
        )
        inGroup = true
        break
      case 'baseline_finished': {
        const b = event.baseline
        const next = b.verdict === 'failing' ? ": iteration 1's prompt holds their output" : ''
        info(`Baseline: ${baselineVerdict(b)}${next} (${formatDuration(b.durationMs)}).`)
        endGroup()
        break
      }
      case 'iteration_started':
        endGroup()
        core.startGroup(
          `Iteration ${event.iteration}${event.maxIterations !== undefined ? ` of ${event.maxIterations}` : ''}`
        )
        inGroup = true
        break
      case 'command_finished':
        info(
          `command ${event.command.name}: ${event.command.timedOut ? 'timed out' : `exit ${event.command.exitCode}`} (${formatDuration(event.command.durationMs)})`
        )
        break
      case 'agent_started':
        info(`agent: ${event.argv.join(' ')}`)
        break
      case 'agent_output':
        if (!transcriptOnly) raw(event.chunk.toString('utf8'))
        break
      case 'agent_transcript':
        raw(event.line.endsWith('\n') ? event.line : `${event.line}\n`)
        break
      case 'agent_finished': {
        const a = event.agent
        const end = a.killedBy
          ? `stopped (${a.killedBy})`
          : a.timedOut
            ? 'timed out'
            : `exit ${a.exitCode ?? a.signal}`
        info(`agent: ${end} after ${formatDuration(a.durationMs)}`)
        for (const note of a.notes) info(`  ${note}`)
        break
      }
      case 'check_finished': {
        const c = event.check
        info(
          `${c.passed ? '✓' : '✗'} gate ${c.name} (${formatDuration(c.durationMs)}${c.passed ? '' : c.timedOut ? ', timed out' : `, exit ${c.exitCode}`})`
        )
        if (!c.passed && c.tail.trim()) {
          const lines = c.tail.trimEnd().split('\n').slice(-FAILING_TAIL_LINES)
          raw(`${lines.map(l => `    ${l}`).join('\n')}\n`)
        }
        break
      }
      case 'iteration_finished':
        info(verdictLine(event.record))
        endGroup()
        break
      case 'waiting':
        info(`waiting ${event.seconds}s`)
        break
      case 'warning':
        resume()
        core.warning(neutralizeWorkflowCommands(event.message))
        break
      case 'cost_update':
        break
      case 'stop':
        endGroup()
        info(`Stopped: ${event.reason} — ${event.detail}`)
        break
    }
  }
  return { emit, close: endGroup }
}
