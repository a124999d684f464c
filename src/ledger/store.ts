// The ledger in the repository: a ref outside branches and tags (refs/ralph/ledger) whose tip commit holds
// ledger.json. Read with a fetch, changed by a new commit pushed with a lease (compare-and-swap): a run
// that loses the race reads the new tip, applies its change again and retries, after a jittered wait, a
// bounded number of times. Every git command is the action's hermetic git with the token in the
// environment (git/auth.ts); the push is the action's one push (git/push.ts, git/remote-retry.ts).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  authConfig,
  GITHUB_ACTIONS_IDENTITY,
  GITHUB_PUSH_ERRORS,
  gitBytes,
  GitRepo,
  maybeLanded,
  PUSH_FAILURE,
  pushWithRetry,
  repositoryUrl,
  retryInTransit,
  TRANSIENT_PUSH_ERRORS,
  type GitAuth,
  type PushResult
} from '../git/index.js'
import { backoffMs, retryTiming, sleep, type RetryTiming } from '../github/retry.js'
import { hermeticGitEnvironment } from '../security/index.js'
import {
  emptyLedger,
  LEDGER_FILE,
  LedgerFormatError,
  MAX_LEDGER_BYTES,
  parseLedger,
  serializeLedger,
  type Ledger
} from './format.js'
import type { Outcome } from './operations.js'

export const DEFAULT_LEDGER_REF = 'refs/ralph/ledger'

/** The most races a change may lose in a row before the run gives up (and runs no agent). */
export const MOST_LOST_RACES = 40

/** A ledger problem for the user: one line that says what to do. */
export class LedgerError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'LedgerError'
  }
}

/** Why `ref` cannot hold the ledger, or undefined: a full ref outside branches, tags and pull requests. */
export function ledgerRefProblem(ref: string): string | undefined {
  if (!ref.startsWith('refs/') || ref.split('/').length < 3)
    return 'give a full ref outside branches and tags, like refs/ralph/ledger'
  if (/^refs\/(heads|tags|remotes|pull)\//.test(ref))
    return 'a branch, tag or pull request ref would start workflows and show in the repository: use one outside them, like refs/ralph/ledger'
  // git check-ref-format's rules, checked without git (an input is checked before anything runs).
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\/|\/$|\.lock(\/|$)|\/\./.test(ref) || ref.endsWith('.'))
    return 'it is not a valid ref name'
  return undefined
}

export interface LedgerStoreOptions {
  /** GITHUB_SERVER_URL */
  serverUrl: string
  /** owner/repo */
  repository: string
  /** Needs contents: write to change the ledger (contents: read to read it). */
  token: string
  ref?: string
  /** Each git step, for the debug log. */
  log?: (message: string) => void
  /** What the user should know: the ledger started empty. */
  warn?: (message: string) => void
  /** Races lost in a row before giving up (default MOST_LOST_RACES). */
  attempts?: number
  /** The wait after lost race `lost` (default: raceWaitMs, from how long the last round took). */
  raceWaitMs?: (lost: number, roundMs: number) => number
  /** Transient failures (5xx, resets): the action's delivery timings (github/retry.ts) by default. */
  timing?: RetryTiming
  clock?: () => Date
}

export interface LedgerTip {
  /** The ref's commit; null when the repository has no ledger yet. */
  sha: string | null
  ledger: Ledger
}

export interface Applied<T> {
  result: T
  /** The ledger after the change (as written, or as read when nothing changed). */
  ledger: Ledger
  /** The ref's commit after it. */
  sha: string | null
  /** Races lost before the change landed. */
  lostRaces: number
  /** Whether a commit was written. */
  wrote: boolean
}

const LOCAL_TIP = 'refs/ledger/tip'

/**
 * The wait after lost race `lost`, a round (read, commit, push) having taken `roundMs`: anywhere in a window
 * of rounds that doubles with each loss (up to 16 rounds), so runs that lost together spread out and mostly
 * find the ref free instead of colliding again.
 */
export function raceWaitMs(lost: number, roundMs: number, random: () => number = Math.random): number {
  const round = Math.min(Math.max(roundMs, 20), 2000)
  return Math.round(random() * round * Math.min(2 ** (lost - 1), 16))
}

export class LedgerStore {
  readonly ref: string
  private tip: LedgerTip | undefined
  private warnedEmpty = false

