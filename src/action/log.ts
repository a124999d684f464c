// The loop in the Actions log: one collapsible group per iteration holding the agent's readable transcript,
// each gate's result and the verdict. What the agent (or a gate it may have edited) prints is untrusted: every
// workflow command in it is defused, line by line across chunks (a stolen ::stop-commands:: token is no key),
// and it is echoed between ::stop-commands:: markers as well. What the log gets of it is bounded: the head and
// the tail of each agent run, with one line saying how much was left out and where all of it is (the record).
import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import * as core from '@actions/core'
import { presetFor } from '../agents/index.js'
import {
  baselineVerdict,
  holdoutFeedback,
  iterationCost,
  type IterationRecord,
  type LoopConfig,
  type LoopEvent
} from '../loop/index.js'
import { BoundedCapture } from '../proc/index.js'
import { formatDuration, verdictLabel } from '../report/run-report.js'
import { exitWords } from '../text/exit-words.js'
import { WorkflowCommandFilter, neutralizeWorkflowCommands } from '../security/workflow-commands.js'

/** Lines of a failing gate's output shown in the log (the whole output is in the record). */
const FAILING_TAIL_LINES = 40

/**
 * Bytes of the agent's output the job log gets per iteration at each end (its first and its last): thousands
 * of lines, where a run's start and its errors are, while 100 iterations stay under 60 MB of log (the agent
 * printed 4.4 GB in 5 minutes, more than the runner's viewer can show). All of it is in the record's agent.log.
 */
export const AGENT_ECHO_SHARE_BYTES = 256 * 1024

const size = (bytes: number): string =>
  bytes >= 1e6
    ? `${(bytes / 1e6).toFixed(1)} MB`
    : bytes >= 1e3
      ? `${(bytes / 1e3).toFixed(1)} KB`
      : `${bytes} bytes`

/**
 * One stream's head and tail: its first `share` bytes go out as they come, its last `share` bytes are kept (a
 * ring) until it ends, the middle is only counted. Memory is 2 × share whatever the stream's size.
 */
class HeadAndTail {
  private readonly kept: BoundedCapture
  private readonly decoder = new StringDecoder('utf8')

  constructor(private readonly share: number) {
    this.kept = new BoundedCapture(2 * share)
  }

  /** The text to echo now: the part of `chunk` that falls in the head. */
  push(chunk: Buffer): string {
    const before = this.kept.totalBytes
    this.kept.push(chunk)
    if (before >= this.share) return ''
    return this.decoder.write(chunk.subarray(0, this.share - before))
  }

  /** The rest to echo once the stream has ended, and how many bytes of the middle were left out. */
  end(): { leftOut: number; tail: string } {
    const kept = this.kept.result()
    if (!kept.truncated) {
      const rest = kept.head.subarray(Math.min(this.share, kept.head.length))
      return { leftOut: 0, tail: this.decoder.write(rest) + this.decoder.end() }
    }
    // The cut may fall inside a character: the tail starts at the next one.
    let start = 0
    while (start < 3 && start < kept.tail.length && (kept.tail[start] & 0xc0) === 0x80) start++
    return {
      leftOut: kept.totalBytes - kept.head.length - kept.tail.length,
      tail: kept.tail.subarray(start).toString('utf8')
    }
  }
}

