// Runs the git CLI without a shell. Every call answers {exitCode, stdout, stderr}; callers decide what a
// non-zero exit means (probes such as `rev-parse --verify HEAD` expect failures). A call may be bounded: a git
// that reads the work tree can wait forever on what the agent left there (a FIFO where it opens a file).
import { spawn } from 'node:child_process'
import { trustedProgram } from '../proc/index.js'

export interface GitResult {
  /** 127 when git itself could not be started; 124 when it was stopped (its time bound, or `signal`). */
  exitCode: number
  stdout: string
  stderr: string
  /** True when stdout was longer than `maxStdoutBytes` and only its start was kept. */
  stdoutTruncated: boolean
}

/** A GitResult whose stdout is bytes (`-z` listings of paths, which need not be UTF-8; object contents). */
export type GitOutput = Omit<GitResult, 'stdout'> & { stdout: Buffer }

export interface GitOptions {
  cwd: string
  /** Extra variables on top of process.env (e.g. GIT_INDEX_FILE). */
  env?: NodeJS.ProcessEnv | undefined
  /** Bytes of stdout kept; the rest is read and dropped so git never blocks on a full pipe. Default 8 MiB. */
  maxStdoutBytes?: number | undefined
  /** Given on stdin (`--stdin`, `--pathspec-from-file=-`); none: stdin is empty. */
  input?: string | Buffer | undefined
  /** Stopped after this long (SIGTERM, then SIGKILL): for a git that reads the work tree. */
  timeoutMs?: number | undefined
  /** Stopped a grace after this aborts (the run's time is over), unless it has ended by then. */
  signal?: AbortSignal | undefined
  /** That grace; default STOP_GRACE_MS. */
  stopGraceMs?: number | undefined
}

const DEFAULT_MAX_STDOUT = 8 * 1024 * 1024
const MAX_STDERR = 64 * 1024
/** After a stop signal: time for a git that is only busy to finish (its commit is the iteration's work). */
export const STOP_GRACE_MS = 20_000
/** After SIGTERM (git removes its lock files on it), before SIGKILL. */
const KILL_GRACE_MS = 2_000

/** Runs git; stdout as bytes. */
export function gitOutput(args: string[], options: GitOptions): Promise<GitOutput> {
  const maxStdout = options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT
  return new Promise(resolve => {
    const child = spawn(trustedProgram('git'), args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe']
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    let outBytes = 0
    let errBytes = 0
    let truncated = false
    let stopped: string | undefined
    const timers: NodeJS.Timeout[] = []
    const stop = (why: string): void => {
      if (stopped !== undefined || child.exitCode !== null || child.signalCode !== null) return
      stopped = why
      child.kill('SIGTERM')
      timers.push(setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS))
    }
    if (options.timeoutMs !== undefined)
      timers.push(
        setTimeout(
          () => stop(`it ran for over ${Math.round((options.timeoutMs ?? 0) / 1000)} s`),
          options.timeoutMs
        )
      )
    const onAbort = (): void => {
      timers.push(
        setTimeout(
          () => stop("it was still running when the run's time was over"),
          options.stopGraceMs ?? STOP_GRACE_MS
        )
      )
    }
    if (options.signal?.aborted) onAbort()
    else options.signal?.addEventListener('abort', onAbort, { once: true })
    let settled = false
    const finish = (result: GitOutput): void => {
      if (settled) return
      settled = true
      for (const timer of timers) clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      resolve(result)
    }
    child.stdout.on('data', (chunk: Buffer) => {
      if (outBytes >= maxStdout) {
        truncated = true
        return
      }
      const room = maxStdout - outBytes
      if (chunk.length > room) truncated = true
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
      out.push(kept)
      outBytes += kept.length
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (errBytes >= MAX_STDERR) return
      err.push(chunk)
      errBytes += chunk.length
    })
    child.on('error', error => {
      finish({
        exitCode: 127,
        stdout: Buffer.alloc(0),
        stderr: `git could not be started: ${error.message}`,
        stdoutTruncated: false
      })
    })
    child.on('close', code => {
      const stderr = Buffer.concat(err).toString('utf8')
      finish({
        exitCode: stopped !== undefined ? 124 : (code ?? 128),
        stdout: Buffer.concat(out),
        stderr:
          stopped !== undefined
            ? `git was stopped: ${stopped} (a git that reads the work tree waits on nothing of it for long; was a special file in its way?)${stderr.trim() ? `; it said: ${stderr.trim().split('\n')[0]}` : ''}`
            : stderr,
        stdoutTruncated: truncated
      })
    })
    child.stdin.on('error', () => undefined)
    child.stdin.end(options.input ?? '')
  })
}

/** Runs git; stdout decoded as UTF-8 text (for output that is not paths of the tree). */
export async function runGit(args: string[], options: GitOptions): Promise<GitResult> {
  const result = await gitOutput(args, options)
  return { ...result, stdout: result.stdout.toString('utf8') }
}

/** Thrown when a git call that must succeed fails: names the command and git's own message. */
export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly result: Pick<GitResult, 'exitCode' | 'stderr'> & { stdout: string | Buffer }
  ) {
    super(
      `git ${args.join(' ')} failed (exit ${result.exitCode}): ${result.stderr.trim() || result.stdout.toString().trim()}`
    )
    this.name = 'GitError'
  }
}

/** Runs git and throws GitError unless it exits 0. */
export async function gitOrThrow(args: string[], options: GitOptions): Promise<GitResult> {
  const result = await runGit(args, options)
  if (result.exitCode !== 0) throw new GitError(args, result)
  return result
}

/**
 * git with `input` on stdin, answering its whole stdout as bytes (object contents, -z listings); a non-zero
 * exit rejects with stderr's first line. For commands whose output the caller needs whole and exact.
 */
export async function gitBytes(
  cwd: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv | undefined; input?: string | Buffer } = {}
): Promise<Buffer> {
  const result = await gitOutput(args, { cwd, ...options, maxStdoutBytes: Number.POSITIVE_INFINITY })
  if (result.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr.trim().split('\n')[0]}`)
  return result.stdout
}