  private constructor(
    /** The store's scratch folder (mode 0700: no other user, the agent's included, reads the ledger here). */
    readonly folder: string,
    private readonly repo: GitRepo,
    private readonly options: LedgerStoreOptions
  ) {
    this.ref = options.ref ?? DEFAULT_LEDGER_REF
  }

  /** A store with a scratch git directory of its own (nothing of the work tree's is read). */
  static async open(options: LedgerStoreOptions): Promise<LedgerStore> {
    const problem = ledgerRefProblem(options.ref ?? DEFAULT_LEDGER_REF)
    if (problem) throw new LedgerError(`The ledger ref '${options.ref}' cannot be used: ${problem}.`)
    repositoryUrl(options.serverUrl, options.repository)
    const root = await mkdtemp(path.join(tmpdir(), 'ralph-ledger-'))
    const dir = path.join(root, 'git')
    const repo = new GitRepo(root)
    await repo.exec(['init', '--quiet', '--bare', '--template=', dir])
    return new LedgerStore(root, new GitRepo(dir), options)
  }

  private get where(): string {
    return `The budget ledger ${this.ref} on ${this.options.repository}`
  }

  private get auth(): GitAuth {
    return { token: this.options.token, serverUrl: this.options.serverUrl }
  }

  private get timing(): RetryTiming {
    return this.options.timing ?? retryTiming()
  }

  /** The time every change is dated with (the clock given, else now). */
  now(): Date {
    return (this.options.clock ?? (() => new Date()))()
  }

  /** The ledger as the remote has it now (an empty one when there is none yet). */
  async read(): Promise<LedgerTip> {
    const timing = this.timing
    // The fetch is tried again as every remote git command of the action is (git/remote-retry.ts).
    const fetched = await retryInTransit(() => this.fetchTip(), {
      what: `Reading the ledger ${this.ref}`,
      retry: { attempts: timing.attempts, waitMs: attempt => backoffMs(timing, attempt) },
      failed: tip => ('transient' in tip ? tip.transient : undefined),
      ...(this.options.log ? { log: this.options.log } : {})
    })
    if (!('transient' in fetched)) return fetched
    throw new LedgerError(
      `${this.where} could not be read: ${fetched.transient} (tried ${timing.attempts} times).`
    )
  }

  private async fetchTip(): Promise<LedgerTip | { transient: string }> {
    const url = repositoryUrl(this.options.serverUrl, this.options.repository)
    const result = await this.repo.exec(
      [
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        '--end-of-options',
        url,
        `+${this.ref}:${LOCAL_TIP}`
      ],
      {
        probe: true,
        config: [
          ...authConfig(this.auth),
          ['http.lowSpeedLimit', '1'],
          ['http.lowSpeedTime', String(this.timing.pushStallSeconds)]
        ]
      }
    )
    const said = `${result.stderr}\n${result.stdout}`
    if (result.exitCode !== 0) {
      if (/couldn't find remote ref/i.test(said)) {
        await this.repo.exec(['update-ref', '-d', LOCAL_TIP], { probe: true })
        return { sha: null, ledger: emptyLedger(this.now()) }
      }
      const line = firstLine(said)
      if (TRANSIENT_PUSH_ERRORS.test(said)) return { transient: line }
      if (GITHUB_PUSH_ERRORS.authFailed.test(said))
        throw new LedgerError(
          `${this.where} could not be read: GitHub did not accept the token (missing, invalid or expired). Check the token given to the action.`
        )
      if (GITHUB_PUSH_ERRORS.permissionDenied.test(said))
        throw new LedgerError(
          `${this.where} could not be read: the token may not read ${this.options.repository}. Give the job that keeps the ledger \`permissions: contents: write\`.`
        )
      throw new LedgerError(`${this.where} could not be read: ${line}`)
    }
    const sha = (await this.repo.commitOf(LOCAL_TIP)) as string
    return {
      sha,
      ledger: await readLedgerCommit(this.repo, sha, { ref: this.ref, repository: this.options.repository })
    }
  }

