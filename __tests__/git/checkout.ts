// A work tree as actions/checkout leaves it, made with the same git commands it runs (see its
// git-source-provider.ts and git-auth-helper.ts): `init`, `remote add`, the persisted credential, a fetch of
// one ref at the requested depth, then `checkout --force -B <branch>` (or a detached SHA).
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { randomUUID } from 'node:crypto'
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { tempDir } from '../git/temp-repo.js'
import { basicHeaderOf, type GitServer } from '../support/git-server.js'

const run = promisify(execFile)

export interface Checkout {
  /** GITHUB_WORKSPACE: the work tree. */
  dir: string
  /** RUNNER_TEMP. */
  runnerTemp: string
  /** v6+: the credentials file in RUNNER_TEMP. */
  credentialsFile?: string | undefined
  /** Local git only (sync): anything talking to the server must use gitAsync. */
  git(...args: string[]): string
  gitAsync(...args: string[]): Promise<string>
  write(file: string, content: string): void
  commit(message: string, files: Record<string, string>): string
  cleanup(): void
}

export interface CheckoutOptions {
  /** The token persisted (persist-credentials: true); undefined = persist-credentials: false. */
  token?: string
  /** actions/checkout v4/v5 (extraheader in .git/config) or v6+ (includeIf → RUNNER_TEMP file). */
  version?: 'v4' | 'v6'
  /** fetch-depth: 1 is checkout's default; 0 fetches everything. */
  depth?: number
  /** The branch to check out (default main). */
  branch?: string
  /** Check out this commit, detached (a SHA `ref:`, or a pull request's merge commit). */
  sha?: string
  /** Where the work tree and RUNNER_TEMP are made (default the system's temp folder). */
  base?: string
}

// Async: the git server runs in this process, so git talking to it must not block the event loop.
export async function checkout(server: GitServer, options: CheckoutOptions = {}): Promise<Checkout> {
  const dir = tempDir('ralph-workspace-', options.base)
  const runnerTemp = tempDir('ralph-runner-temp-', options.base)
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0' }
  for (const key of Object.keys(env))
    if (key.startsWith('GIT_') && key !== 'GIT_TERMINAL_PROMPT') delete env[key]
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8', env })
  const gitAsync = async (...args: string[]) =>
    (await run('git', args, { cwd: dir, encoding: 'utf8', env })).stdout
  const origin = new URL(server.url).origin
  const depth = options.depth ?? 1
  const branch = options.branch ?? 'main'

  git('init', '--quiet')
  git('remote', 'add', 'origin', server.cloneUrl)
  let credentialsFile: string | undefined
  if (options.token) {
    const header = `AUTHORIZATION: ${basicHeaderOf(options.token)}`
    if ((options.version ?? 'v4') === 'v4') {
      git('config', '--local', `http.${origin}/.extraheader`, header)
    } else {
      credentialsFile = path.join(runnerTemp, `git-credentials-${randomUUID()}.config`)
      writeFileSync(credentialsFile, `[http "${origin}/"]\n\textraheader = ${header}\n`)
      chmodSync(credentialsFile, 0o600)
      const gitDir = path.join(dir, '.git')
      git('config', '--local', `includeIf.gitdir:${gitDir}.path`, credentialsFile)
      git('config', '--local', `includeIf.gitdir:${gitDir}/worktrees/*.path`, credentialsFile)
      const container = `/github/runner_temp/${path.basename(credentialsFile)}`
      git('config', '--local', 'includeIf.gitdir:/github/workspace/.git.path', container)
      git('config', '--local', 'includeIf.gitdir:/github/workspace/.git/worktrees/*.path', container)
    }
  }
  const depthArgs = depth > 0 ? [`--depth=${depth}`] : []
  if (options.sha) {
    await gitAsync(
      'fetch',
      '--no-tags',
      '--prune',
      '--no-recurse-submodules',
      ...depthArgs,
      'origin',
      options.sha
    )
    git('checkout', '--quiet', '--force', options.sha)
  } else {
    const refspec = `+refs/heads/${branch}:refs/remotes/origin/${branch}`
    await gitAsync(
      'fetch',
      '--no-tags',
      '--prune',
      '--no-recurse-submodules',
      ...depthArgs,
      'origin',
      refspec
    )
    git('checkout', '--quiet', '--force', '-B', branch, `refs/remotes/origin/${branch}`)
  }
  const write = (file: string, content: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    writeFileSync(path.join(dir, file), content)
  }
  return {
    dir,
    runnerTemp,
    credentialsFile,
    git,
    gitAsync,
    write,
    commit(message, files) {
      for (const [file, content] of Object.entries(files)) write(file, content)
      git('add', '-A')
      git('-c', 'user.name=Loop', '-c', 'user.email=loop@example.com', 'commit', '--quiet', '-m', message)
      return git('rev-parse', 'HEAD').trim()
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true })
      rmSync(runnerTemp, { recursive: true, force: true })
    }
  }
}
