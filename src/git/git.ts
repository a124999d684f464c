// Runs the git CLI without a shell. Every call answers {exitCode, stdout, stderr}; callers decide what a
// non-zero exit means (probes such as `rev-parse --verify HEAD` expect failures).
import { spawn } from 'node:child_process'
import { trustedProgram } from '../proc/index.js'

export interface GitResult {
  /** 127 when git itself could not be started. */
  exitCode: number
  stdout: string
  stderr: string
  /** True when stdout was longer than `maxStdoutBytes` and only its start was kept. */
  stdoutTruncated: boolean
}

export interface GitOptions {
  cwd: string
  /** Extra variables on top of process.env (e.g. GIT_INDEX_FILE). */
  env?: NodeJS.ProcessEnv | undefined
  /** Bytes of stdout kept; the rest is read and dropped so git never blocks on a full pipe. Default 8 MiB. */
  maxStdoutBytes?: number | undefined
}

const DEFAULT_MAX_STDOUT = 8 * 1024 * 1024
const MAX_STDERR = 64 * 1024

export function runGit(args: string[], options: GitOptions): Promise<GitResult> {
  const maxStdout = options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT
  return new Promise(resolve => {
    const child = spawn(trustedProgram('git'), args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    let outBytes = 0
    let errBytes = 0
    let truncated = false
    let settled = false
    const finish = (result: GitResult): void => {
      if (settled) return
      settled = true
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
        stdout: '',
        stderr: `git could not be started: ${error.message}`,
        stdoutTruncated: false
      })
    })
    child.on('close', code => {
      finish({
        exitCode: code ?? 128,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        stdoutTruncated: truncated
      })
    })
  })
}

/** Thrown when a git call that must succeed fails: names the command and git's own message. */
export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly result: GitResult
  ) {
    super(
      `git ${args.join(' ')} failed (exit ${result.exitCode}): ${result.stderr.trim() || result.stdout.trim()}`
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
export function gitBytes(
  cwd: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv | undefined; input?: string } = {}
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(trustedProgram('git'), args, { cwd, env: { ...process.env, ...options.env } })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
    child.on('error', reject)
    child.on('close', code =>
      code === 0
        ? resolve(Buffer.concat(out))
        : reject(
            new Error(`git ${args[0]} failed: ${Buffer.concat(err).toString('utf8').trim().split('\n')[0]}`)
          )
    )
    child.stdin.on('error', () => undefined)
    child.stdin.end(options.input ?? '')
  })
}
