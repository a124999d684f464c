// A file an agent writes beside its output (a generic agent's cost report, gemini's telemetry log, codex's
// session log), read while the agent runs: live enforcement of the dollar budget. A file we name lives in a
// private temp folder removed afterwards; a file the agent names itself is found once it exists, and left.
import { chmodSync, closeSync, constants, fstatSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export type WatchedFileOptions = {
  pollMs: number
} & (
  | {
      /** The file's name inside a private temp folder made for it. */
      name: string
    }
  | {
      /** Where the agent put the file, once it has (codex names its session log after the session). */
      find(): string | undefined
    }
) &
  (
    | {
        /**
         * The agent rewrites the file whole: `onChange` gets its text each time it changed, and answers whether
         * it could read it (a half-written file is offered again at the next poll).
         */
        mode: 'rewritten'
        onChange(text: string, final: boolean): boolean
      }
    | {
        /** The agent appends to the file: `onData` gets the bytes added since the last read. */
        mode: 'appended'
        onData(chunk: Buffer): void
      }
  )

/** Bytes read at most per poll of an appended file (the rest waits for the next poll). */
const READ_CHUNK = 4 * 1024 * 1024
/** A rewritten file larger than this is no report: it is not read. */
const REWRITTEN_MAX = 1024 * 1024
// The agent may be another user who made the file: a symlink (to a file only we may read) is not followed, and
// a FIFO or device is not opened for real (O_NONBLOCK, then only a regular file is read), so it cannot block us.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

export class WatchedFile {
  /** The file's path; for a file the agent names, undefined until it is found. */
  path: string | undefined
  private readonly dir?: string
  private readonly timer: NodeJS.Timeout
  private last?: string
  private offset = 0

  constructor(private readonly options: WatchedFileOptions) {
    if ('name' in options) {
      this.dir = mkdtempSync(path.join(os.tmpdir(), 'ralph-agent-'))
      // The agent may run as a user of its own (isolation): it may create the file there, but list nothing.
      chmodSync(this.dir, 0o1733)
      this.path = path.join(this.dir, options.name)
    }
    this.timer = setInterval(() => this.read(false), options.pollMs)
    this.timer.unref()
  }

  /** A file we name (the agent gets its path in a variable): its path is known from the start. */
  static named(options: WatchedFileOptions & { name: string }): WatchedFile & { readonly path: string } {
    return new WatchedFile(options) as WatchedFile & { readonly path: string }
  }

  /** The agent is done: a last read, then our own folder is removed. */
  close(): void {
    clearInterval(this.timer)
    this.read(true)
    if (this.dir) rmSync(this.dir, { recursive: true, force: true })
  }

  private read(final: boolean): void {
    if (this.path === undefined && 'find' in this.options) this.path = this.options.find()
    if (this.path === undefined) return
    let fd: number
    try {
      fd = openSync(this.path, OPEN_FLAGS)
    } catch {
      return // not there yet, or not a file we read
    }
    try {
      const stat = fstatSync(fd)
      if (!stat.isFile()) return
      if (this.options.mode === 'rewritten') {
        if (stat.size > REWRITTEN_MAX) return
        const buffer = Buffer.alloc(stat.size)
        const text = buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0))
        if (text === this.last || text.trim() === '') return
        if (this.options.onChange(text, final)) this.last = text
        return
      }
      while (this.offset < stat.size) {
        const buffer = Buffer.alloc(Math.min(READ_CHUNK, stat.size - this.offset))
        const bytes = readSync(fd, buffer, 0, buffer.length, this.offset)
        if (bytes === 0) break
        this.offset += bytes
        this.options.onData(buffer.subarray(0, bytes))
        if (!final) break
      }
    } finally {
      closeSync(fd)
    }
  }
}
