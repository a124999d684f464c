// The ralph's commands, run as the reference runs them: in order, all of them, no shell, args quoted into
// the run string, `./` → the ralph's folder, output = stdout then stderr, the timeout marker appended.
// We differ where the reference is unsafe: the whole process tree is killed, and output above the cap
// reaches the prompt cut in the middle (the log keeps every byte).
import path from 'node:path'
import { combineOutput, decodeCaptured } from '../proc/index.js'
import type { RunOptions, RunResult } from '../proc/types.js'
import {
  argEnvironment,
  commandNotFound,
  pyStrRepr,
  resolveArgsInRun,
  runsFromRalphDir,
  timeoutMarker,
  shlexSplit,
  type RalphCommand
} from '../ralph/index.js'
import type { CommandRun } from './types.js'

export interface CommandContext {
  ralphDir: string
  /** Where commands without `./` run (the reference's project root). */
  workTree: string
  userArgs: Record<string, string>
  /** Absolute folder of this iteration's logs (`commands/<name>.log` goes under it). */
  iterationDir: string
  /** Turns an absolute path into one relative to the record folder. */
  relative: (file: string) => string
  outputCap: number
  killGraceMs: number
  signal: AbortSignal
  runProcess: (options: RunOptions) => Promise<RunResult>
  onCommand?: (command: CommandRun) => void
}

export interface CommandsOutcome {
  /** `{{ commands.<name> }}` values. */
  outputs: Record<string, string>
  runs: CommandRun[]
  /** The reference's "Run crashed" reason: a command that could not be run at all. */
  crash?: string
  /** The run had to stop (time, cost, cancel) while a command ran. */
  interrupted: boolean
}

const FIELD_HINT = "Check the 'commands' field in your RALPH.md frontmatter."

/** Middle-cut marker, the same as proc's for a truncated capture. */
const cutMarker = (droppedBytes: number): string => `\n[... ${droppedBytes} bytes omitted ...]\n`

/** Keeps `text` when it fits in `cap` bytes, else its first and last halves around a marker. */
export function capOutput(text: string, cap: number): { text: string; cut: boolean } {
  const bytes = Buffer.byteLength(text)
  if (bytes <= cap) return { text, cut: false }
  const buf = Buffer.from(text)
  const half = Math.floor(cap / 2)
  // Decoding drops a character split by the cut (as replacement characters would confuse the agent).
  const head = buf
    .subarray(0, half)
    .toString('utf8')
    .replace(/\uFFFD$/, '')
  const tail = buf
    .subarray(buf.length - (cap - half))
    .toString('utf8')
    .replace(/^\uFFFD/, '')
  const dropped = bytes - Buffer.byteLength(head) - Buffer.byteLength(tail)
  return { text: head + cutMarker(dropped) + tail, cut: true }
}

function crashMessage(command: RalphCommand, runString: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return commandNotFound(command.name, runString)
  if (error.code === 'EACCES') return `[Errno 13] Permission denied: ${pyStrRepr(error.path ?? runString)}`
  return `Command '${command.name}' could not be started: ${error.message}`
}

/** Runs every command of the iteration; stops early only when the run must stop or a command crashes. */
export async function runCommands(commands: RalphCommand[], ctx: CommandContext): Promise<CommandsOutcome> {
  const outcome: CommandsOutcome = { outputs: {}, runs: [], interrupted: false }
  // Each arg's value in the environment too: the safe way for a script to read one.
  const extraEnv = argEnvironment(ctx.userArgs)
  for (const command of commands) {
    if (ctx.signal.aborted) {
      outcome.interrupted = true
      break
    }
    const runString = resolveArgsInRun(command.run, ctx.userArgs)
    let argv: string[]
    try {
      argv = shlexSplit(runString)
    } catch {
      // Unbalanced quotes: no argv, which the check below reports as invalid syntax.
      argv = []
    }
    if (argv.length === 0) {
      outcome.crash = `Command '${command.name}' has invalid syntax: ${pyStrRepr(runString)}. ${FIELD_HINT}`
      break
    }
    const cwd = runsFromRalphDir(runString) ? ctx.ralphDir : ctx.workTree
    const log = path.join(ctx.iterationDir, 'commands', `${command.name}.log`)
    const result = await ctx.runProcess({
      argv,
      cwd,
      extraEnv,
      timeoutMs: command.timeout * 1000,
      killGraceMs: ctx.killGraceMs,
      signal: ctx.signal,
      captureLimit: ctx.outputCap,
      logFile: log
    })
    if (result.spawnError) {
      outcome.crash = crashMessage(command, runString, result.spawnError)
      break
    }
    const decode = { translateNewlines: true }
    let text = combineOutput(decodeCaptured(result.stdout, decode), decodeCaptured(result.stderr, decode))
    if (result.timedOut) text += timeoutMarker(command.name, command.timeout)
    const capped = capOutput(text, ctx.outputCap)
    outcome.outputs[command.name] = capped.text
    const run: CommandRun = {
      name: command.name,
      run: runString,
      argv,
      cwd,
      exitCode: result.exitCode,
      ...(result.signal ? { signal: result.signal } : {}),
      timedOut: result.timedOut,
      durationMs: Math.round(result.durationMs),
      outputBytes: result.stdout.totalBytes + result.stderr.totalBytes,
      cut: capped.cut || result.stdout.truncated || result.stderr.truncated,
      log: ctx.relative(log)
    }
    outcome.runs.push(run)
    ctx.onCommand?.(run)
    if (result.aborted) {
      outcome.interrupted = true
      break
    }
  }
  return outcome
}