  /**
   * Applies `operation` to the ledger and writes the result, retrying on a lost race with the new tip.
   * An operation that changes nothing writes nothing (a refusal is decided on a fresh read).
   */
  async apply<T>(operation: (ledger: Ledger, now: Date) => Outcome<T>): Promise<Applied<T>> {
    const attempts = this.options.attempts ?? MOST_LOST_RACES
    const wait = this.options.raceWaitMs ?? raceWaitMs
    let fresh = this.tip === undefined
    let roundStarted = Date.now()
    let tip = this.tip ?? (await this.read())
    for (let lost = 0; ;) {
      const outcome = operation(tip.ledger, this.now())
      if (outcome.changes.length === 0) {
        // Decided on what this store last wrote: others may have settled since. Decide again on the remote's.
        if (!fresh) {
          tip = await this.read()
          fresh = true
          continue
        }
        this.tip = tip
        return { result: outcome.result, ledger: tip.ledger, sha: tip.sha, lostRaces: lost, wrote: false }
      }
      if (tip.sha === null && !this.warnedEmpty) {
        this.warnedEmpty = true
        this.options.warn?.(
          `${this.where} was not there: starting it empty. If runs spent before (the ref was deleted), that spend is no longer counted.`
        )
      }
      const commit = await this.commit(outcome.ledger, outcome.changes, tip.sha)
      const pushed = await this.push(commit, tip.sha)
      const roundMs = Date.now() - roundStarted
      if (pushed === 'pushed') {
        this.tip = { sha: commit, ledger: outcome.ledger }
        return { result: outcome.result, ledger: outcome.ledger, sha: commit, lostRaces: lost, wrote: true }
      }
      // Lost the race, or the answer: the new tip says which.
      lost++
      if (pushed === 'lost' && lost >= attempts) {
        this.tip = undefined
        throw new LedgerError(
          `${this.where} could not be changed: ${lost} runs wrote it first, one after another (too many runs at once); the run gives up rather than wait.`
        )
      }
      if (pushed === 'lost') await sleep(wait(lost, roundMs))
      roundStarted = Date.now()
      tip = await this.read()
      fresh = true
      if (tip.sha !== null && (await this.landed(commit, tip.sha))) {
        this.tip = tip
        return { result: outcome.result, ledger: tip.ledger, sha: tip.sha, lostRaces: lost - 1, wrote: true }
      }
      if (pushed !== 'lost') throw new LedgerError(`${this.where} could not be written: ${pushed.failed}`)
    }
  }

  /** A commit of `ledger` on `parent` (none for the first), its message the changes, one a line. */
  private async commit(ledger: Ledger, changes: string[], parent: string | null): Promise<string> {
    const text = serializeLedger(ledger)
    if (Buffer.byteLength(text) > MAX_LEDGER_BYTES)
      throw new LedgerError(`${this.where} would grow over ${MAX_LEDGER_BYTES / 1024} KB: it is not written.`)
    const blob = (await this.repo.bytes(['hash-object', '-w', '--stdin'], text)).toString('utf8').trim()
    const tree = (await this.repo.bytes(['mktree'], `100644 blob ${blob}\t${LEDGER_FILE}\n`))
      .toString('utf8')
      .trim()
    const ops = [...new Set(changes.map(c => c.split(' ')[0]))].join(', ')
    const message = `ledger: ${ops}\n\n${changes.join('\n')}\n`
    const identity: Array<[string, string]> = [
      ['user.name', GITHUB_ACTIONS_IDENTITY.name],
      ['user.email', GITHUB_ACTIONS_IDENTITY.email]
    ]
    const out = await gitBytes(
      this.repo.dir,
      ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-'],
      {
        env: hermeticGitEnvironment(identity),
        input: message
      }
    )
    return out.toString('utf8').trim()
  }

