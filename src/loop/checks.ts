// Gates: each check runs with `bash -c` in the work tree the agent left; exit 0 = pass. Output streams to
// its log file; only the tail is read back (from the log, so memory stays bounded whatever it prints).
import { appendFileSync, closeSync, fstatSync, openSync, readSync } from 'node:fs'
import path from 'node:path'
import { combineOutput, decodeCaptured, translateNewlines } from '../proc/index.js'
import type { RunOptions, RunResult } from '../proc/types.js'
import { formatDuration, type RalphCheck } from '../ralph/index.js'
import type { CheckRun, KilledBy } from './types.js'

/** Characters of a check's output kept for the prompt and the record. */
export const CHECK_TAIL_CHARS = 2000
/** Bytes read back from the end of a check's log for the fingerprint (a few KiB is plenty). */
export const CHECK_FINGERPRINT_BYTES = 16 * 1024

export interface CheckContext {
  workTree: string
  iterationDir: string
  relative: (file: string) => string
  killGraceMs: number
  signal: AbortSignal
  /** Why the run is stopping, once `signal` has fired. */
  stopCause: () => KilledBy | undefined
  runProcess: (options: RunOptions) => Promise<RunResult>
  onCheck?: (check: CheckRun) => void
}

export interface ChecksOutcome {
  runs: CheckRun[]
  /** Failing checks with the end of their output (a few KiB), for the fingerprint. */
  failures: { name: string; output: string }[]
  interrupted: boolean
}

/** The last `bytes` of a file, decoded, without a character split by the cut. */
export function readFileTail(file: string, bytes: number): string {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return ''
  }
  try {
    const size = fstatSync(fd).size
    const length = Math.min(size, bytes)
    const buf = Buffer.alloc(length)
    readSync(fd, buf, 0, length, size - length)
    let start = 0
    while (length === bytes && start < 3 && start < buf.length && (buf[start] & 0xc0) === 0x80) start++
    return buf.subarray(start).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/** Appended to a check's output (and log) when it ran out of time. */
export const checkTimeoutMarker = (name: string, seconds: number): string =>
  `\n\n[Check '${name}' timed out after ${formatDuration(seconds)} — output may be incomplete]\n`

/** Runs every gate (all of them, so the agent hears of every failure) unless the run must stop. */
export async function runChecks(checks: RalphCheck[], ctx: CheckContext): Promise<ChecksOutcome> {
  const outcome: ChecksOutcome = { runs: [], failures: [], interrupted: false }
  for (const check of checks) {
    if (ctx.signal.aborted) {
      outcome.interrupted = true
      break
    }
    const log = path.join(ctx.iterationDir, 'checks', `${safeFileName(check.name)}.log`)
    const result = await ctx.runProcess({
      argv: ['bash', '-c', check.run],
      cwd: ctx.workTree,
      timeoutMs: check.timeout * 1000,
      killGraceMs: ctx.killGraceMs,
      signal: ctx.signal,
      // The log has every byte; the capture only stands in when the log could not be written.
      captureLimit: 64 * 1024,
      logFile: log
    })
    if (result.timedOut) appendFileSync(log, checkTimeoutMarker(check.name, check.timeout))
    if (result.spawnError) appendFileSync(log, `check could not be started: ${result.spawnError.message}\n`)
    let output = translateNewlines(
      result.logError
        ? combineOutput(decodeCaptured(result.stdout), decodeCaptured(result.stderr))
        : readFileTail(log, CHECK_FINGERPRINT_BYTES)
    )
    if (result.logError && result.timedOut) output += checkTimeoutMarker(check.name, check.timeout)
    const passed = result.exitCode === 0 && !result.timedOut && !result.aborted
    const run: CheckRun = {
      name: check.name,
      run: check.run,
      passed,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      durationMs: Math.round(result.durationMs),
      outputBytes: result.stdout.totalBytes + result.stderr.totalBytes,
      tail: output.slice(-CHECK_TAIL_CHARS),
      log: ctx.relative(log)
    }
    if (result.aborted) {
      const cause = ctx.stopCause()
      if (cause) run.killedBy = cause
    }
    outcome.runs.push(run)
    if (!passed) outcome.failures.push({ name: check.name, output })
    ctx.onCheck?.(run)
    if (result.aborted) {
      outcome.interrupted = true
      break
    }
  }
  return outcome
}

/** Check names come from users (CLI `--check CMD` may name them after the command): keep file names safe. */
export function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || 'check'
}
