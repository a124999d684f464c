// The process contract: run one program (no shell unless the caller puts `bash -c` in argv),
// bound what is kept in memory, stream everything to a log, and kill the whole tree when told.

export interface RunOptions {
  /** argv[0] is looked up on PATH (relative to cwd when it contains a slash). Never run through a shell. */
  argv: string[]
  cwd: string
  /** The child's whole environment; default process.env. */
  env?: NodeJS.ProcessEnv
  /** Variables added to that environment (a ralph's args for its commands), whoever chose `env`. */
  extraEnv?: Record<string, string>
  /** Written to stdin, then stdin is closed (EPIPE ignored). Omitted: stdin is closed at once (/dev/null). */
  input?: string | Buffer
  /** Wall-clock limit; on expiry the whole process tree gets SIGTERM, then SIGKILL after killGraceMs. */
  timeoutMs?: number | undefined
  /** Default 3000 (the reference runtime's grace). */
  killGraceMs?: number
  /**
   * Aborting kills the tree the same way as a timeout (result.aborted = true); an abort reason carrying
   * `killGraceMs` (e.g. 0: a spent budget) sets the grace for that kill.
   */
  signal?: AbortSignal
  /** Bytes of each stream kept in memory, head + tail; the middle is dropped. Default 1 MiB. */
  captureLimit?: number
  /** Every byte of stdout and stderr appended here as it arrives (in arrival order). */
  logFile?: string
  /** Called once the program has started, with its pid (also its process group id): for killProcessTree. */
  onSpawn?: (pid: number) => void
  onStdout?: (chunk: Buffer) => void
  onStderr?: (chunk: Buffer) => void
  /**
   * Asked after each chunk: a promise means the caller cannot take more output yet, and neither pipe is read
   * until it settles, so the program blocks on its own writes (back-pressure, never a buffer of ours). Once
   * the tree has been killed it is no longer asked: what is left in the pipes goes to the capture and log.
   */
  outputRoom?: () => Promise<void> | undefined
  /** Called once the program itself has exited; its output may still be open (held by a process it left). */
  onExit?: () => void
  /** How the tree is signalled on timeout or abort (default: process.kill); see {@link Signaller}. */
  signaller?: Signaller
}

/**
 * Sends `signal` to each pid (a negative one: a process group), skipping those that are gone or not ours to
 * signal. A program started as another user (isolation) needs one that can signal that user's processes.
 */
export type Signaller = (pids: number[], signal: NodeJS.Signals) => void

/** A bounded capture of one stream. */
export interface Captured {
  /** Kept bytes: all of them when !truncated, else head + tail around the dropped middle. */
  head: Buffer
  tail: Buffer
  /** Total bytes the stream produced. */
  totalBytes: number
  truncated: boolean
}

export interface RunResult {
  /** null when killed by a signal or when the program could not start. */
  exitCode: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  aborted: boolean
  /** Set when the program could not be started (ENOENT, EACCES…); nothing ran. */
  spawnError?: NodeJS.ErrnoException
  /** Set when logFile could not be written; the program still ran and the capture is complete. */
  logError?: NodeJS.ErrnoException
  stdout: Captured
  stderr: Captured
  durationMs: number
}
