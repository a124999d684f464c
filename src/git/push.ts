// Pushes the loop's branch with the action's token. The push runs from a scratch git directory that borrows
// the work tree's objects (alternates): whatever the agent wrote into .git/config or .git/hooks (a pre-push
// hook, a remote URL pointing elsewhere, an insteadOf rewrite, a proxy) plays no part, and the token goes
// only to the GitHub server, for this one command.
import { mkdtemp, copyFile, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { authConfig, repositoryUrl, type GitAuth } from './auth.js'
import { runGit } from './git.js'
import { hermeticGitEnvironment } from '../security/index.js'
import { GitRepo } from './repo.js'

/** Branches under this prefix belong to the action: it may replace them (with a lease). */
export const OWNED_BRANCH_PREFIX = 'ralph/'

/** Known reasons a push fails, each with the fix in `PUSH_FAILURE_FIXES`. */
export const PUSH_FAILURE = {
  /** A change under .github/workflows/ pushed with a token lacking the `workflows` permission. */
  workflowsPermission: 'workflows_permission',
  /** Branch protection or a ruleset refused the update. */
  protectedBranch: 'protected_branch',
  /** The remote branch has commits this run does not have (a plain push). */
  nonFastForward: 'non_fast_forward',
  /** The remote branch moved since the run started (a `--force-with-lease` push). */
  staleLease: 'stale_lease',
  /** The token was refused: missing, invalid or expired. */
  authFailed: 'auth_failed',
  /** The token is valid but may not write to the repository. */
  permissionDenied: 'permission_denied',
  unknown: 'unknown'
} as const

export type PushFailureKind = (typeof PUSH_FAILURE)[keyof typeof PUSH_FAILURE]

/** GitHub's own words, as they appear in git's output (matched as substrings or patterns). */
export const GITHUB_PUSH_ERRORS = {
  workflows:
    /refusing to allow an? (GitHub App|OAuth App|Personal Access Token) to create or update workflow `([^`]+)` without `(workflows?)` (permission|scope)/,
  protectedBranch:
    /GH006: Protected branch update failed|protected branch hook declined|GH013: Repository rule violations found|push declined due to repository rule violations/,
  staleLease: /\(stale info\)|\[rejected\] \(stale info\)/,
  nonFastForward: /\((non-fast-forward|fetch first)\)|Updates were rejected because/,
  permissionDenied:
    /Permission to \S+ denied to|Write access to repository not granted|The requested URL returned error: 403/,
  authFailed:
    /Authentication failed for|Invalid username or (password|token)|could not read (Username|Password) for|The requested URL returned error: 401/
} as const

export interface PushFailure {
  kind: PushFailureKind
  /** What happened and how to fix it, for the log and the job summary. */
  message: string
  /** git's own lines that explain it (remote: lines and the rejected ref). */
  detail: string
  /** For `workflows_permission`: the workflow file GitHub named. */
  workflowFile?: string
}

export interface PushOptions {
  branch: string
  /** Its remote-tracking ref (`refs/remotes/<remote>/<branch>`) is updated after a successful push. */
  remote?: string
  token: string
  /** GITHUB_SERVER_URL. */
  serverUrl: string
  /** owner/repo (GITHUB_REPOSITORY): the push goes to `<serverUrl>/<repository>`, not to .git/config's URL. */
  repository: string
  /**
   * What the remote branch must still be for the push to replace it (`PreparedBranch.remoteSha`):
   * a sha, or null for "must not exist yet". Only honoured as `--force-with-lease` on a branch the action
   * owns (`ralph/…`, or one it is creating); anything else is a plain fast-forward push.
   */
  leaseSha?: string | null
  /** The local ref to push (default: the local branch `branch`, else HEAD). */
  ref?: string
  /**
   * A ref of the action's own outside branches (`refs/ralph/ledger`) to update instead of the branch:
   * `branch` then only names it in messages, the lease always applies, and no remote-tracking ref is kept.
   */
  target?: string
  /** A push moving less than a byte a second for this long is cut off, not left hanging (default 60). */
  stallSeconds?: number
  /**
   * Asks the server as the push would (its token, the lease) but sends nothing: no ref is made or moved. A push
   * that would go through answers `pushed: false` and no `error`.
   */
  dryRun?: boolean
  log?: (message: string) => void
}

export interface PushResult {
  pushed: boolean
  /** The commit pushed (or that would have been). */
  sha: string
  /** Whether the push replaced the remote branch's history (a lease push that was not a fast-forward). */
  forced: boolean
  error?: PushFailure
  /** git's output (stdout then stderr), safe to log: no credential is ever in it. */
  output: string
}

export async function pushBranch(workTree: string, options: PushOptions): Promise<PushResult> {
  const repo = new GitRepo(workTree)
  const log = options.log ?? (() => undefined)
  const remote = options.remote ?? 'origin'
  const { branch } = options
  const target = options.target ?? `refs/heads/${branch}`
  const sha =
    (await repo.commitOf(options.ref ?? `refs/heads/${branch}`)) ??
    (options.ref ? undefined : await repo.commitOf('HEAD'))
  if (!sha) throw new Error(`There is nothing to push: '${options.ref ?? branch}' names no commit.`)
  const url = repositoryUrl(options.serverUrl, options.repository)

  const owned =
    options.target !== undefined || branch.startsWith(OWNED_BRANCH_PREFIX) || options.leaseSha === null
  const lease = owned && options.leaseSha !== undefined ? options.leaseSha : undefined
  const args = ['push', '--porcelain', '--no-verify', '--no-recurse-submodules']
  if (lease !== undefined) args.push(`--force-with-lease=${target}:${lease ?? ''}`)
  else if (options.leaseSha && !owned)
    log(`'${branch}' is not a branch the action owns: pushing without force (a fast-forward only).`)
  if (options.dryRun) args.push('--dry-run')
  args.push('--end-of-options', url, `${sha}:${target}`)

  const scratch = await scratchGitDir(repo)
  try {
    const auth: GitAuth = { token: options.token, serverUrl: options.serverUrl }
    const result = await runGit(['--git-dir', scratch.gitDir, ...args], {
      cwd: scratch.gitDir,
      // Hermetic: no global config (its trace2 target, its insteadOf rewrites), no hooks, no secret but ours.
      env: hermeticGitEnvironment([
        ['core.hooksPath', scratch.hooks],
        // Belt and braces: no rewrite of our URL, wherever one might come from.
        [`url.${url}.insteadOf`, url],
        [`url.${url}.pushInsteadOf`, url],
        // A stalled transport is cut off, so the push can be tried again (remote-retry.ts).
        ['http.lowSpeedLimit', '1'],
        ['http.lowSpeedTime', String(options.stallSeconds ?? 60)],
        ...authConfig(auth)
      ])
    })
    const output = [result.stdout.trim(), result.stderr.trim()].filter(Boolean).join('\n')
    const status = porcelainStatus(result.stdout, target)
    if (result.exitCode === 0 && status !== '!' && options.dryRun) {
      log(`'${branch}' on ${options.repository} can be pushed (a dry run: nothing was sent).`)
      return { pushed: false, sha, forced: status === '+', output }
    }
    if (result.exitCode === 0 && status !== '!') {
      if (options.target === undefined)
        await repo.exec(['update-ref', `refs/remotes/${remote}/${branch}`, sha], { probe: true })
      const forced = status === '+'
      log(
        status === '='
          ? `'${branch}' on ${options.repository} is already at ${sha.slice(0, 7)}.`
          : `Pushed ${sha.slice(0, 7)} to '${branch}' on ${options.repository}${forced ? ' (replacing its previous history, with a lease)' : ''}.`
      )
      return { pushed: true, sha, forced, output }
    }
    const error = classifyPushFailure(output, { branch, repository: options.repository, lease })
    log(error.message)
    return { pushed: false, sha, forced: false, error, output }
  } finally {
    await rm(scratch.root, { recursive: true, force: true })
  }
}

/** Turns git's push output into a known failure with its fix. */
export function classifyPushFailure(
  output: string,
  context: { branch: string; repository: string; lease?: string | null | undefined }
): PushFailure {
  const { branch, repository } = context
  const detail = output
    .split('\n')
    .filter(line => /^(remote:|!|\s*!|error:|fatal:|hint:)/.test(line) && !/^remote:\s*$/.test(line))
    .join('\n')
  const workflow = GITHUB_PUSH_ERRORS.workflows.exec(output)
  if (workflow) {
    const [, actor, file, permission] = workflow
    return {
      kind: PUSH_FAILURE.workflowsPermission,
      workflowFile: file,
      detail,
      message:
        `GitHub refused the push because it changes the workflow file ${file}, and the token lacks the ` +
        `\`${permission}\` ${permission === 'workflows' ? 'permission' : 'scope'} (it acts as ${actor === 'GitHub App' ? 'a GitHub App — GITHUB_TOKEN can never have it' : `a ${actor}`}). ` +
        `Push with a fine-grained PAT or GitHub App token that has "Workflows: read and write" (a classic PAT needs the \`workflow\` scope), ` +
        `or keep the loop away from .github/workflows/. The change is kept as a patch with the run's record.`
    }
  }
  if (GITHUB_PUSH_ERRORS.protectedBranch.test(output)) {
    return {
      kind: PUSH_FAILURE.protectedBranch,
      detail,
      message:
        `GitHub refused the push to '${branch}': the branch is protected (a branch protection rule or ruleset). ` +
        `Let the loop push to a branch of its own (the default ralph/…) and merge through the pull request, ` +
        `or allow this token's actor to bypass the rule in Settings → Rules (or Branches).`
    }
  }
  if (GITHUB_PUSH_ERRORS.staleLease.test(output)) {
    return {
      kind: PUSH_FAILURE.staleLease,
      detail,
      message:
        `'${branch}' changed on ${repository} while the loop ran (it was expected at ${context.lease ? context.lease.slice(0, 7) : 'nothing: not to exist'}): ` +
        `the action does not overwrite commits it has not seen. Re-run to start again from the branch as it is now.`
    }
  }
  if (GITHUB_PUSH_ERRORS.nonFastForward.test(output)) {
    return {
      kind: PUSH_FAILURE.nonFastForward,
      detail,
      message:
        `'${branch}' on ${repository} has commits this run does not have (pushed while the loop ran), and the action ` +
        `force-pushes only onto branches it owns (${OWNED_BRANCH_PREFIX}…). Re-run to continue from the new tip.`
    }
  }
  if (GITHUB_PUSH_ERRORS.permissionDenied.test(output)) {
    return {
      kind: PUSH_FAILURE.permissionDenied,
      detail,
      message:
        `The token may not push to ${repository}. For GITHUB_TOKEN give the job \`permissions: contents: write\` ` +
        `(and check Settings → Actions → General → Workflow permissions); for a PAT or App token, grant it ` +
        `"Contents: read and write" on ${repository}.`
    }
  }
  if (GITHUB_PUSH_ERRORS.authFailed.test(output)) {
    return {
      kind: PUSH_FAILURE.authFailed,
      detail,
      message: `GitHub did not accept the token for ${repository} (missing, invalid or expired). Check the token given to the action.`
    }
  }
  return {
    kind: PUSH_FAILURE.unknown,
    detail,
    message: `The push of '${branch}' to ${repository} failed: ${detail || output || 'git gave no reason'}`
  }
}

