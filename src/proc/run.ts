import { spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream, existsSync, mkdirSync, type WriteStream } from 'node:fs'
import { dirname } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { Readable } from 'node:stream'

import { BoundedCapture } from './capture.js'
import { killProcessTree, openFileIds, processIdentity } from './tree.js'
import type { RunOptions, RunResult } from './types.js'

const DEFAULT_CAPTURE_LIMIT = 1024 * 1024
const DEFAULT_KILL_GRACE_MS = 3000
/** After the SIGKILL round, output that stays silent this long is not waited for any more… */
const PIPE_IDLE_MS = 200
/** …nor, at most, longer than this (something we could not find may keep a pipe open and writing). */
const PIPE_MAX_WAIT_MS = 2000
/** The log's write buffer: past it the child's output is paused until the file catches up. */
const LOG_HIGH_WATER_MARK = 1024 * 1024

/**
 * Runs one program (never through a shell) in its own process group, with bounded capture of stdout
 * and stderr, every byte streamed to `logFile`, and the whole process tree killed on timeout or abort.
 * Resolves once the program has exited and its output pipes are closed. A program that cannot start
 * resolves with `spawnError`; the promise rejects only when an onStdout/onStderr callback throws
 * (the tree is killed first).
 */
export function runProcess(opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => new ProcessRun(opts, resolve, reject).start())
}

type StreamName = 'stdout' | 'stderr'

class ProcessRun {
  private readonly startedAt = performance.now()
  private readonly captures: Record<StreamName, BoundedCapture>
  private child?: ChildProcess
  private identity: string | undefined
  private outputIds: string[] = []
  private exit?: { code: number | null; signal: NodeJS.Signals | null }
  private openStreams = 0
  private timedOut = false
  private aborted = false
  private spawnError?: NodeJS.ErrnoException
  private callbackError?: unknown
  /** The program has exited and its pipes are closed: timeouts and aborts no longer apply. */
  private settled = false
  private finished = false
  private killing?: Promise<void>
  private log?: WriteStream
  private logClosed?: Promise<void>
  private logError?: NodeJS.ErrnoException
  /** The log file is behind (its buffer is past LOG_HIGH_WATER_MARK). */
  private logBehind = false
  /** outputRoom's promises not settled yet: the caller cannot take more. */
  private callerWaits = 0
  /** The tree is dead: what is left in the pipes is read whatever the caller says. */
  private callerIgnored = false
  private readingPaused = false
  private timeoutTimer?: NodeJS.Timeout
  private pipeIdleTimer?: NodeJS.Timeout
  private pipeMaxTimer?: NodeJS.Timeout
  private readonly onAbort = (): void => {
    if (this.settled) return
    this.aborted = true
    const reason: unknown = this.opts.signal?.reason
    const grace = (reason as { killGraceMs?: unknown } | undefined)?.killGraceMs
    this.killTree(typeof grace === 'number' ? grace : undefined)
  }

  constructor(
    private readonly opts: RunOptions,
    private readonly resolve: (result: RunResult) => void,
    private readonly reject: (error: unknown) => void
  ) {
    const limit = Math.max(0, opts.captureLimit ?? DEFAULT_CAPTURE_LIMIT)
    this.captures = { stdout: new BoundedCapture(limit), stderr: new BoundedCapture(limit) }
  }

