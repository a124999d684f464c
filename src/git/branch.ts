// The loop's branch: created fresh from the latest base (or continued from the remote), the way
// actions/checkout leaves a repository: possibly shallow (fetch-depth 1), possibly on a detached HEAD (a
// SHA, a pull request's merge commit), possibly behind a base that moved on since the job started.
import { authConfig, type GitAuth } from './auth.js'
import { GitError } from './git.js'
import { gitSaid, RemoteRetryingRepo, type RemoteRetry } from './remote-retry.js'
import { GitRepo, type ConfigEntries } from './repo.js'

export interface PrepareBranchOptions {
  /** The loop's branch, e.g. `ralph/issue-5`. */
  branch: string
  /** The branch the pull request will target; see `BaseSource` for where it comes from when not given. */
  base?: string
  remote?: string
  /** When the branch exists on the remote, check it out and go on from it instead of starting afresh. */
  continueExisting?: boolean
  /** Fetch with this token (for a private repository checked out with `persist-credentials: false`). */
  auth?: GitAuth
  /** Where GITHUB_REF and GITHUB_BASE_REF are read from (default process.env). */
  env?: NodeJS.ProcessEnv
  /** Decisions, in sentences ("Branch X does not exist on origin yet; …"). */
  log?: (message: string) => void
  /**
   * Nothing will be pushed (a local trial): without the remote, the branch starts from the local base
   * instead of failing on the fetch.
   */
  localOnly?: boolean
  /** Its fetches and ls-remotes are tried again when they fail in transit (default: one try). */
  retry?: RemoteRetry
  /** A fetch moving less than a byte a second this long is cut off, to be tried again (default 60). */
  stallSeconds?: number
}

/** Where the base came from: the input, the branch checked out, the pull request's base, GITHUB_REF, the remote's default. */
export type BaseSource = 'input' | 'checkout' | 'pull-request' | 'github-ref' | 'remote-default'

/** What was checked out: the branch (undefined when HEAD is detached) and its commit (undefined before any). */
interface CheckedOut {
  branch: string | undefined
  sha: string | undefined
}

export interface PreparedBranch {
  branch: string
  base: string
  baseSource: BaseSource
  /**
   * What the branch's change is measured from: the base tip it starts from (fresh), or the fork point of the
   * continued branch and the base. `hasDiff(workTree, baseSha)` false means no pull request.
   */
  baseSha: string
  /** HEAD when the loop starts: the base tip (fresh) or the remote branch's tip (continued). */
  startSha: string
  continued: boolean
  /**
   * The branch's commit on the remote when it was prepared, null when the remote had no such branch:
   * the `leaseSha` for pushBranch, so a push never overwrites commits this run has not seen.
   */
  remoteSha: string | null
  /** Whether the repository is shallow (after any deepening done here). */
  shallow: boolean
  /** What was checked out before, should a caller want to go back to it. */
  previous: CheckedOut
}

// Depths tried before --unshallow when a continued branch's fork point is not in a shallow clone.
const DEEPEN_STEPS = [50, 500]

