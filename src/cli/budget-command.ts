// `ralph-action budget`: the repository's budget ledger (refs/ralph/ledger), fetched from a remote with the
// user's own git and printed: this UTC day and month, spend by ralph and by requester, the leases not settled.
// `ralph-action budget release LEASE --spent USD` settles a lease by hand (a run whose runner was lost),
// through the same store the action writes with, with a token from GITHUB_TOKEN or GH_TOKEN.
import {
  DEFAULT_LEDGER_REF,
  describeLimits,
  formatUsd,
  granted,
  LedgerError,
  LedgerStore,
  ledgerRefProblem,
  microsOf,
  parseBudgets,
  readLedgerCommit,
  settle,
  windowState,
  type BudgetLimits,
  type LeaseRecord,
  type Ledger,
  type Scope
} from '../ledger/index.js'
import { GitRepo, runGit } from '../git/index.js'
import { closeOption, parseArgs, UsageError, type OptionSpec } from './argv.js'
import type { CliIO } from './io.js'

export const BUDGET_OPTIONS: OptionSpec[] = [
  {
    key: 'ref',
    names: ['--ref'],
    kind: 'string',
    metavar: 'REF',
    help: `The ledger's ref (default ${DEFAULT_LEDGER_REF}).`
  },
  {
    key: 'remote',
    names: ['--remote'],
    kind: 'string',
    metavar: 'NAME',
    help: 'The remote to read it from (default origin).'
  },
  {
    key: 'noFetch',
    names: ['--no-fetch'],
    kind: 'flag',
    help: 'Read the ref as last fetched, without asking the remote.'
  },
  {
    key: 'budget',
    names: ['--budget'],
    kind: 'string',
    metavar: 'SPEC',
    help: 'Show what is left against this budget (like 20/day,300/month; default: the last one a run was given).'
  },
  {
    key: 'perRequester',
    names: ['--budget-per-requester'],
    kind: 'string',
    metavar: 'SPEC',
    help: 'The same, per requester.'
  },
  { key: 'json', names: ['--json'], kind: 'flag', help: 'Print ledger.json as it is.' },
  {
    key: 'spent',
    names: ['--spent'],
    kind: 'float',
    metavar: 'USD',
    help: "release: what the lease's run spent (its record's cost; 0 if none)."
  }
]

export async function budgetCommand(args: string[], io: CliIO): Promise<number> {
  const { options, rest } = parseArgs(args, BUDGET_OPTIONS)
  const unknown = rest.find(a => a.startsWith('-'))
  if (unknown) {
    const meant = closeOption(unknown, BUDGET_OPTIONS)
    throw new UsageError(`No such option '${unknown}'.${meant ? ` Did you mean '${meant}'?` : ''}`)
  }
  const ref = (options.ref as string | undefined) ?? DEFAULT_LEDGER_REF
  const problem = ledgerRefProblem(ref)
  if (problem) throw new UsageError(`Invalid value for '--ref': '${ref}': ${problem}.`)
  const remote = (options.remote as string | undefined) ?? 'origin'
  if (!/^[A-Za-z0-9_.-]+$/.test(remote))
    throw new UsageError(`Invalid value for '--remote': '${remote}' is not a remote's name.`)
  const [verb, ...more] = rest
  try {
    if (verb === 'release') {
      const [id, ...extra] = more
      if (id === undefined)
        throw new UsageError("Missing argument 'LEASE' (the lease's id, as `ralph-action budget` prints it).")
      if (extra.length > 0) throw new UsageError(`Got unexpected extra argument (${extra[0]}).`)
      if (options.spent === undefined)
        throw new UsageError(
          "Missing option '--spent': give what the lease's run spent (the cost in its record), or 0."
        )
      return await release(io, { ref, remote, id, spentUsd: options.spent as number })
    }
    if (verb !== undefined)
      throw new UsageError(
        `No such subcommand '${verb}' (budget prints the ledger; budget release LEASE settles one).`
      )
    if (options.spent !== undefined) throw new UsageError("Option '--spent' is for `budget release LEASE`.")
    const limits = parseBudgets({
      budget: options.budget as string | undefined,
      perRequester: options.perRequester as string | undefined
    })
    if ('problem' in limits) throw new UsageError(limits.problem.replace(/^Input '([^']+)'/, "Option '--$1'"))
    const given =
      options.budget !== undefined || options.perRequester !== undefined ? limits.limits : undefined
    const read = await readFromRemote(io, { ref, remote, fetch: options.noFetch !== true })
    if (!read) {
      io.stdout(
        `There is no budget ledger at ${ref} on ${remote}: no run with a budget has reserved from it yet.\n`
      )
      return 0
    }
    if (options.json === true) io.stdout(read.text)
    else
      io.stdout(
        renderLedger(read.ledger, { ref, where: read.where, sha: read.sha, limits: given, now: new Date() })
      )
    return 0
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error
    io.stderr(`Error: ${error.message}\n`)
    return 1
  }
}

