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
import { charts, formatCost, gateEvidence, iterationCost, iterationTable } from './overview.js'
import { code, fence } from '../text/markdown.js'
import { ended } from '../text/ended.js'
import type {
  BaselineRecord,
  ChainJob,
  ChainRun,
  CheckRun,
  IterationRecord,
  KilledBy,
  LoopResult,
  LoopStatus,
  VerificationRecord
} from './types.js'
import { showPath } from '../text/tree-path.js'

export const PROGRESS_FILE = 'progress.md'
export const STATUS_FILE = 'status.json'

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`
const dollars = (usd: number): string => `$${usd.toFixed(4)}`

const indent = (text: string, by: string): string =>
  text
    .split('\n')
    .map(line => (line ? by + line : line))
    .join('\n')

function checkLine(check: CheckRun): string {
  const how = check.passed
    ? ''
    : check.timedOut
      ? ', timed out'
      : check.killedBy
        ? `, stopped (${check.killedBy})`
        : `, ${ended(check)}`
  const tests = check.tests ? `, ${check.tests.run} test${check.tests.run === 1 ? '' : 's'}` : ''
  const head = `- ${check.passed ? 'PASS' : 'FAIL'} \`${check.name}\` (${seconds(check.durationMs)}${how}${tests})`
  const tail = check.tail.trimEnd()
  if (check.passed) {
    const last = tail.split('\n').at(-1)?.trim()
    return last ? `${head}: ${last.slice(0, 200)}` : head
  }
  return tail ? `${head}\n\n${indent(fence(tail), '  ')}\n` : head
}

/** `- Checks: 1/3 passing (gates 3.1s)` and a line a check. */
function checkLines(checks: CheckRun[], wallMs: number | undefined): string[] {
  const passing = checks.filter(c => c.passed).length
  const took = wallMs !== undefined ? ` (gates ${seconds(wallMs)})` : ''
  return [`- Checks: ${passing}/${checks.length} passing${took}`, '', ...checks.map(checkLine)]
}

/** The baseline in a few words: `every check passes`, `2 of 3 checks failing` or `stopped`. */
export function baselineVerdict(baseline: BaselineRecord): string {
  if (baseline.verdict === 'green') return 'every check passes'
  if (baseline.verdict === 'interrupted') return 'stopped'
  return `${baseline.checks.filter(c => !c.passed).length} of ${baseline.checks.length} checks failing`
}