/** Creates (or continues) the loop's branch and checks it out. Throws an Error that says what to fix. */
export async function prepareBranch(
  workTree: string,
  options: PrepareBranchOptions
): Promise<PreparedBranch> {
  const log = options.log ?? (() => undefined)
  const git = new RemoteRetryingRepo(workTree, {
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.stallSeconds !== undefined ? { stallSeconds: options.stallSeconds } : {}),
    log
  })
  const remote = options.remote ?? 'origin'
  const branch = await validBranchName(git, options.branch, 'branch')
  const config = options.auth ? authConfig(options.auth) : undefined

  const previous = { branch: await git.currentBranch(), sha: await git.commitOf('HEAD') }
  const { base, source } = await resolveBase(git, remote, previous.branch, options, config)
  await validBranchName(git, base, 'base')
  log(`The base is '${base}' (${describeSource(source, previous)}).`)
  if (base === branch) {
    throw new Error(
      `The loop's branch and the base are both '${base}': the loop needs a branch of its own to push and open a pull request from. Give a different branch.`
    )
  }

  const hasRemote = await git.exec(['config', '--get', `remote.${remote}.url`], { probe: true })
  if (hasRemote.exitCode !== 0) return startLocally(git, branch, base, source, previous, remote, options)

  let shallow = await git.isShallow()
  // The latest base, whatever the checkout had: a base that moved on since the job started is caught up here.
  const baseFetch = await git.fetchBranches(remote, [base], { ...(shallow ? { depth: 1 } : {}), config })
  if (baseFetch.exitCode !== 0) {
    if (/couldn't find remote ref/i.test(baseFetch.stderr))
      throw new Error(`The base branch '${base}' does not exist on the remote '${remote}'.`)
    throw new Error(
      `Could not fetch the base branch '${base}' from '${remote}': ${remoteSaid(baseFetch.stderr)}`
    )
  }
  const baseRef = `refs/remotes/${remote}/${base}`
  const baseTip = await git.commitOf(baseRef)
  if (!baseTip) throw new Error(`The base branch '${base}' was fetched but ${baseRef} names no commit.`)
  if (previous.sha && previous.sha !== baseTip && previous.branch === base)
    log(
      `'${base}' moved on since the checkout (${short(previous.sha)} → ${short(baseTip)}); starting from ${short(baseTip)}.`
    )

  const remoteSha = await git.remoteBranchSha(remote, branch, config).catch((error: unknown) => {
    if (!(error instanceof GitError)) throw error
    throw new Error(
      `Could not ask '${remote}' for the branch '${branch}': ${remoteSaid(error.result.stderr)}`
    )
  })
  if (options.continueExisting && remoteSha) {
    const branchRef = `refs/remotes/${remote}/${branch}`
    const fetched = await git.fetchBranches(remote, [branch], {
      ...(shallow ? { depth: DEEPEN_STEPS[0] } : {}),
      config
    })
    if (fetched.exitCode !== 0)
      throw new Error(
        `Could not fetch the branch '${branch}' from '${remote}': ${remoteSaid(fetched.stderr)}`
      )
    await switchTo(git, branch, branchRef)
    const forkPoint = await findForkPoint(git, remote, base, branch, shallow, config, log)
    shallow = await git.isShallow()
    log(
      `Continuing '${branch}' from ${remote} at ${short(remoteSha)} (forked from '${base}' at ${short(forkPoint)}).`
    )
    return {
      branch,
      base,
      baseSource: source,
      baseSha: forkPoint,
      startSha: await git.headSha(),
      continued: true,
      remoteSha,
      shallow,
      previous
    }
  }

  if (options.continueExisting)
    log(`'${branch}' does not exist on ${remote} yet; starting it from '${base}'.`)
  else if (remoteSha)
    log(
      `'${branch}' exists on ${remote} (${short(remoteSha)}); starting it afresh from '${base}' (it will be replaced on push).`
    )
  await switchTo(git, branch, baseRef)
  log(`Created '${branch}' from '${base}' at ${short(baseTip)}.`)
  return {
    branch,
    base,
    baseSource: source,
    baseSha: baseTip,
    startSha: baseTip,
    continued: false,
    remoteSha,
    shallow,
    previous
  }
}