interface Read {
  ledger: Ledger
  text: string
  sha: string
  where: string
}

/** Fetches the ref into the same ref of the local repository (as `git fetch origin REF:REF`), then reads it. */
async function readFromRemote(
  io: CliIO,
  o: { ref: string; remote: string; fetch: boolean }
): Promise<Read | undefined> {
  const url = await remoteUrl(io.cwd, o.remote)
  if (o.fetch) {
    // The user's own git (their credentials), as they would type it.
    const fetched = await runGit(
      ['fetch', '--quiet', '--no-tags', '--end-of-options', o.remote, `+${o.ref}:${o.ref}`],
      { cwd: io.cwd }
    )
    if (fetched.exitCode !== 0) {
      if (/couldn't find remote ref/i.test(fetched.stderr)) return undefined
      throw new LedgerError(
        `Could not fetch ${o.ref} from ${o.remote}: ${fetched.stderr.trim().split('\n')[0] || `git exited ${fetched.exitCode}`}`
      )
    }
  }
  const repo = new GitRepo(io.cwd)
  const sha = await repo.commitOf(o.ref)
  if (!sha) return undefined
  const at = { ref: o.ref, repository: repositoryOf(url) ?? o.remote }
  const ledger = await readLedgerCommit(repo, sha, at)
  const text = (await repo.bytes(['cat-file', 'blob', `${sha}:ledger.json`])).toString('utf8')
  return { ledger, text, sha, where: at.repository }
}

async function remoteUrl(cwd: string, remote: string): Promise<string> {
  const result = await runGit(['remote', 'get-url', '--end-of-options', remote], { cwd })
  if (result.exitCode !== 0)
    throw new LedgerError(
      /not a git repository/i.test(result.stderr)
        ? 'Run ralph-action budget inside a clone of the repository (it reads the ledger from its remote).'
        : `There is no remote '${remote}' here: give --remote NAME.`
    )
  return result.stdout.trim()
}

/** `owner/repo` and the server of a GitHub remote URL (https, http or ssh forms), or undefined. */
export function githubRemote(url: string): { serverUrl: string; repository: string } | undefined {
  const ssh = /^(?:ssh:\/\/)?[^@/]+@([^:/]+)[:/]([\w.-]+\/[\w.-]+?)(?:\.git)?\/?$/.exec(url)
  if (ssh) return { serverUrl: `https://${ssh[1]}`, repository: ssh[2] }
  try {
    const parsed = new URL(url)
    const m = /^\/([\w.-]+\/[\w.-]+?)(?:\.git)?\/?$/.exec(parsed.pathname)
    if (!m || !/^https?:$/.test(parsed.protocol)) return undefined
    return { serverUrl: parsed.origin, repository: m[1] }
  } catch {
    return undefined
  }
}

const repositoryOf = (url: string): string | undefined => githubRemote(url)?.repository

async function release(
  io: CliIO,
  o: { ref: string; remote: string; id: string; spentUsd: number }
): Promise<number> {
  if (!Number.isFinite(o.spentUsd) || o.spentUsd < 0)
    throw new UsageError(
      `Invalid value for '--spent': ${o.spentUsd} is not an amount of dollars of 0 or more.`
    )
  const url = await remoteUrl(io.cwd, o.remote)
  const github = githubRemote(url)
  if (!github)
    throw new LedgerError(
      `The remote '${o.remote}' (${url}) is not a GitHub repository's URL: give --remote NAME of one.`
    )
  const token = io.env.GITHUB_TOKEN || io.env.GH_TOKEN
  if (!token)
    throw new LedgerError(
      `Releasing a lease writes the ledger: set GITHUB_TOKEN or GH_TOKEN to a token that may push to ${github.repository} (contents: write), e.g. GH_TOKEN=$(gh auth token).`
    )
  const store = await LedgerStore.open({ ...github, token, ref: o.ref })
  try {
    const spent = microsOf(o.spentUsd, 'up')
    const applied = await store.apply((ledger, now) =>
      settle(ledger, { id: o.id, spent, source: 'hand' }, now)
    )
    const result = applied.result
    if ('already' in result) {
      io.stdout(
        `Lease ${o.id} was already settled at ${result.already.at} (${formatUsd(result.already.spent)} spent): nothing changed.\n`
      )
      return 0
    }
    if ('unknown' in result) {
      io.stderr(
        `Error: ${result.unknown[0].toUpperCase()}${result.unknown.slice(1)}: nothing changed. \`ralph-action budget\` lists the leases.\n`
      )
      return 1
    }
    io.stdout(
      `Released lease ${o.id} on ${github.repository}: ${formatUsd(result.settled)} spent of the ${formatUsd(result.granted)} it held; ${formatUsd(result.returned)} is back in the budget.\n`
    )
    return 0
  } finally {
    await store.close()
  }
}

const hhmm = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`

/** The ledger in words: windows, spend by ralph and requester, the leases not settled. */
export function renderLedger(
  ledger: Ledger,
  o: { ref: string; where: string; sha: string; limits: BudgetLimits | undefined; now: Date }
): string {
  const lines: string[] = [`The budget ledger ${o.ref} of ${o.where}, at ${o.sha.slice(0, 7)}.`, '']
  const limits =
    o.limits ??
    (ledger.limits
      ? { repository: ledger.limits.repository, perRequester: ledger.limits.perRequester }
      : undefined)
  const repository: Scope = { kind: 'repository' }
  for (const kind of ['day', 'month'] as const) {
    const w = windowState(ledger, repository, kind, o.now, limits?.repository[kind])
    const title = kind === 'day' ? `Today (${w.key}, UTC)` : `This month (${w.key})`
    const held =
      w.held > 0
        ? `, ${formatUsd(w.held)} held by ${w.holders} unsettled run${w.holders === 1 ? '' : 's'}`
        : ''
    const left = w.limit !== undefined ? `; ${formatUsd(w.left ?? 0)} left of ${formatUsd(w.limit)}` : ''
    lines.push(`${title}: ${formatUsd(w.spent)} spent${held}${left}.`)
  }
  if (limits) {
    const given = [
      describeLimits(limits.repository) && `${describeLimits(limits.repository)} for the repository`,
      describeLimits(limits.perRequester) && `${describeLimits(limits.perRequester)} per requester`
    ].filter(Boolean)
    const whose = o.limits
      ? 'as given'
      : `as the last run was given it${ledger.limits ? ` (${hhmm(ledger.limits.at)})` : ''}`
    lines.push(`The budget, ${whose}: ${given.join('; ') || 'none'}.`)
  } else lines.push('No budget known: give --budget to see what is left.')
  const month = ledger.months[o.now.toISOString().slice(0, 7)]
  const by = (map: Record<string, number> | undefined): string =>
    Object.entries(map ?? {})
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([name, micros]) => `${name} ${formatUsd(micros)}`)
      .join(', ') || 'none'
  lines.push(
    '',
    `Spent this month by ralph: ${by(month?.byRalph)}.`,
    `Spent this month by requester: ${by(month?.byRequester)}.`
  )
  const describe = (l: LeaseRecord): string => {
    const who = [l.ralph, l.requester && `requested by ${l.requester}`].filter(Boolean).join(', ')
    return `  ${l.id}  run ${l.run.id} attempt ${l.run.attempt}${l.run.job ? ` (${l.run.job})` : ''}${who ? `, ${who}` : ''}: ${formatUsd(granted(l))} held since ${hhmm(l.opened)}, deadline ${hhmm(l.deadline)}`
  }
  const open = ledger.leases.filter(l => l.state === 'open')
  const expired = ledger.leases.filter(l => l.state === 'expired')
  lines.push(
    '',
    open.length ? 'Open leases (runs in progress, counted in full until they settle):' : 'No open lease.'
  )
  lines.push(...open.map(describe))
  if (expired.length) {
    lines.push(
      '',
      'Expired leases (their runs never settled: counted in full; release one with `ralph-action budget release LEASE --spent USD`):',
      ...expired.map(describe)
    )
  }
  return `${lines.join('\n')}\n`
}