/** The progress.md section of the baseline: the gates before iteration 1, as an iteration 0. */
export function baselineSection(baseline: BaselineRecord): string {
  const lines = [
    `## Baseline (iteration 0): ${baselineVerdict(baseline)}`,
    '',
    `- Started ${baseline.startedAt} · ${seconds(baseline.durationMs)} · the gates alone, before the first agent run${baseline.parallel ? ', run together' : ''}`,
    ...checkLines(baseline.checks, baseline.checksMs)
  ]
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n\n`
}

/** The progress.md section of the setup commands, run before the baseline. */
export function setupSection(runs: CheckRun[]): string {
  const passing = runs.every(run => run.passed)
  const lines = [
    `## Setup: ${passing ? 'done' : 'failed'}`,
    '',
    '- The setup commands, before the first gate ran',
    '',
    ...runs.map(checkLine)
  ]
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n\n`
}

/** The progress.md lines of a clean verification (verify.ts). */
function verificationLines(verification: VerificationRecord): string[] {
  const short = verification.commit.slice(0, 12)
  const head =
    verification.verdict === 'passed'
      ? `- Verified on a clean checkout of ${short}: every gate passed (${seconds(verification.durationMs)})`
      : verification.verdict === 'interrupted'
        ? `- Clean checkout of ${short}: stopped`
        : `- Clean checkout of ${short}: FAILED, so the iteration does not count as passing (${seconds(verification.durationMs)})`
  const reverts = verification.protectedReverts?.length
    ? [
        `- Protected paths put back from the base there: ${verification.protectedReverts.map(showPath).join(', ')}`
      ]
    : []
  const runs = [...verification.setup, ...verification.checks].filter(run => !run.passed).map(checkLine)
  return [head, ...reverts, ...(runs.length > 0 ? ['', ...runs] : [])]
}

/** The progress.md section of one iteration. */
export function progressSection(record: IterationRecord): string {
  const verdict =
    record.verdict === 'checks_passed_no_tag'
      ? 'checks pass; the agent has not given the completion tag'
      : record.verdict.replace(/_/g, ' ')
  const lines: string[] = [`## Iteration ${record.iteration}: ${verdict}`, '']
  const agent = record.agent
  const spent = iterationCost(record)
  const cost = agent ? ` · cost ${spent}${spent === 'unknown' ? '' : ` (${agent.usage.cost_source})`}` : ''
  lines.push(`- Started ${record.startedAt} · ${seconds(record.durationMs)}${cost}`)
  if (record.commands.length > 0)
    lines.push(
      `- Commands: ${record.commands
        .map(c => `\`${c.name}\` ${c.timedOut ? 'timed out' : ended(c)} (${seconds(c.durationMs)})`)
        .join(', ')}`
    )
  if (agent) {
    const end = agent.killedBy
      ? `stopped (${agent.killedBy})`
      : agent.timedOut
        ? 'timed out'
        : `${ended(agent)}${agent.isError ? ', reported an error' : ''}`
    lines.push(`- Agent (${agent.preset}): ${end} in ${seconds(agent.durationMs)}`)
    const failure = agent.failure
    if (failure)
      lines.push(
        `- Agent failure (${failure.kind.replace(/_/g, ' ')}): ${failure.message}${failure.resetsAt ? ` (lifts at ${failure.resetsAt})` : ''}`
      )
    if (agent.permissionDenials?.length)
      lines.push(
        `- Permission denied: ${agent.permissionDenials.map(d => (d.detail ? `${d.tool} (${d.detail})` : d.tool)).join(', ')}`
      )
    if (agent.apiRetries) lines.push(`- API retries: ${agent.apiRetries}`)
    const requests = agent.usage.requests
    if (requests) {
      const count = (n: number, what: string): string => (n > 0 ? `, ${n} ${what}` : '')
      const unread = requests.filter(r => r.unread).length
      lines.push(
        `- Model requests metered at the wire: ${requests.length}` +
          count(requests.filter(r => r.cut).length, 'cut at the budget') +
          count(
            requests.filter(r => r.refused).length,
            'refused (their worst case did not fit in the budget)'
          ) +
          count(unread, 'unreadable (their cost is unknown; charged their worst case)') +
          count(
            requests.filter(r => r.worst_case && !r.unread && !r.impossible_usage).length,
            'with no usage seen (charged their worst case)'
          ) +
          count(
            requests.filter(r => r.impossible_usage).length,
            "with usage that cannot be true (the upstream's fault; charged their worst case)"
          )
      )
    }
    const said = agent.usage.agent_said
    if (said) {
      const diff = agent.usage.cost_usd - said.cost_usd
      lines.push(
        `- The agent's own figure: $${said.cost_usd.toFixed(4)} (${said.cost_source}); metered minus that: ${diff < 0 ? '-' : '+'}$${Math.abs(diff).toFixed(4)}`
      )
    }
  }
  const signal = record.completion.given
    ? 'given'
    : record.completion.statusExit === false
      ? 'not given (EXIT_SIGNAL: false)'
      : 'not given'
  if (agent) lines.push(`- Completion signal: ${signal}`)
  if (record.reverts?.length)
    lines.push(
      `- Protected paths put back from the start commit before the checks: ${record.reverts.map(r => `${code(showPath(r.path))} (${r.why})`).join(', ')}`
    )
  if (record.checks.length > 0) lines.push(...checkLines(record.checks, record.checksMs))
  if (record.diffStat !== undefined) {
    const summary = record.diffStat.trim().split('\n').at(-1)?.trim()
    lines.push(
      `- Changed since the start: ${summary || 'nothing'}${record.progressed === false ? ' (no change this iteration)' : ''}`
    )
  }
  if (record.commit?.sha) lines.push(`- Commit: ${record.commit.sha}`)
  if (record.verification) lines.push(...verificationLines(record.verification))
  if (record.commit?.error) lines.push(`- Commit failed: ${record.commit.error}`)
  if (record.error) lines.push(`- Crashed: ${record.error}`)
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n\n`
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

function header(status: LoopStatus): string {
  const budgets = status.budgets
  const limits = [
    budgets.maxIterations !== undefined
      ? `at most ${plural(budgets.maxIterations, 'iteration')}`
      : 'no iteration cap',
    budgets.maxTimeSeconds !== undefined ? `max time ${budgets.maxTimeSeconds}s` : undefined,
    budgets.maxCostUsd !== undefined ? `max cost ${dollars(budgets.maxCostUsd)}` : undefined,
    budgets.agentTimeoutSeconds !== undefined ? `agent timeout ${budgets.agentTimeoutSeconds}s` : undefined
  ].filter(Boolean)
  return [
    `# Ralph loop: ${status.ralph.name}`,
    '',
    `- Started ${status.startedAt} in ${status.workTree}${status.worktree ? ` (worktree on branch ${status.worktree.branch})` : ''}`,
    `- Budgets: ${limits.join(', ')}`,
    status.start.commit ? `- Starting commit: ${status.start.commit}` : undefined,
    '',
    ''
  ]
    .filter(line => line !== undefined)
    .join('\n')
}

/** What an enforced stop was measured from. */
const CROSSING: Record<KilledBy, string> = {
  timeout: 'the time budget ran out',
  budget_exhausted: 'the cost budget was reached',
  cancelled: 'the cancel'
}

/** How the run ended, then the overview (the iteration table, the cost and duration charts), then each gate start to end. */
function outcome(result: LoopResult): string {
  const lines = [
    `## Stopped: ${result.stopReason}`,
    '',
    `${result.stopDetail}`,
    '',
    `- Iterations: ${result.iterations.length} · duration ${seconds(result.durationMs)}`,
    `- Cost: ${formatCost(result)}${result.cost.enforced ? '' : ' (the dollar budget could not be enforced)'}`
  ]
  const enforced = result.enforcement
  if (enforced)
    lines.push(
      `- Enforcement: ${enforced.killed ? `the ${enforced.killed} was stopped` : 'nothing was running; the loop stopped'} ${enforced.latencyMs} ms after ${CROSSING[enforced.cause]}`
    )
  const jobs = result.chain?.jobs ?? []
  if (jobs.length > 0)
    lines.push(
      `- Jobs: ${jobs.length}, this one last: ${jobs.map((job, i) => `${i + 1}. run ${job.run.id} (${plural(job.iterations, 'iteration')}, ${dollars(job.costUsd)}, ${seconds(job.durationMs)}, ${job.stopReason})`).join('; ')}`
    )
  for (const warning of result.warnings) lines.push(`- Warning: ${warning}`)
  if (result.iterations.length > 0 || result.baseline)
    lines.push(
      '',
      '## Overview',
      '',
      iterationTable(result, Infinity),
      '',
      charts(result),
      '',
      '## Gates',
      '',
      gateEvidence(result)
    )
  return `${lines.join('\n')}\n\n`
}

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