async function resolveBase(
  git: GitRepo,
  remote: string,
  checkedOut: string | undefined,
  options: PrepareBranchOptions,
  config: ConfigEntries | undefined
): Promise<{ base: string; source: BaseSource }> {
  const env = options.env ?? process.env
  const given = options.base?.trim()
  if (given) return { base: given.replace(/^refs\/heads\//, ''), source: 'input' }
  if (checkedOut) return { base: checkedOut, source: 'checkout' }
  // Detached HEAD: a pull request's merge commit (its base is GITHUB_BASE_REF), or a SHA checked out.
  if (env.GITHUB_BASE_REF) return { base: env.GITHUB_BASE_REF, source: 'pull-request' }
  if (env.GITHUB_REF?.startsWith('refs/heads/'))
    return { base: env.GITHUB_REF.slice('refs/heads/'.length), source: 'github-ref' }
  const fallback = await git.remoteDefaultBranch(remote, config)
  if (fallback) return { base: fallback, source: 'remote-default' }
  throw new Error(
    `HEAD is detached and the base branch cannot be worked out (no GITHUB_BASE_REF, GITHUB_REF is '${env.GITHUB_REF ?? ''}', and ${remote} did not say its default branch): give the base branch.`
  )
}

function describeSource(source: BaseSource, previous: CheckedOut): string {
  switch (source) {
    case 'input':
      return 'given'
    case 'checkout':
      return 'the branch checked out'
    case 'pull-request':
      return `HEAD is detached at ${short(previous.sha)}; the pull request's base, GITHUB_BASE_REF`
    case 'github-ref':
      return `HEAD is detached at ${short(previous.sha)}; from GITHUB_REF`
    case 'remote-default':
      return `HEAD is detached at ${short(previous.sha)}; the remote's default branch`
  }
}

async function validBranchName(git: GitRepo, name: string, what: string): Promise<string> {
  const trimmed = name.trim()
  // Names reach git as arguments: refuse what could read as an option or hide in a log.
  const check = await git.exec(['check-ref-format', '--branch', trimmed], { probe: true })
  if (
    !trimmed ||
    trimmed.startsWith('-') ||
    [...trimmed].some(c => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) ||
    check.exitCode !== 0
  )
    throw new Error(`'${name}' is not a valid ${what} name.`)
  return trimmed
}

/** A repository without the remote: a local trial starts from the local base; anything else is told how. */
async function startLocally(
  git: GitRepo,
  branch: string,
  base: string,
  source: BaseSource,
  previous: CheckedOut,
  remote: string,
  options: PrepareBranchOptions
): Promise<PreparedBranch> {
  if (!options.localOnly)
    throw new Error(
      `This repository has no remote '${remote}' to push '${branch}' to: add one, or for a local trial set open-pr: false (and on-failure: none), which starts the branch from the local '${base}'.`
    )
  const baseTip = await git.commitOf(`refs/heads/${base}`)
  if (!baseTip)
    throw new Error(
      `There is no remote '${remote}' and no local branch '${base}' to start from: commit on '${base}' first, or give the base.`
    )
  await switchTo(git, branch, `refs/heads/${base}`)
  options.log?.(
    `There is no remote '${remote}': a local trial, so nothing will be pushed. Created '${branch}' from the local '${base}' at ${short(baseTip)}.`
  )
  return {
    branch,
    base,
    baseSource: source,
    baseSha: baseTip,
    startSha: baseTip,
    continued: false,
    remoteSha: null,
    shallow: await git.isShallow(),
    previous
  }
}

async function switchTo(git: GitRepo, branch: string, start: string): Promise<void> {
  const result = await git.exec(['checkout', '--quiet', '--no-track', '-B', branch, start, '--'], {
    probe: true
  })
  if (result.exitCode === 0) return
  if (/would be overwritten/.test(result.stderr)) {
    throw new Error(
      `Cannot switch to '${branch}' (${start}): local changes in the work tree would be overwritten. The loop must start from a clean checkout.\n${result.stderr.trim()}`
    )
  }
  throw new GitError(['checkout', '-B', branch, start], result)
}

/**
 * The commit where a continued branch left the base. In a shallow clone the histories are deepened step by
 * step until it is found, and unshallowed only when that was not enough.
 */
async function findForkPoint(
  git: GitRepo,
  remote: string,
  base: string,
  branch: string,
  shallow: boolean,
  config: ConfigEntries | undefined,
  log: (message: string) => void
): Promise<string> {
  const baseRef = `refs/remotes/${remote}/${base}`
  const branchRef = `refs/remotes/${remote}/${branch}`
  let found = await git.mergeBase(baseRef, branchRef)
  if (found || !shallow) {
    if (found) return found
    throw new Error(
      `'${branch}' shares no history with '${base}': it cannot be continued as a pull request to it.`
    )
  }
  const attempts: Array<{ depth?: number; unshallow?: boolean }> = [
    ...DEEPEN_STEPS.map(depth => ({ depth })),
    { unshallow: true }
  ]
  for (const attempt of attempts) {
    if (attempt.unshallow && !(await git.isShallow())) break
    log(
      attempt.unshallow
        ? `The fork point of '${branch}' and '${base}' is not in this shallow clone; fetching their whole history.`
        : `Fetching '${base}' and '${branch}' to depth ${attempt.depth} to find where they forked.`
    )
    const result = await git.fetchBranches(remote, [base, branch], { ...attempt, config })
    if (result.exitCode !== 0)
      throw new Error(`Could not deepen the shallow clone: ${remoteSaid(result.stderr)}`)
    found = await git.mergeBase(baseRef, branchRef)
    if (found) return found
  }
  throw new Error(
    `'${branch}' shares no history with '${base}': it cannot be continued as a pull request to it.`
  )
}

/** What the remote said, in one line, with the fix when the token was refused. */
function remoteSaid(stderr: string): string {
  const said = gitSaid(stderr)
  return /could not read (Username|Password)|Authentication failed|returned error: 40[13]\b/.test(said)
    ? `${said} (the remote refused the token: check the credential actions/checkout persisted, or the token given to it, and that it may read the repository)`
    : said
}

function short(sha: string | undefined): string {
  return sha ? sha.slice(0, 7) : '(none)'
}

// --- commit identity ---

export interface IdentityOptions {
  name?: string
  email?: string
}

/** The identity the loop's commits are made with unless told otherwise. */
export const GITHUB_ACTIONS_IDENTITY = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com'
} as const

export interface CommitIdentity {
  name: string
  email: string
  /** Puts back the local user.name/user.email found before (or removes them when there were none). */
  restore(): Promise<void>
}

/** Sets the commit identity in the repository's local config, restorably. */
export async function configureIdentity(
  workTree: string,
  identity: IdentityOptions = {}
): Promise<CommitIdentity> {
  const git = new GitRepo(workTree)
  const name = identity.name?.trim() || GITHUB_ACTIONS_IDENTITY.name
  const email = identity.email?.trim() || GITHUB_ACTIONS_IDENTITY.email
  const before = { name: await git.localConfig('user.name'), email: await git.localConfig('user.email') }
  await git.exec(['config', '--local', '--replace-all', 'user.name', name])
  await git.exec(['config', '--local', '--replace-all', 'user.email', email])
  let restored = false
  return {
    name,
    email,
    async restore() {
      if (restored) return
      restored = true
      for (const [key, value] of [
        ['user.name', before.name],
        ['user.email', before.email]
      ] as const) {
        if (value === undefined) await git.exec(['config', '--local', '--unset-all', key], { probe: true })
        else await git.exec(['config', '--local', '--replace-all', key, value])
      }
    }
  }
}

// --- what the branch holds ---

/** Whether HEAD (or `head`) differs from `baseSha`: false means no diff, so no pull request. */
export function hasDiff(workTree: string, baseSha: string, head = 'HEAD'): Promise<boolean> {
  return new GitRepo(workTree).hasDiff(baseSha, head)
}

/** How many commits `head` has that `sinceSha` has not (0: this run committed nothing to push). */
export function commitsSince(workTree: string, sinceSha: string, head = 'HEAD'): Promise<number> {
  return new GitRepo(workTree).countCommits(sinceSha, head)
}

/** The paths that differ between `baseSha` and `head`. */
export function changedFiles(workTree: string, baseSha: string, head = 'HEAD'): Promise<string[]> {
  return new GitRepo(workTree).changedPaths(baseSha, head)
}

/** Changed paths under .github/workflows/: a push of them needs a token with the `workflows` permission. */
export async function changedWorkflowFiles(
  workTree: string,
  baseSha: string,
  head = 'HEAD'
): Promise<string[]> {
  return (await changedFiles(workTree, baseSha, head)).filter(p => p.startsWith('.github/workflows/'))
}

const MAX_PATCH_BYTES = 64 * 1024 * 1024

/**
 * The commits from `baseSha` to `head` as an mbox patch (`git format-patch --stdout --binary`), for when the
 * push is refused: `git am < patch` on `baseSha` re-creates them. Pass `prepared.baseSha` for the whole
 * branch, or `prepared.remoteSha ?? prepared.baseSha` for exactly what the remote lacks.
 */
export async function formatPatch(workTree: string, baseSha: string, head = 'HEAD'): Promise<string> {
  const result = await new GitRepo(workTree).exec(
    ['format-patch', '--stdout', '--binary', '--no-color', '--find-renames', `${baseSha}..${head}`, '--'],
    { maxStdoutBytes: MAX_PATCH_BYTES }
  )
  if (result.stdoutTruncated)
    throw new Error(`The patch from ${short(baseSha)} to ${head} is larger than ${MAX_PATCH_BYTES} bytes.`)
  return result.stdout
}