export interface ActionLoggerOptions {
  /** Bytes of the agent's output echoed at each end per iteration (default AGENT_ECHO_SHARE_BYTES). */
  agentEchoShareBytes?: number
  /** The artifact the record is uploaded as, named where the log points to it. */
  artifactName?: string
  /** The deliver job's clean re-run of this commit: no agent runs, so no agent's budget is announced. */
  verifyOnly?: string
}

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
  out: LogWriter = stdoutWriter,
  options: ActionLoggerOptions = {}
): { emit: (event: LoopEvent) => void; close: () => void } {
  const transcriptOnly = presetFor(config.ralph.agentArgv, { presets: config.presets }).jsonStream
  const token = randomUUID().replace(/-/g, '')
  const filter = new WorkflowCommandFilter()
  let paused = false
  let atLineStart = true
  let inGroup = false
  const share = options.agentEchoShareBytes ?? AGENT_ECHO_SHARE_BYTES
  const record = options.artifactName ? `the run record (artifact ${options.artifactName})` : 'the run record'
  /** The agent run being echoed: its head and tail, and its log in the record. */
  let echo: { bounds: HeadAndTail; log: string } | undefined

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
  const agentText = (chunk: Buffer): void => {
    if (echo) raw(echo.bounds.push(chunk))
    else raw(chunk.toString('utf8'))
  }
  /** The tail of the agent's output, after one line saying how much of the middle is not in the log. */
  const endAgentText = (): void => {
    if (!echo) return
    const { leftOut, tail } = echo.bounds.end()
    if (leftOut > 0)
      info(
        `… ${size(leftOut)} of the agent's output left out here (the log shows its first and last ${size(share)}); all of it is in ${record}: ${echo.log}`
      )
    echo = undefined
    raw(tail)
  }
  const endGroup = (): void => {
    endAgentText()
    resume()
    if (inGroup) core.endGroup()
    inGroup = false
  }

  const emit = (event: LoopEvent): void => {
    switch (event.type) {
      case 'loop_started': {
        if (options.verifyOnly !== undefined) {
          info(
            `Running the gates of ${event.status.ralph.name} on a clean checkout of ${options.verifyOnly.slice(0, 12)} (no agent runs). Record: ${event.status.recordDir}`
          )
          break
        }
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
      case 'setup_finished': {
        const failed = event.setup.find(run => !run.passed)
        info(
          failed
            ? `Setup: ${failed.run} failed (${failed.timedOut ? 'timed out' : `exit ${failed.exitCode}`}); its output is in ${record}: ${failed.log}`
            : `Setup: ${event.setup.length} command${event.setup.length === 1 ? '' : 's'} ran.`
        )
        break
      }
      case 'verify_finished': {
        const v = event.verification
        const short = v.commit.slice(0, 12)
        const failing = [...v.setup, ...v.checks].filter(run => !run.passed).map(run => run.name)
        info(
          v.verdict === 'passed'
            ? `Verified on a clean checkout of ${short}: every gate passed again${v.holdout ? ', the held-out gates too' : ''} (${formatDuration(v.durationMs)}).`
            : v.holdout && !v.holdout.passed
              ? `Every gate passed again on a clean checkout of ${short}, but ${holdoutFeedback(v.holdout)}: nothing is pushed, and no agent runs after it.`
              : v.verdict === 'interrupted'
                ? `The clean checkout of ${short} was stopped.`
                : `The gates passed in the loop's tree but failed on a clean checkout of ${short} (${failing.join(', ')}): the next prompt gets their output; nothing is pushed unless they pass there.`
        )
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
          `command ${event.command.name}: ${event.command.timedOut ? 'timed out' : exitWords(event.command)} (${formatDuration(event.command.durationMs)})` +
            (event.command.outputBytes > 0
              ? `; its output (${size(event.command.outputBytes)}) is in ${record}: ${event.command.log}`
              : '')
        )
        break
      case 'agent_started':
        info(`agent: ${event.argv.join(' ')}`)
        echo = {
          bounds: new HeadAndTail(share),
          log: event.log ?? path.posix.join(path.posix.dirname(event.promptFile), 'agent.log')
        }
        break
      case 'agent_output':
        if (!transcriptOnly) agentText(event.chunk)
        break
      case 'agent_transcript':
        agentText(Buffer.from(event.line.endsWith('\n') ? event.line : `${event.line}\n`))
        break
      case 'agent_finished': {
        endAgentText()
        const a = event.agent
        const end = a.killedBy ? `stopped (${a.killedBy})` : a.timedOut ? 'timed out' : exitWords(a)
        info(`agent: ${end} after ${formatDuration(a.durationMs)}`)
        for (const note of a.notes) info(`  ${note}`)
        break
      }
      case 'check_finished': {
        const c = event.check
        info(
          `${c.passed ? '✓' : '✗'} gate ${c.name} (${formatDuration(c.durationMs)}${c.passed ? '' : c.timedOut ? ', timed out' : `, ${exitWords(c)}`})`
        )
        if (!c.passed && c.tail.trim()) {
          const all = c.tail.trimEnd().split('\n')
          const lines = all.slice(-FAILING_TAIL_LINES)
          // Only when the lines shown are not the whole output: the record has the rest.
          if (lines.length < all.length || c.outputBytes > Buffer.byteLength(c.tail))
            info(
              `    … ${size(Math.max(0, c.outputBytes - Buffer.byteLength(lines.join('\n'))))} of its output left out here; all of it is in ${record}: ${c.log}`
            )
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
