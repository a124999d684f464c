// The run record, written as the loop goes so a killed run keeps everything up to the iteration in flight:
// progress.md (for people), status.json (the whole typed status, replaced atomically), and
// logs/iteration-NNN/{prompt.md, agent.log, agent.jsonl, commands/<name>.log, checks/<name>.log}.
// Writes are synchronous, but for status.json while the loop runs: it is replaced off the main thread, one
// write at a time, later ones coalesced; the last one is awaited before the record is finished. While the
// loop runs, the iterations wait in a file beside it, not in memory: a long loop's memory does not grow.
import { open, rename, type FileHandle } from 'node:fs/promises'
import {
  appendFileSync,
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  read,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync
} from 'node:fs'
import path from 'node:path'
import { baselineSection, header, outcome, progressSection, setupSection } from './progress.js'
import type {
  BaselineRecord,
  ChainJob,
  ChainRun,
  CheckRun,
  IterationRecord,
  LoopResult,
  LoopStatus
} from './types.js'

export const PROGRESS_FILE = 'progress.md'
export const STATUS_FILE = 'status.json'

/** Where the iterations go in the compact status.json (only the top level has an `iterations` key). */
const ITERATIONS_SLOT = '"iterations":[]'
/** The iterations' file beside status.json while the loop runs (`.tmp`: never uploaded; removed at the end). */
export const ITERATIONS_SPOOL = 'status.iterations.tmp'
/** status.json is rewritten from the spool this many bytes at a time, through one buffer. */
const COPY_CHUNK = 256 * 1024

/** `fs.read` at a position, awaited: the spool is read off the main thread as status.json is. */
const readAt = (fd: number, buffer: Buffer, length: number, position: number): Promise<number> =>
  new Promise((resolve, reject) =>
    read(fd, buffer, 0, length, position, (error, bytes) => (error ? reject(error) : resolve(bytes)))
  )

/** Writes all of `bytes` to the open `fd` (a short write carries on). */
function writeFully(fd: number, bytes: Buffer, position?: number): void {
  for (let at = 0; at < bytes.length;)
    at += writeSync(fd, bytes, at, bytes.length - at, position === undefined ? null : position + at)
}

async function writeFullyAsync(handle: FileHandle, bytes: Buffer): Promise<void> {
  for (let at = 0; at < bytes.length;) at += (await handle.write(bytes, at, bytes.length - at)).bytesWritten
}

/**
 * The finished iterations as the bytes of a JSON array's contents (`{…},{…}`), each serialised once, in a
 * file: status.json is rewritten after every iteration from these bytes (serialising all of them each time
 * made long runs quadratic), and memory holds none of them (a long loop's records grew its memory).
 */
class IterationSpool {
  private readonly fd: number
  private readonly chunk = Buffer.allocUnsafe(COPY_CHUNK)
  /** Bytes appended so far. */
  bytes = 0
  private count = 0

  constructor(readonly file: string) {
    this.fd = openSync(file, 'w+')
  }

  append(record: IterationRecord): void {
    const bytes = Buffer.from(`${this.count > 0 ? ',' : ''}${JSON.stringify(record)}`)
    writeFully(this.fd, bytes, this.bytes)
    this.bytes += bytes.length
    this.count++
  }

  /** The first `length` bytes, appended to the open `out`. */
  copyToSync(out: number, length: number): void {
    for (let at = 0; at < length;) {
      const n = readSync(this.fd, this.chunk, 0, Math.min(COPY_CHUNK, length - at), at)
      if (n === 0) throw new Error(`${this.file} is shorter than what was written to it`)
      writeFully(out, this.chunk.subarray(0, n))
      at += n
    }
  }

  /** The same, without blocking the event loop. */
  async copyTo(out: FileHandle, length: number): Promise<void> {
    for (let at = 0; at < length;) {
      const n = await readAt(this.fd, this.chunk, Math.min(COPY_CHUNK, length - at), at)
      if (n === 0) throw new Error(`${this.file} is shorter than what was written to it`)
      await writeFullyAsync(out, this.chunk.subarray(0, n))
      at += n
    }
  }

  /** Every record, read back (once, for the loop's result). */
  records(): IterationRecord[] {
    const all = Buffer.allocUnsafe(this.bytes)
    for (let at = 0; at < this.bytes;) {
      const n = readSync(this.fd, all, at, this.bytes - at, at)
      if (n === 0) throw new Error(`${this.file} is shorter than what was written to it`)
      at += n
    }
    return JSON.parse(`[${all.toString('utf8')}]`) as IterationRecord[]
  }

  close(): void {
    closeSync(this.fd)
    rmSync(this.file, { force: true })
  }
}

/**
 * Makes `dir` and its missing parents, one level at a time. Node's recursive mkdirSync loops forever where the
 * kernel answers ENOENT to a mkdir whose parent exists (/proc/nope): here that mkdir's error is thrown at once.
 */