  /** Pushes `commit` to the ref if it is still at `expected`: pushed, lost (the ref moved), or failed. */
  private async push(
    commit: string,
    expected: string | null
  ): Promise<'pushed' | 'lost' | { failed: string }> {
    const timing = this.timing
    const result: PushResult = await pushWithRetry(
      this.repo.dir,
      {
        branch: this.ref,
        target: this.ref,
        ref: commit,
        leaseSha: expected,
        token: this.options.token,
        serverUrl: this.options.serverUrl,
        repository: this.options.repository,
        stallSeconds: timing.pushStallSeconds,
        ...(this.options.log ? { log: this.options.log } : {})
      },
      // A refusal that may be a landing is told apart here, by the history (landed), not by pushing again.
      { attempts: timing.attempts, waitMs: attempt => backoffMs(timing, attempt), lookAfterRefusal: false }
    )
    if (result.pushed) return 'pushed'
    // The ref moved: another run's write, or this one's landing unanswered (the history tells which).
    if (maybeLanded(result)) return 'lost'
    const kind = result.error?.kind
    if (kind === PUSH_FAILURE.permissionDenied)
      throw new LedgerError(
        `${this.where} cannot be written: the token may not push to ${this.options.repository}. Give the job that keeps the ledger \`permissions: contents: write\` (a PAT or App token needs "Contents: read and write").`
      )
    if (kind === PUSH_FAILURE.unknown && TRANSIENT_PUSH_ERRORS.test(result.output))
      return {
        failed: `${firstLine(result.error?.detail || result.output)} (tried ${timing.attempts} times)`
      }
    throw new LedgerError(
      `${this.where} cannot be written: ${result.error?.message ?? firstLine(result.output)}`
    )
  }

  /** Whether `commit` is in the history of `tip`: an earlier try landed without its answer. */
  private async landed(commit: string, tip: string): Promise<boolean> {
    if (commit === tip) return true
    const result = await this.repo.exec(['merge-base', '--is-ancestor', commit, tip], { probe: true })
    return result.exitCode === 0
  }

  async close(): Promise<void> {
    await rm(this.folder, { recursive: true, force: true })
  }
}

/**
 * ledger.json from `sha`, strictly: the commit's tree is that one file and nothing else. A malformed ledger is
 * a LedgerError naming the last commit in its history that reads well, to put back.
 */
export async function readLedgerCommit(
  repo: GitRepo,
  sha: string,
  at: { ref: string; repository: string }
): Promise<Ledger> {
  const problem = await problemAt(repo, sha)
  if (typeof problem !== 'string') return problem.ledger
  const good = await lastGoodCommit(repo, sha)
  const restart = `delete the ref to start again empty (git push origin :${at.ref})`
  const fix = good
    ? `put back the last good commit (git push --force origin ${good.slice(0, 12)}:${at.ref}) or ${restart}`
    : restart
  throw new LedgerError(
    `The budget ledger ${at.ref} on ${at.repository} is malformed at ${sha.slice(0, 7)} (${problem}): no agent runs until it is fixed; ${fix}.`
  )
}

async function problemAt(repo: GitRepo, sha: string): Promise<{ ledger: Ledger } | string> {
  const listing = await repo.exec(['ls-tree', '-l', '-z', '--end-of-options', sha], { probe: true })
  if (listing.exitCode !== 0) return 'it is not a commit'
  const entries = listing.stdout.split('\0').filter(Boolean)
  const m = entries.length === 1 ? /^100644 blob ([0-9a-f]+)\s+(\d+)\t(.*)$/s.exec(entries[0]) : null
  if (!m || m[3] !== LEDGER_FILE) return `its tree must hold ${LEDGER_FILE} alone`
  if (Number(m[2]) > MAX_LEDGER_BYTES) return `${LEDGER_FILE} is over ${MAX_LEDGER_BYTES / 1024} KB`
  const text = (await repo.bytes(['cat-file', 'blob', m[1]])).toString('utf8')
  try {
    return { ledger: parseLedger(text) }
  } catch (error) {
    if (error instanceof LedgerFormatError) return error.message
    throw error
  }
}

/** The newest commit before `sha` (first parents, at most 50 back) whose ledger reads well. */
async function lastGoodCommit(repo: GitRepo, sha: string): Promise<string | undefined> {
  const list = await repo.exec(['rev-list', '--first-parent', '--max-count=50', '--end-of-options', sha], {
    probe: true
  })
  for (const commit of list.stdout.split('\n').filter(Boolean).slice(1))
    if (typeof (await problemAt(repo, commit)) !== 'string') return commit
  return undefined
}

/** git's reason: its first fatal: or error: line, else its first line. */
function firstLine(text: string): string {
  const lines = text
    .split('\n')
    .map(l => l.trim())
    .filter(Boolean)
  const line = lines.find(l => /^(fatal|error):/.test(l)) ?? lines[0] ?? 'git gave no reason'
  return line.replace(/^(fatal|error):\s*/, '')
}