/** The porcelain status flag of one ref (` ` fast-forward, `+` forced, `-` deleted, `*` new, `!` rejected, `=` up to date). */
function porcelainStatus(stdout: string, target: string): string | undefined {
  for (const line of stdout.split('\n')) {
    const [flag, refs] = line.split('\t')
    if (refs?.endsWith(`:${target}`)) return flag
  }
  return undefined
}

/**
 * A bare git directory with no config, hooks or templates of its own that sees the work tree's objects
 * (and its shallow boundary, so a shallow clone can push).
 */
async function scratchGitDir(repo: GitRepo): Promise<{ root: string; gitDir: string; hooks: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'ralph-push-'))
  try {
    const gitDir = path.join(root, 'git')
    const hooks = path.join(root, 'no-hooks')
    await mkdir(hooks)
    await repo.exec(
      ['init', '--quiet', '--bare', '--template=', `--object-format=${await repo.objectFormat()}`, gitDir],
      {
        env: { GIT_DIR: undefined, GIT_WORK_TREE: undefined }
      }
    )
    await mkdir(path.join(gitDir, 'objects', 'info'), { recursive: true })
    await writeFile(path.join(gitDir, 'objects', 'info', 'alternates'), `${await repo.gitPath('objects')}\n`)
    const shallow = await repo.gitPath('shallow')
    await copyFile(shallow, path.join(gitDir, 'shallow')).catch(() => undefined)
    return { root, gitDir, hooks }
  } catch (error) {
    await rm(root, { recursive: true, force: true })
    throw error
  }
}