  start(): void {
    const { argv, cwd, input, signal, timeoutMs } = this.opts
    if (signal?.aborted) {
      // Nothing is started for a run that is already cancelled.
      this.aborted = true
      void this.finish()
      return
    }
    if (argv.length === 0 || argv[0] === '') {
      this.spawnError = Object.assign(new Error('spawn: empty command'), { code: 'EINVAL' })
      void this.finish()
      return
    }
    this.openLog()

    let child: ChildProcess
    try {
      child = spawn(argv[0], argv.slice(1), {
        cwd,
        env: this.opts.extraEnv
          ? { ...(this.opts.env ?? process.env), ...this.opts.extraEnv }
          : (this.opts.env ?? process.env),
        // Own process group (and session), like Python's start_new_session: the whole tree can be signalled.
        detached: true,
        stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe']
      })
    } catch (err) {
      // Some errors (ENOTDIR, a NUL byte in an argument) are thrown instead of emitted.
      this.spawnError = this.explain(err as NodeJS.ErrnoException)
      void this.finish()
      return
    }
    this.child = child
    if (child.pid !== undefined) {
      // Read at once: a program may exit within a millisecond, leaving a grandchild with its pipes.
      this.outputIds = openFileIds(child.pid, [1, 2])
      this.identity = processIdentity(child.pid)
    }

    // ENOENT/EACCES arrive here, on the next tick; the pipes Node opened close by themselves.
    child.on('error', err => {
      if (child.pid !== undefined || this.spawnError) return
      this.spawnError = this.explain(err)
      this.exit = { code: null, signal: null }
      this.settleIfDone()
    })
    child.on('exit', (code, sig) => {
      this.exit = { code, signal: sig }
      this.callBack(this.opts.onExit, undefined)
      this.settleIfDone()
    })
    this.watchOutput(child.stdout as Readable, 'stdout')
    this.watchOutput(child.stderr as Readable, 'stderr')

    if (child.stdin) {
      // A program that exits without reading its input is not an error (EPIPE).
      child.stdin.on('error', () => {})
      child.stdin.end(input)
    }

    if (child.pid === undefined) return
    if (timeoutMs !== undefined) {
      this.timeoutTimer = setTimeout(
        () => {
          if (this.settled) return
          this.timedOut = true
          this.killTree()
        },
        Math.max(0, timeoutMs)
      )
    }
    signal?.addEventListener('abort', this.onAbort, { once: true })
    this.callBack(this.opts.onSpawn, child.pid)
  }

  /** A caller's callback that throws ends the run: the tree is killed and the run rejects with the error. */
  private callBack<T>(callback: ((arg: T) => void) | undefined, arg: T): void {
    if (!callback || this.callbackError !== undefined) return
    try {
      callback(arg)
    } catch (err) {
      this.callbackError = err
      this.killTree()
    }
  }

  /** The caller has no room for more output: stop reading until it has (the program blocks in write). */
  private waitForCaller(): void {
    if (this.callerIgnored || !this.opts.outputRoom) return
    let wait: Promise<void> | undefined
    try {
      wait = this.opts.outputRoom()
    } catch {
      // A front-end that cannot say is not waited for.
    }
    if (!wait) return
    this.callerWaits++
    this.updateReading()
    const settled = (): void => {
      this.callerWaits--
      this.updateReading()
    }
    wait.then(settled, settled)
  }

  private openLog(): void {
    const { logFile } = this.opts
    if (logFile === undefined) return
    try {
      mkdirSync(dirname(logFile), { recursive: true })
    } catch {
      // createWriteStream reports the real problem below.
    }
    const log = createWriteStream(logFile, { flags: 'a', highWaterMark: LOG_HIGH_WATER_MARK })
    this.log = log
    this.logClosed = new Promise(resolve => log.once('close', resolve))
    log.on('error', err => {
      // A log we cannot write must not stop or stall the program: stop logging and say so in the result.
      this.logError ??= err
      this.logBehind = false
      this.updateReading()
    })
  }

  private watchOutput(stream: Readable, name: StreamName): void {
    this.openStreams++
    const callback = name === 'stdout' ? this.opts.onStdout : this.opts.onStderr
    stream.on('data', (chunk: Buffer) => {
      this.captures[name].push(chunk)
      if (this.log && !this.logError && !this.log.write(chunk)) this.waitForLog()
      this.callBack(callback, chunk)
      this.waitForCaller()
      if (this.pipeIdleTimer) this.pipeIdleTimer.refresh()
    })
    stream.on('error', () => {
      // Reads fail only when the pipe is torn down; 'close' follows.
    })
    stream.on('close', () => {
      this.openStreams--
      this.settleIfDone()
    })
  }