export function makeFolder(dir: string): void {
  const missing: string[] = []
  for (let d = path.resolve(dir); !existsSync(d); d = path.dirname(d)) missing.unshift(d)
  for (const d of missing)
    try {
      mkdirSync(d)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
}

export class RunRecord {
  /** The status.json write in flight, the status to write after it, and a failure not yet reported. */
  private writing: Promise<void> | undefined
  private next: LoopStatus | undefined
  private failed: unknown

  /** `spool`: the iterations of a loop that runs; none for a record opened to be finished. */
  private constructor(
    readonly dir: string,
    private readonly spool?: IterationSpool
  ) {}

  /**
   * Creates the record folder (and logs/) and starts progress.md. A loop that goes on from an earlier job's
   * (`earlier`) starts with that record's logs and, in progress.md, a section per earlier job; its iterations
   * (`status.iterations`, the earlier job's) are the record's first.
   */
  static create(
    dir: string,
    status: LoopStatus,
    earlier?: { dir: string; jobs: ChainJob[]; run: ChainRun; sectionsAt?: number | undefined }
  ): RunRecord {
    makeFolder(path.join(dir, 'logs'))
    const record = new RunRecord(dir, new IterationSpool(path.join(dir, ITERATIONS_SPOOL)))
    for (const iteration of status.iterations) record.spool?.append(iteration)
    const progress = path.join(dir, PROGRESS_FILE)
    writeFileSync(progress, header(status))
    if (earlier) {
      const logs = path.join(earlier.dir, 'logs')
      if (existsSync(logs)) cpSync(logs, path.join(dir, 'logs'), { recursive: true, verbatimSymlinks: true })
      const before = path.join(earlier.dir, PROGRESS_FILE)
      const out = openSync(progress, 'a')
      try {
        // The first job's sections get their heading here; a later job's record has them already.
        if (earlier.jobs.length === 1) writeSync(out, jobHeading(1, earlier.jobs[0].run))
        if (existsSync(before)) copyFrom(before, earlier.sectionsAt ?? firstSection(before), out)
        writeSync(out, jobHeading(earlier.jobs.length + 1, earlier.run))
      } finally {
        closeSync(out)
      }
    }
    // The first status.json is there at once: a post step after an early kill reads it.
    record.writeStatusNow(status)
    return record
  }

  /** A record written earlier, e.g. to finish one whose loop was killed (the action's post step). */
  static open(dir: string): RunRecord {
    return new RunRecord(dir)
  }

  /** `logs/<name>`, created. */
  logsDir(name: string): string {
    const dir = path.join(this.dir, 'logs', name)
    mkdirSync(dir, { recursive: true })
    return dir
  }

  /** `logs/iteration-NNN`, created. */
  iterationDir(iteration: number): string {
    const dir = path.join(this.dir, 'logs', `iteration-${String(iteration).padStart(3, '0')}`)
    mkdirSync(dir, { recursive: true })
    return dir
  }

  /** A path inside the record, relative to its folder (how results name files). */
  relative(file: string): string {
    return path.relative(this.dir, file).split(path.sep).join('/')
  }

  writePrompt(iteration: number, prompt: string): { file: string; bytes: number } {
    const file = path.join(this.iterationDir(iteration), 'prompt.md')
    writeFileSync(file, prompt)
    return { file: this.relative(file), bytes: Buffer.byteLength(prompt) }
  }

  /**
   * Replaces status.json atomically (write, then rename), so readers never see half a file. It is
   * rewritten after every iteration, so it is compact while the loop runs and indented once finished.
   * While it runs, its iterations are the record's (appendIteration), whatever `status.iterations` holds.
   * The write happens off the main thread: one at a time, and calls made meanwhile become one write of the
   * status as it is when that write starts. A failure is thrown by the next call, or by flush().
   */
  writeStatus(status: LoopStatus): void {
    this.throwFailure()
    this.next = status
    this.writing ??= this.drain()
  }

  /** Waits for status.json to hold the last status given; throws a write's failure. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing
    this.throwFailure()
  }

  private async drain(): Promise<void> {
    const file = path.join(this.dir, STATUS_FILE)
    const temp = `${file}.${process.pid}.tmp`
    try {
      for (let status = this.next; status; status = this.next) {
        this.next = undefined
        // Serialised when the write starts, with the iterations appended by then.
        const { head, iterations, tail } = this.statusJson(status)
        const out = await open(temp, 'w')
        try {
          await writeFullyAsync(out, head)
          if (iterations > 0) await this.spool?.copyTo(out, iterations)
          await writeFullyAsync(out, tail)
        } finally {
          await out.close()
        }
        await rename(temp, file)
      }
    } catch (error) {
      this.next = undefined
      this.failed = error
    } finally {
      this.writing = undefined
    }
  }

  private throwFailure(): void {
    const failed = this.failed
    if (failed === undefined) return
    this.failed = undefined
    throw failed
  }

  private writeStatusNow(status: LoopStatus): void {
    const file = path.join(this.dir, STATUS_FILE)
    const temp = `${file}.${process.pid}.tmp`
    const { head, iterations, tail } = this.statusJson(status)
    const out = openSync(temp, 'w')
    try {
      writeFully(out, head)
      if (iterations > 0) this.spool?.copyToSync(out, iterations)
      writeFully(out, tail)
    } finally {
      closeSync(out)
    }
    renameSync(temp, file)
  }

  /**
   * `JSON.stringify(status)` and a final newline, as the bytes before the iterations, how many of the spool's
   * bytes go in their place, and the bytes after them. Finished, the status is whole and indented.
   */
  private statusJson(status: LoopStatus): { head: Buffer; iterations: number; tail: Buffer } {
    const whole = (text: string) => ({ head: Buffer.from(`${text}\n`), iterations: 0, tail: Buffer.alloc(0) })
    if (status.state === 'finished' || !this.spool) return whole(JSON.stringify(status, null, 2))
    const shell = JSON.stringify({ ...status, iterations: [] })
    const at = shell.indexOf(ITERATIONS_SLOT) + ITERATIONS_SLOT.length - 1
    return {
      head: Buffer.from(shell.slice(0, at)),
      iterations: this.spool.bytes,
      tail: Buffer.from(`${shell.slice(at)}\n`)
    }
  }

  appendBaseline(baseline: BaselineRecord): void {
    appendFileSync(path.join(this.dir, PROGRESS_FILE), baselineSection(baseline))
  }

  appendSetup(runs: CheckRun[]): void {
    appendFileSync(path.join(this.dir, PROGRESS_FILE), setupSection(runs))
  }

  /** An iteration that ended: its section in progress.md, and its record for status.json. */
  appendIteration(record: IterationRecord): void {
    appendFileSync(path.join(this.dir, PROGRESS_FILE), progressSection(record))
    this.spool?.append(record)
  }

  /** Every iteration the record holds (the loop's result takes them at its end). */
  iterations(): IterationRecord[] {
    return this.spool?.records() ?? []
  }

  /**
   * Rewrites progress.md to open with the outcome and the overview, the iterations' sections (written as
   * the loop went) after them, and writes the final status.json, after any write still in flight. The
   * sections are copied, never held whole.
   */
  async finish(result: LoopResult): Promise<void> {
    // An earlier status write that failed is overwritten now: the record must still end finished.
    await this.flush().catch(() => undefined)
    const file = path.join(this.dir, PROGRESS_FILE)
    const temp = `${file}.${process.pid}.tmp`
    const out = openSync(temp, 'w')
    try {
      const head = header(result) + outcome(result)
      writeSync(out, head)
      // Where the sections start, for a later job of a chain to copy them without the outcome before them.
      result.progressSectionsAt = Buffer.byteLength(head)
      copyFrom(file, firstSection(file), out)
    } finally {
      closeSync(out)
    }
    renameSync(temp, file)
    this.writeStatusNow(result)
    // The iterations are in status.json now; a killed loop's spool is left for the post step to remove.
    if (this.spool) this.spool.close()
    else rmSync(path.join(this.dir, ITERATIONS_SPOOL), { force: true })
  }
}

/** The heading of one job's sections in a chain's progress.md. */
function jobHeading(n: number, run: ChainRun): string {
  return `## Job ${n}: run ${run.id}${run.attempt !== '1' ? ` (attempt ${run.attempt})` : ''}${run.url ? ` (${run.url})` : ''}\n\n`
}

/** Where progress.md's first section starts: the baseline's, else the first iteration's. */
function firstSection(file: string): number | undefined {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    // No progress.md: no sections to copy, and the caller copies none.
    return undefined
  }
  try {
    const start = Buffer.alloc(64 * 1024)
    const read = readSync(fd, start, 0, start.length, 0)
    // The setup's and the baseline's sections, when there are, come before the first iteration's.
    const found = ['\n## Job ', '\n## Setup: ', '\n## Baseline (iteration 0)', '\n## Iteration ']
      .map(heading => start.subarray(0, read).indexOf(heading))
      .filter(at => at !== -1)
    return found.length === 0 ? undefined : Math.min(...found) + 1
  } finally {
    closeSync(fd)
  }
}

/** Appends `file` from byte `offset` to the open `out`, a chunk at a time. */
function copyFrom(file: string, offset: number | undefined, out: number): void {
  if (offset === undefined) return
  const fd = openSync(file, 'r')
  try {
    const chunk = Buffer.alloc(1024 * 1024)
    for (let at = offset; ;) {
      const read = readSync(fd, chunk, 0, chunk.length, at)
      if (read === 0) break
      writeSync(out, chunk.subarray(0, read))
      at += read
    }
  } finally {
    closeSync(fd)
  }
}
