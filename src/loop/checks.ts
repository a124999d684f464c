// Gates: each check runs with `bash -c` in the work tree the agent left; exit 0 = pass. Output streams to
// its log file; only the tail is read back (from the log, so memory stays bounded whatever it prints).
import { appendFileSync, closeSync, fstatSync, openSync, readSync } from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { combineOutput, decodeCaptured, translateNewlines } from '../proc/index.js'
import type { RunOptions, RunResult } from '../proc/types.js'
import { formatDuration, type RalphCheck } from '../ralph/index.js'
import type { CheckRun, KilledBy, TestCount } from './types.js'

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
  /** Run the gates together rather than one after another. */
  parallel?: boolean
  /**
   * Each gate gets a HOME of its own, made empty for it and removed after (isolation: the agent's HOME outlives
   * its runs, and a ~/.npmrc, a user site-packages or a ~/.config it wrote there would steer the runner).
   */
  freshHome?: boolean
  /** The logs' folder inside iterationDir. Default `checks`. */
  folder?: string
  /** The test count of gate `index` and why it fails on it (loop/test-count.ts); `captured` when no log. */
  countTests?: (index: number, log: string, captured: string | undefined, passed: boolean) => CountVerdict
}

/** A gate's test count, and the line that fails it (a count that shrank or is missing). */
export interface CountVerdict {
  tests?: TestCount
  problem?: string
}

export interface ChecksOutcome {
  runs: CheckRun[]
  /** Failing checks with the end of their output (a few KiB), for the fingerprint. */
  failures: { name: string; output: string }[]
  interrupted: boolean
  /** The gates' wall time: their sum one after another, the slowest one's together. */
  wallMs: number
}

/** The last `bytes` of a file, decoded, without a character split by the cut. */
export function readFileTail(file: string, bytes: number): string {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    // No log (the gate never started): its tail is empty, and its exit says why.
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

/**
 * Runs `$1` with bash in an empty HOME of its own (and no Python user site), removed afterwards; a gate killed
 * by a signal ends by the same signal.
 */
const FRESH_HOME = [
  'h=$(mktemp -d "${TMPDIR:-/tmp}/ralph-gate-home.XXXXXX") || exit 125',
  'export HOME="$h" XDG_CONFIG_HOME="$h/.config" XDG_CACHE_HOME="$h/.cache" XDG_DATA_HOME="$h/.local/share"',
  // No user site, and Python's compiled files kept in the fresh HOME: a .pyc planted in __pycache__ is not read.
  'export PYTHONNOUSERSITE=1 PYTHONPYCACHEPREFIX="$h/.pycache"',
  'bash -c "$1"; s=$?',
  'rm -rf -- "$h"',
  'if [ "$s" -gt 128 ] && [ "$s" -lt 160 ]; then trap - "$((s - 128))" 2>/dev/null; kill -s "$((s - 128))" $$; fi',
  'exit "$s"'
].join('\n')

/** One gate, run to its end (or its kill): its record, and its output's end for the fingerprint. */
async function runCheck(
  check: RalphCheck,
  index: number,
  log: string,
  ctx: CheckContext
): Promise<{ run: CheckRun; output: string; aborted: boolean }> {
  const result = await ctx.runProcess({
    argv: ctx.freshHome ? ['bash', '-c', FRESH_HOME, 'ralph-gate', check.run] : ['bash', '-c', check.run],
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
  let passed = result.exitCode === 0 && !result.timedOut && !result.aborted
  const counted =
    result.timedOut || result.aborted
      ? undefined
      : ctx.countTests?.(index, log, result.logError ? output : undefined, passed)
  if (counted?.problem) {
    // The line is the gate's own output: the next prompt, the fingerprint and the log all have it.
    if (!result.logError) appendFileSync(log, `\n${counted.problem}\n`)
    output += `\n${counted.problem}\n`
    passed = false
  }
  const run: CheckRun = {
    name: check.name,
    run: check.run,
    passed,
    exitCode: result.exitCode,
    ...(result.signal ? { signal: result.signal } : {}),
    timedOut: result.timedOut,
    durationMs: Math.round(result.durationMs),
    outputBytes: result.stdout.totalBytes + result.stderr.totalBytes,
    tail: output.slice(-CHECK_TAIL_CHARS),
    log: ctx.relative(log),
    ...(counted?.tests ? { tests: counted.tests } : {})
  }
  if (result.aborted) {
    const cause = ctx.stopCause()
    if (cause) run.killedBy = cause
  }
  ctx.onCheck?.(run)
  return { run, output, aborted: result.aborted }
}

/**
 * Runs every gate (all of them, so the agent hears of every failure) unless the run must stop: one after
 * another, or all at once with `parallel` (each with its own log; the results in the order declared).
 */
export async function runChecks(checks: RalphCheck[], ctx: CheckContext): Promise<ChecksOutcome> {
  const started = performance.now()
  const outcome: ChecksOutcome = { runs: [], failures: [], interrupted: false, wallMs: 0 }
  const logs = logFiles(checks, path.join(ctx.iterationDir, ctx.folder ?? 'checks'))
  const results: Awaited<ReturnType<typeof runCheck>>[] = []
  if (ctx.parallel && !ctx.signal.aborted) {
    // The guard's signal reaches every gate: a budget or a cancel kills all of their trees at once.
    results.push(...(await Promise.all(checks.map((check, i) => runCheck(check, i, logs[i], ctx)))))
  } else {
    for (const [i, check] of checks.entries()) {
      if (ctx.signal.aborted) break
      const result = await runCheck(check, i, logs[i], ctx)
      results.push(result)
      if (result.aborted) break
    }
  }
  for (const { run, output } of results) {
    outcome.runs.push(run)
    if (!run.passed) outcome.failures.push({ name: run.name, output })
  }
  outcome.interrupted = results.length < checks.length || results.some(result => result.aborted)
  outcome.wallMs = Math.round(performance.now() - started)
  return outcome
}

/** One log a gate, `checks/<name>.log`: names that read the same once made safe get a `-2`, `-3`… */
function logFiles(checks: RalphCheck[], dir: string): string[] {
  const taken = new Set<string>()
  return checks.map(check => {
    const base = safeFileName(check.name)
    let name = base
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`
    taken.add(name)
    return path.join(dir, `${name}.log`)
  })
}

/** Check names come from users (CLI `--check CMD` may name them after the command): keep file names safe. */
export function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || 'check'
}