  /** The log file is behind: stop reading the child (it blocks on a full pipe) until the file drains. */
  private waitForLog(): void {
    if (this.logBehind || !this.log) return
    this.logBehind = true
    this.updateReading()
    this.log.once('drain', () => {
      this.logBehind = false
      this.updateReading()
    })
  }

  /** Reads the pipes only while the log file and the caller can both take more. */
  private updateReading(): void {
    const pause = this.logBehind || (this.callerWaits > 0 && !this.callerIgnored)
    if (pause === this.readingPaused) return
    this.readingPaused = pause
    for (const stream of [this.child?.stdout, this.child?.stderr]) {
      if (pause) stream?.pause()
      else stream?.resume()
    }
  }

  private killTree(graceMs?: number): void {
    const pid = this.child?.pid
    if (this.killing || pid === undefined) return
    const grace = Math.max(0, graceMs ?? this.opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS)
    this.killing = killProcessTree(pid, grace, {
      start: this.identity,
      holding: this.outputIds,
      ...(this.opts.signaller ? { signaller: this.opts.signaller } : {})
    }).then(() => {
      // A reader that never reads again must not keep a dead tree's output, nor the run, waiting.
      this.callerIgnored = true
      this.updateReading()
      this.stopWaitingForPipes()
    })
    void this.killing.then(() => this.settleIfDone())
  }

  /**
   * Everything we could find is dead, but an escaped process we could not find may still hold a pipe
   * open: once the output goes quiet (or at the latest after PIPE_MAX_WAIT_MS), stop waiting for EOF.
   */
  private stopWaitingForPipes(): void {
    if (this.openStreams === 0) return
    const destroy = (): void => {
      if (this.logBehind) {
        // Output is only waiting for the log file to drain; give it another moment.
        this.pipeIdleTimer?.refresh()
        return
      }
      this.child?.stdout?.destroy()
      this.child?.stderr?.destroy()
    }
    this.pipeIdleTimer = setTimeout(destroy, PIPE_IDLE_MS)
    this.pipeMaxTimer = setTimeout(() => {
      this.logBehind = false
      this.updateReading()
      this.child?.stdout?.destroy()
      this.child?.stderr?.destroy()
    }, PIPE_MAX_WAIT_MS)
  }

  private settleIfDone(): void {
    if (this.settled || this.exit === undefined || this.openStreams > 0) return
    this.settled = true
    clearTimeout(this.timeoutTimer)
    clearTimeout(this.pipeIdleTimer)
    clearTimeout(this.pipeMaxTimer)
    // A kill in progress (its grace period) ends before we report: nothing of the tree is left behind.
    void (this.killing ?? Promise.resolve()).then(() => this.finish())
  }

  private async finish(): Promise<void> {
    if (this.finished) return
    this.finished = true
    clearTimeout(this.timeoutTimer)
    clearTimeout(this.pipeIdleTimer)
    clearTimeout(this.pipeMaxTimer)
    this.opts.signal?.removeEventListener('abort', this.onAbort)
    // A grandchild may still hold stdin without reading it; our end is of no further use.
    this.child?.stdin?.destroy()
    if (this.log) {
      this.log.end()
      await this.logClosed
    }
    if (this.callbackError !== undefined) {
      this.reject(this.callbackError)
      return
    }
    const result: RunResult = {
      exitCode: this.exit?.code ?? null,
      signal: this.exit?.signal ?? null,
      timedOut: this.timedOut,
      aborted: this.aborted,
      stdout: this.captures.stdout.result(),
      stderr: this.captures.stderr.result(),
      durationMs: performance.now() - this.startedAt
    }
    if (this.spawnError) result.spawnError = this.spawnError
    if (this.logError) result.logError = this.logError
    this.resolve(result)
  }

  /** Node reports a missing working directory as the program being missing; say which one it is. */
  private explain(err: NodeJS.ErrnoException): NodeJS.ErrnoException {
    if (err.code === 'ENOENT' && !existsSync(this.opts.cwd)) {
      err.message = `spawn ${this.opts.argv[0]} ENOENT: the working directory ${this.opts.cwd} does not exist`
      err.path = this.opts.cwd
    }
    return err
  }
}
