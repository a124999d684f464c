// The Node side of the spawner experiment (see README.md): runProcess's contract (RunOptions → RunResult)
// served by a long-lived helper (helper.py) that forks the children, so this Node process never forks
// itself. A prototype to measure, not the engine's runner: it keeps the bounded capture, the log file, the
// timeout and abort with the whole-tree kill (by pid and group, from here), and spawn errors; it leaves out
// the pipe-holder search (the helper holds the pipes, so their ids are not ours to read) and many edge cases.
import { spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream, existsSync, mkdirSync, type WriteStream } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { BoundedCapture } from '../../src/proc/capture.js'
import { killProcessTree, processIdentity } from '../../src/proc/tree.js'
import type { RunOptions, RunResult } from '../../src/proc/types.js'

const FRAME = { spawned: 1, stdout: 2, stderr: 3, done: 4, error: 5 } as const
const HEADER = 9
const PIPE_IDLE_MS = 200

interface Run {
  opts: RunOptions
  started: number
  stdout: BoundedCapture
  stderr: BoundedCapture
  log?: WriteStream
  logError?: NodeJS.ErrnoException
  pid?: number
  identity?: string
  timedOut: boolean
  aborted: boolean
  killing?: Promise<void>
  timer?: NodeJS.Timeout
  onAbort?: () => void
  resolve: (result: RunResult) => void
}

export class Spawner {
  private readonly runs = new Map<number, Run>()
  private nextId = 1
  private pending: Buffer = Buffer.alloc(0)
  private gone = false

  private constructor(private readonly helper: ChildProcess) {
    helper.stdout?.on('data', (chunk: Buffer) => this.onData(chunk))
    helper.on('exit', () => {
      this.gone = true
      for (const [id, run] of this.runs) this.settle(id, run, { code: null, signal: null })
    })
  }

  /** Starts the helper (python3 on PATH, or PYTHON; helper.py beside this file, or SPAWNER_HELPER). */
  static start(): Spawner {
    const python = process.env.PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3')
    const script = process.env.SPAWNER_HELPER ?? join(dirname(fileURLToPath(import.meta.url)), 'helper.py')
    const helper = spawn(python, ['-S', '-u', script], {
      stdio: ['pipe', 'pipe', 'inherit']
    })
    return new Spawner(helper)
  }

  /** The helper's own pid (for its memory figure). */
  get pid(): number | undefined {
    return this.helper.pid
  }

  close(): void {
    this.helper.stdin?.end()
  }

  runProcess = (opts: RunOptions): Promise<RunResult> =>
    new Promise(resolve => {
      const limit = Math.max(0, opts.captureLimit ?? 1024 * 1024)
      const run: Run = {
        opts,
        started: performance.now(),
        stdout: new BoundedCapture(limit),
        stderr: new BoundedCapture(limit),
        timedOut: false,
        aborted: false,
        resolve
      }
      const id = this.nextId++
      if (this.gone) {
        const error = Object.assign(new Error('the spawner helper is not running'), { code: 'ECHILD' })
        this.settle(id, run, { code: null, signal: null }, error)
        return
      }
      if (opts.signal?.aborted) {
        run.aborted = true
        this.settle(id, run, { code: null, signal: null })
        return
      }
      if (opts.logFile !== undefined) {
        mkdirSync(dirname(opts.logFile), { recursive: true })
        run.log = createWriteStream(opts.logFile, { flags: 'a' })
        run.log.on('error', err => (run.logError ??= err))
      }
      this.runs.set(id, run)
      const input = opts.input === undefined ? null : Buffer.from(opts.input).toString('base64')
      const env = opts.env && opts.env !== process.env ? opts.env : null
      this.helper.stdin?.write(
        `${JSON.stringify({ op: 'spawn', id, argv: opts.argv, cwd: opts.cwd, env, input })}\n`
      )
      if (opts.timeoutMs !== undefined)
        run.timer = setTimeout(() => {
          run.timedOut = true
          this.kill(id, run)
        }, opts.timeoutMs)
      if (opts.signal) {
        run.onAbort = () => {
          run.aborted = true
          this.kill(id, run)
        }
        opts.signal.addEventListener('abort', run.onAbort, { once: true })
      }
    })

  private kill(id: number, run: Run): void {
    if (run.killing || run.pid === undefined) return
    run.killing = killProcessTree(run.pid, run.opts.killGraceMs ?? 3000, { start: run.identity }).then(() => {
      // Everything found is dead; an escaped holder of the pipes is not waited for long.
      setTimeout(() => this.helper.stdin?.write(`${JSON.stringify({ op: 'drop', id })}\n`), PIPE_IDLE_MS)
    })
  }

  private onData(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk
    while (this.pending.length >= HEADER) {
      const kind = this.pending[0]
      const id = this.pending.readUInt32BE(1)
      const length = this.pending.readUInt32BE(5)
      if (this.pending.length < HEADER + length) break
      const payload = this.pending.subarray(HEADER, HEADER + length)
      this.pending = this.pending.subarray(HEADER + length)
      const run = this.runs.get(id)
      if (run) this.onFrame(id, run, kind, payload)
    }
  }

  private onFrame(id: number, run: Run, kind: number, payload: Buffer): void {
    if (kind === FRAME.spawned) {
      run.pid = Number(payload.toString())
      run.identity = processIdentity(run.pid)
      run.opts.onSpawn?.(run.pid)
    } else if (kind === FRAME.stdout || kind === FRAME.stderr) {
      // Copied: the payload is a view of the frame buffer, which is reused.
      const data = Buffer.from(payload)
      const stream = kind === FRAME.stdout ? 'stdout' : 'stderr'
      run[stream].push(data)
      if (run.log && !run.logError) run.log.write(data)
      ;(stream === 'stdout' ? run.opts.onStdout : run.opts.onStderr)?.(data)
    } else if (kind === FRAME.done) {
      const { code, signal } = JSON.parse(payload.toString()) as {
        code: number | null
        signal: number | null
      }
      this.settle(id, run, { code, signal: signal === null ? null : signalName(signal) })
    } else if (kind === FRAME.error) {
      const { code, message } = JSON.parse(payload.toString()) as { code: string; message: string }
      this.settle(id, run, { code: null, signal: null }, Object.assign(new Error(message), { code }))
    }
  }

  private settle(
    id: number,
    run: Run,
    exit: { code: number | null; signal: NodeJS.Signals | null },
    spawnError?: NodeJS.ErrnoException
  ): void {
    this.runs.delete(id)
    clearTimeout(run.timer)
    if (run.onAbort) run.opts.signal?.removeEventListener('abort', run.onAbort)
    const done = async (): Promise<void> => {
      await run.killing
      if (run.log) await new Promise(resolve => run.log?.end(resolve))
      const result: RunResult = {
        exitCode: exit.code,
        signal: exit.signal,
        timedOut: run.timedOut,
        aborted: run.aborted,
        stdout: run.stdout.result(),
        stderr: run.stderr.result(),
        durationMs: performance.now() - run.started
      }
      if (spawnError) result.spawnError = spawnError
      if (run.logError) result.logError = run.logError
      run.resolve(result)
    }
    void done()
  }
}

function signalName(signal: number): NodeJS.Signals | null {
  const names: Record<number, NodeJS.Signals> = { 1: 'SIGHUP', 2: 'SIGINT', 9: 'SIGKILL', 15: 'SIGTERM' }
  return names[signal] ?? null
}
