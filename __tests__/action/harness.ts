// Runs `node dist/index.js` the way the Actions runner runs a node24 action with a post step: INPUT_* for
// every input (action.yml's defaults filled in, hyphens kept), the GITHUB_* variables, an event payload
// file, GITHUB_OUTPUT/GITHUB_STATE/GITHUB_STEP_SUMMARY files, STATE_* from main's GITHUB_STATE passed to
// post. Around it: a work tree checked out from a bare git remote as actions/checkout leaves it (persisted
// credential included), the OpenAPI-checked GitHub stand-in, and the artifact service in front of azurite.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse as parseYaml } from 'yaml'
import { startArtifactService, type ArtifactService } from '../support/artifacts/index.js'
import { startGitHubApi, type GitHubApi, type GitHubApiOptions } from '../support/github-api/index.js'
import { TEST_AGENT_USER } from '../support/agent-user.js'
import { copyForAnyUser } from '../support/any-user.js'
import { closest } from '../../src/text/closest.js'
import { startGitServer, type GitServer } from '../support/git-server.js'
import { writeFiles } from '../support/files.js'

/** The nearest folder above this file holding action.yml (also when `npm run local` compiled it elsewhere). */
function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!existsSync(path.join(dir, 'action.yml')) && path.dirname(dir) !== dir) dir = path.dirname(dir)
  return dir
}

export const REPO_ROOT = repoRoot()
export const BUNDLE = path.join(REPO_ROOT, 'dist', 'index.js')

/**
 * The Node that starts dist/index.js: the runtime action.yml names (runs.using: node24), which `npm run test:e2e`
 * fetches into .tool-cache/node24 (scripts/action-node.mjs); RALPH_ACTION_NODE names another. Without it the
 * action runs on the test's own Node, which CI does not allow (__tests__/action/runtime.e2e.test.ts).
 */
export const ACTION_NODE =
  process.env.RALPH_ACTION_NODE ||
  [path.join(REPO_ROOT, '.tool-cache', 'node24', 'bin', 'node')].find(existsSync) ||
  process.execPath
/** What `${{ github.token }}` is in these runs: the stand-in answers it as github-actions[bot]. */
export const GITHUB_TOKEN = 'ghs_StandInJobToken0123456789abcdefABCD'
/**
 * The job token of a job with `permissions: contents: read` (two-job mode's agent job): github-actions[bot]
 * too, but the API stand-in answers each of its writes 403 and the git server refuses its pushes 403. Check
 * it out with `createProject(files, { token: AGENT_JOB_TOKEN })` or `checkoutAgain(p, { token: … })`.
 */
export const AGENT_JOB_TOKEN = 'ghs_StandInAgentJobToken0123456789abcdef'
export const OWNER = 'octo-org'
export const REPO = 'octo-repo'

// ---------------------------------------------------------------------------------------------------
// action.yml

interface ActionYaml {
  inputs: Record<string, { default?: string; required?: boolean }>
  outputs: Record<string, { description: string }>
  runs: { using: string; main: string; post?: string; 'post-if'?: string }
}

export function actionYaml(): ActionYaml {
  return parseYaml(readFileSync(path.join(REPO_ROOT, 'action.yml'), 'utf8')) as ActionYaml
}

/** The first of `names` that action.yml does not declare, as one line with the input meant; else undefined. */
export function undeclaredInput(names: string[]): string | undefined {
  const declared = Object.keys(actionYaml().inputs)
  const name = names.find(n => !declared.includes(n))
  if (name === undefined) return undefined
  // INPUT_MAX_ITERATIONS names 'max iterations': the runner keeps an input's hyphens in its variable.
  const hyphened = name.replace(/[ _]/g, '-')
  const meant = closest(hyphened, declared)
  const variable = hyphened !== name && meant ? `; as a variable, INPUT_${meant.toUpperCase()}` : ''
  return `input '${name}' is not one action.yml declares${meant ? ` (did you mean ${meant}${variable}?)` : ''}`
}

/** INPUT_* as the runner sets them: every declared input, defaults filled in and expressions evaluated. */
export function inputEnv(given: Record<string, string>, token = GITHUB_TOKEN): Record<string, string> {
  const yaml = actionYaml()
  const undeclared = undeclaredInput(Object.keys(given))
  if (undeclared) throw new Error(`the test passes ${undeclared}`)
  const env: Record<string, string> = {}
  for (const [name, spec] of Object.entries(yaml.inputs)) {
    let value = given[name] ?? spec.default ?? ''
    value = String(value).replace(/\$\{\{\s*github\.token\s*\}\}/g, token)
    if (/\$\{\{/.test(value))
      throw new Error(`the harness cannot evaluate the default of '${name}': ${value}`)
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value
  }
  return env
}

// ---------------------------------------------------------------------------------------------------
// The stand-ins

export interface Stand {
  artifacts: ArtifactService
  close(): Promise<void>
}

/** The artifact service (and azurite): slow to start, so one per test file. */
export async function startStand(): Promise<Stand> {
  const artifacts = await startArtifactService()
  return { artifacts, close: () => artifacts.close() }
}

// ---------------------------------------------------------------------------------------------------
// The project: a bare remote and a checkout of it

export type Files = Record<string, string | { content: string; mode: number }>
export { writeFiles }

export interface CheckoutOptions {
  /** fetch-depth: 1 (checkout's default) or 0 for the whole history. */
  depth?: number
  /** Check out main's tip as a detached HEAD, as `ref: <sha>` does. */
  detached?: boolean
  /** v6 keeps the credential in a file under RUNNER_TEMP, included from .git/config; v5 writes it there. */
  credentials?: 'v6' | 'v5'
  /** The job's token (`${{ github.token }}`): checkout persists it, and runAction uses it. Default GITHUB_TOKEN. */
  token?: string
}

export interface Project {
  dir: string
  /** The bare repository standing for github.com's copy. */
  remote: string
  /** GITHUB_WORKSPACE: the checked-out work tree. */
  workspace: string
  runnerTemp: string
  home: string
  /** The job's token: the checkout's persisted credential, and `${{ github.token }}` in runAction. */
  token: string
  /** The commit checked out (GITHUB_SHA of the run: a later job's checkout makes the same one). */
  sha: string
  /** git in the work tree. */
  git(...args: string[]): string
  /** git in the bare remote. */
  remoteGit(...args: string[]): string
  /** Commits files straight onto a branch of the remote (someone else pushing). */
  pushToRemote(branch: string, files: Files, message: string): string
  api: GitHubApi
  /** GITHUB_SERVER_URL: smart HTTP git in front of `remote`. */
  gitServer: GitServer
  /** Removes the project; the first checkout's also stops the API stand-in and the git server. */
  cleanup(): Promise<void>
}

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  // The test's own git may look into a work tree handed to another user (the sudo path's job user).
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'safe.directory',
  GIT_CONFIG_VALUE_0: '*',
  GIT_AUTHOR_NAME: 'Octo Cat',
  GIT_AUTHOR_EMAIL: 'octocat@example.com',
  GIT_COMMITTER_NAME: 'Octo Cat',
  GIT_COMMITTER_EMAIL: 'octocat@example.com'
}

const execFileAsync = promisify(execFile)

/** git without blocking the event loop (for commands served by the in-process git server). */
export async function gitAsync(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, env, encoding: 'utf8' })
  return stdout
}

/** A repository whose `main` holds `history` commits (the last one with `files`), checked out as checkout does. */
export async function createProject(
  files: Files,
  options: CheckoutOptions & { history?: number; api?: GitHubApiOptions } = {}
): Promise<Project> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'ralph-action-e2e-')))
  const remote = path.join(dir, 'remote.git')
  const seed = path.join(dir, 'seed')
  mkdirSync(seed, { recursive: true })
  const env = { ...process.env, ...GIT_ENV, HOME: path.join(dir, 'home') }
  const gitIn =
    (cwd: string) =>
    (...args: string[]) =>
      execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

  gitIn(dir)('init', '--quiet', '--bare', '--initial-branch=main', remote)
  const seedGit = gitIn(seed)
  seedGit('init', '--quiet', '--initial-branch=main')
  const history = options.history ?? 1
  for (let i = 1; i < history; i++) {
    writeFiles(seed, { 'HISTORY.md': `commit ${i}\n` })
    seedGit('add', '-A')
    seedGit('commit', '--quiet', '-m', `history ${i}`)
  }
  writeFiles(seed, files)
  seedGit('add', '-A')
  seedGit('commit', '--quiet', '-m', 'The project')
  seedGit('push', '--quiet', remote, 'main')

  const gitServer = await startGitServer({ owner: OWNER, repo: REPO, bareDir: remote })
  gitServer.tokens.set(GITHUB_TOKEN, 'write')
  gitServer.tokens.set(AGENT_JOB_TOKEN, 'read')
  const sha = gitIn(remote)('rev-parse', 'refs/heads/main').trim()
  const checkout = await checkOut(dir, gitServer, { ...options, sha })

  const api = await startGitHubApi({
    owner: OWNER,
    repo: REPO,
    gitDir: remote,
    serverUrl: gitServer.url,
    ...options.api
  })
  api.state.readOnlyTokens.add(AGENT_JOB_TOKEN)
  const pushToRemote = (branch: string, more: Files, message: string): string => {
    const other = path.join(dir, `other-${Date.now()}`)
    gitIn(dir)('clone', '--quiet', '--branch', branch, remote, other)
    writeFiles(other, more)
    gitIn(other)('add', '-A')
    gitIn(other)('commit', '--quiet', '-m', message)
    gitIn(other)('push', '--quiet', 'origin', branch)
    return gitIn(other)('rev-parse', 'HEAD').trim()
  }
  return {
    dir,
    remote,
    ...checkout,
    remoteGit: gitIn(remote),
    pushToRemote,
    api,
    gitServer,
    cleanup: async () => {
      await api.close()
      await gitServer.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/**
 * A later job of the run (`needs:`) on a new runner: actions/checkout of the same remote into a fresh workspace,
 * RUNNER_TEMP and HOME, with the job's own token; at `project.sha` (the run's GITHUB_SHA) unless `sha` says
 * otherwise. It shares the remote, the API stand-in and the git server; its cleanup removes only its folders.
 */
export async function checkoutAgain(
  project: Project,
  options: CheckoutOptions & { sha?: string } = {}
): Promise<Project> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'ralph-action-e2e-job-')))
  const checkout = await checkOut(dir, project.gitServer, { ...options, sha: options.sha ?? project.sha })
  return {
    ...project,
    dir,
    ...checkout,
    cleanup: async () => rmSync(dir, { recursive: true, force: true })
  }
}

/** actions/checkout on the runner whose folders are under `dir`: init, remote, persisted credential, fetch, checkout. */
async function checkOut(
  dir: string,
  gitServer: GitServer,
  options: CheckoutOptions & { sha: string }
): Promise<Pick<Project, 'workspace' | 'runnerTemp' | 'home' | 'token' | 'sha' | 'git'>> {
  const workspace = path.join(dir, 'runner', 'work', REPO, REPO)
  const runnerTemp = path.join(dir, 'runner', 'temp')
  const home = path.join(dir, 'home')
  for (const d of [workspace, runnerTemp, home]) mkdirSync(d, { recursive: true })
  const env = { ...process.env, ...GIT_ENV, HOME: home }
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: workspace, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  const token = options.token ?? GITHUB_TOKEN
  const { sha } = options

  git('init', '--quiet')
  git('remote', 'add', 'origin', `${gitServer.url}/${OWNER}/${REPO}`)
  const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`
  const key = `http.${gitServer.url}/.extraheader`
  if ((options.credentials ?? 'v6') === 'v6') {
    const file = path.join(runnerTemp, 'git-credentials-7f3c1a52-9b1e-4c8e-a0f3-2d6a1b9c4e77.config')
    execFileSync('git', ['config', '--file', file, key, header], { env })
    git('config', `includeIf.gitdir:${workspace}/.git.path`, file)
    git('config', `includeIf.gitdir:${workspace}/.git/worktrees/*.path`, file)
  } else {
    git('config', '--local', key, header)
  }
  const depth = options.depth ?? 1
  // Asynchronously: the git server answering this fetch runs in this process.
  await gitAsync(
    workspace,
    env,
    '-c',
    'protocol.version=2',
    'fetch',
    '--no-tags',
    '--prune',
    '--no-recurse-submodules',
    ...(depth > 0 ? [`--depth=${depth}`] : []),
    'origin',
    options.detached ? sha : `+${sha}:refs/remotes/origin/main`
  )
  if (options.detached) git('checkout', '--quiet', '--detach', sha)
  else git('checkout', '--quiet', '--force', '-B', 'main', 'refs/remotes/origin/main')
  return { workspace, runnerTemp, home, token, sha, git }
}

// ---------------------------------------------------------------------------------------------------
// Running the steps

/** A workflow command from the log, honouring ::stop-commands:: as the runner does. */
export interface WorkflowCommand {
  command: string
  properties: Record<string, string>
  message: string
}

const unescapeData = (s: string): string =>
  s.replace(/%0D/gi, '\r').replace(/%0A/gi, '\n').replace(/%25/g, '%')
const unescapeProperty = (s: string): string => unescapeData(s).replace(/%3A/gi, ':').replace(/%2C/gi, ',')

export function parseCommands(stdout: string): WorkflowCommand[] {
  const commands: WorkflowCommand[] = []
  let stopToken: string | undefined
  for (const line of stdout.split(/\r?\n/)) {
    if (stopToken !== undefined) {
      if (line === `::${stopToken}::`) stopToken = undefined
      continue
    }
    const m = /^::([A-Za-z-]+)(?: ([^:]*))?::(.*)$/.exec(line)
    if (!m) continue
    const properties: Record<string, string> = {}
    for (const pair of (m[2] ?? '').split(',').filter(Boolean)) {
      const eq = pair.indexOf('=')
      if (eq > 0) properties[pair.slice(0, eq)] = unescapeProperty(pair.slice(eq + 1))
    }
    const command = { command: m[1], properties, message: unescapeData(m[3]) }
    if (command.command === 'stop-commands') stopToken = command.message
    commands.push(command)
  }
  return commands
}

/** GITHUB_OUTPUT / GITHUB_STATE files: `name<<DELIM\nvalue\nDELIM` (and the old `name=value`). */
export function parseFileCommands(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line)
    if (heredoc) {
      const value: string[] = []
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) value.push(lines[i])
      out[heredoc[1]] = value.join('\n')
    } else if (line.includes('=')) {
      out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1)
    }
  }
  return out
}

export interface StepResult {
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  durationMs: number
  commands: WorkflowCommand[]
  /** `::error` commands. */
  errors: WorkflowCommand[]
  outputs: Record<string, string>
  state: Record<string, string>
  summary: string
}

export interface RunOptions {
  inputs?: Record<string, string>
  eventName?: string
  /** The webhook payload; default a workflow_dispatch payload from the stand-in. */
  event?: Record<string, unknown>
  /** Added to (or, with undefined, removed from) the job's environment. */
  env?: Record<string, string | undefined>
  /** GITHUB_RUN_ID: give a later job of the run its first job's (and attempt); default a new run. */
  runId?: string
  runAttempt?: string
  /**
   * GITHUB_JOB (default `ralph`). Given, the step runs in a job of its own: ACTIONS_RUNTIME_TOKEN for the job
   * backend id `jobBackendId(job)`. Artifacts are the run's, so it sees those its run's other jobs uploaded.
   */
  job?: string
  /** `${{ github.token }}` (github-token's default): default the checkout's, `project.token`. */
  token?: string
  /** Called once main has started, to signal it (cancellation tests). */
  duringMain?: (child: ChildProcess) => Promise<void> | void
  /** Skip the post step. */
  noPost?: boolean
  /** Run both steps as this user (a job user with passwordless sudo); the project must be theirs. */
  as?: { uid: number; gid: number }
  /** Show each step's log as it runs (`npm run local`). */
  echo?: boolean
  /** argv each step's `node dist/index.js` is appended to, e.g. a network namespace of its own (egress tests). */
  wrap?: string[]
}

export interface ActionRun {
  main: StepResult
  post?: StepResult | undefined
  /** What main's GITHUB_ENV and GITHUB_PATH gave the later steps (post included), as the runner applies them. */
  laterSteps: { env: Record<string, string>; path: string[] }
  /** The job summary: main's then post's. */
  summary: string
  outputs: Record<string, string>
  /** What every step of the job sees in GITHUB_STATE / STATE_*. */
  stepDir: string
}

let runCounter = 0
/** GITHUB_RUN_NUMBER by GITHUB_RUN_ID: every job of a run has the same. */
const runNumbers = new Map<string, string>()

/** The workflow_job_run_backend_id of the job named `job` in the artifact service's tokens and records. */
export function jobBackendId(job: string): string {
  return `c0ffee00-0000-4000-8000-${createHash('sha256').update(job).digest('hex').slice(0, 12)}`
}

function spawnStep(
  env: Record<string, string>,
  cwd: string,
  during?: (child: ChildProcess) => Promise<void> | void,
  as?: RunOptions['as'],
  echo = false,
  wrap: string[] = []
): Promise<{
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  durationMs: number
}> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    // Another user cannot reach into a private checkout: it runs copies of the bundle and of Node 24.
    const node = as
      ? path.join(
          copyForAnyUser(path.dirname(ACTION_NODE), name => name === 'node'),
          'node'
        )
      : ACTION_NODE
    const bundle = as
      ? path.join(
          copyForAnyUser(path.dirname(BUNDLE), name => /\.(js|json)$/.test(name)),
          'index.js'
        )
      : BUNDLE
    const [program, ...args] = [...wrap, node, bundle]
    const child = spawn(program, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], ...as })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => {
      out.push(chunk)
      if (echo) process.stdout.write(chunk)
    })
    child.stderr.on('data', (chunk: Buffer) => {
      err.push(chunk)
      if (echo) process.stderr.write(chunk)
    })
    child.on('error', reject)
    child.on('close', (exitCode, signal) =>
      resolve({
        exitCode,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        durationMs: Date.now() - started
      })
    )
    if (during) void Promise.resolve(during(child)).catch(reject)
  })
}

/** Runs main and then post, as a job step with `uses: ./` would. */
export async function runAction(
  project: Project,
  stand: Stand,
  options: RunOptions = {}
): Promise<ActionRun> {
  const n = ++runCounter
  const stepDir = path.join(project.runnerTemp, `_runner_file_commands_${n}`)
  mkdirSync(stepDir, { recursive: true })
  const files = {
    GITHUB_OUTPUT: path.join(stepDir, 'set_output'),
    GITHUB_STATE: path.join(stepDir, 'save_state'),
    GITHUB_ENV: path.join(stepDir, 'set_env'),
    GITHUB_PATH: path.join(stepDir, 'add_path'),
    GITHUB_STEP_SUMMARY: path.join(stepDir, 'step_summary_main')
  }
  for (const file of Object.values(files)) writeFileSync(file, '')
  if (options.as)
    for (const file of [stepDir, ...Object.values(files)]) chownSync(file, options.as.uid, options.as.gid)
  const eventName = options.eventName ?? 'workflow_dispatch'
  const eventFile = path.join(stepDir, 'event.json')
  writeFileSync(eventFile, JSON.stringify(options.event ?? project.api.events.workflowDispatch()))
  const runId = options.runId ?? String(7_000_000_000 + n * 1000 + Math.floor(Math.random() * 1000))
  if (!runNumbers.has(runId)) runNumbers.set(runId, String(n))
  const sha = project.git('rev-parse', 'HEAD').trim()
  const job: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: project.home,
    LANG: 'C.UTF-8',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GIT_CONFIG_NOSYSTEM: '1',
    RUNNER_OS: 'Linux',
    RUNNER_ARCH: 'X64',
    RUNNER_NAME: 'GitHub Actions 2',
    RUNNER_ENVIRONMENT: 'github-hosted',
    RUNNER_TEMP: project.runnerTemp,
    RUNNER_TOOL_CACHE: path.join(project.dir, 'runner', 'tool-cache'),
    RUNNER_DEBUG: '',
    GITHUB_WORKSPACE: project.workspace,
    GITHUB_EVENT_NAME: eventName,
    GITHUB_EVENT_PATH: eventFile,
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_REPOSITORY_OWNER: OWNER,
    GITHUB_REPOSITORY_ID: String(project.api.state.repo.id),
    GITHUB_SHA: sha,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_REF_NAME: 'main',
    GITHUB_REF_TYPE: 'branch',
    GITHUB_HEAD_REF: '',
    GITHUB_BASE_REF: '',
    GITHUB_ACTOR: 'octocat',
    GITHUB_ACTOR_ID: '583231',
    GITHUB_TRIGGERING_ACTOR: 'octocat',
    GITHUB_RUN_ID: runId,
    GITHUB_RUN_NUMBER: runNumbers.get(runId) as string,
    GITHUB_RUN_ATTEMPT: options.runAttempt ?? '1',
    GITHUB_JOB: options.job ?? 'ralph',
    GITHUB_WORKFLOW: 'Ralph',
    GITHUB_WORKFLOW_REF: `${OWNER}/${REPO}/.github/workflows/ralph.yml@refs/heads/main`,
    GITHUB_ACTION: '__self',
    GITHUB_ACTION_PATH: REPO_ROOT,
    GITHUB_RETENTION_DAYS: '90',
    ...project.api.env,
    ...stand.artifacts.env,
    ...(options.job === undefined
      ? {}
      : { ACTIONS_RUNTIME_TOKEN: stand.artifacts.tokenForJob(jobBackendId(options.job)) }),
    // After the artifact service's: git is served here, and @actions/artifact accepts a *.localhost server.
    GITHUB_SERVER_URL: project.gitServer.url,
    ...files
  }
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete job[key]
    else job[key] = value
  }
  // One agent user per jest worker: a whole-uid kill in one test file must not hit another file's agent.
  const inputs = inputEnv(
    { 'agent-user': TEST_AGENT_USER, ...options.inputs },
    options.token ?? project.token
  )
  const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '')
  const step = async (
    summaryFile: string,
    extra: Record<string, string>,
    during?: RunOptions['duringMain']
  ): Promise<StepResult> => {
    writeFileSync(files.GITHUB_OUTPUT, '')
    writeFileSync(summaryFile, '')
    if (options.as) chownSync(summaryFile, options.as.uid, options.as.gid)
    const result = await spawnStep(
      { ...job, ...inputs, ...extra, GITHUB_STEP_SUMMARY: summaryFile },
      project.workspace,
      during,
      options.as,
      options.echo,
      options.wrap
    )
    const commands = parseCommands(result.stdout)
    // RALPH_E2E_LOG=1 shows each step's log (jest keeps a passing test quiet otherwise).
    if (process.env.RALPH_E2E_LOG)
      process.stderr.write(
        `--- step (exit ${result.exitCode})\n${result.stdout.replace(/^::debug::.*\n/gm, '')}${result.stderr}\n`
      )
    return {
      ...result,
      commands,
      errors: commands.filter(c => c.command === 'error'),
      outputs: parseFileCommands(read(files.GITHUB_OUTPUT)),
      state: parseFileCommands(read(files.GITHUB_STATE)),
      summary: read(summaryFile)
    }
  }
  const main = await step(files.GITHUB_STEP_SUMMARY, {}, options.duringMain)
  // The runner applies what a step appended to GITHUB_ENV and GITHUB_PATH to every later step, post included
  // (it refuses only NODE_OPTIONS).
  const laterSteps = {
    env: parseFileCommands(read(files.GITHUB_ENV)),
    path: read(files.GITHUB_PATH).split('\n').filter(Boolean).reverse()
  }
  delete laterSteps.env.NODE_OPTIONS
  let post: StepResult | undefined
  if (!options.noPost) {
    const states = Object.fromEntries(Object.entries(main.state).map(([k, v]) => [`STATE_${k}`, v]))
    const applied = {
      ...laterSteps.env,
      PATH: [...laterSteps.path, laterSteps.env.PATH ?? job.PATH].join(':')
    }
    post = await step(path.join(stepDir, 'step_summary_post'), { ...applied, ...states })
  }
  return {
    main,
    post,
    laterSteps,
    summary: main.summary + (post?.summary ?? ''),
    outputs: main.outputs,
    stepDir
  }
}

/** Waits until `condition` holds (polling), or fails after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean,
  what = 'the condition',
  timeoutMs = 30_000
): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}

/** Waits until `file` exists (an agent's "I am running" marker), or fails after `timeoutMs`. */
export const waitForFile = (file: string, timeoutMs = 30_000): Promise<void> =>
  waitFor(() => existsSync(file), file, timeoutMs)

/** The iteration in flight that a run record under RUNNER_TEMP names in its status.json, if any. */
export function inFlight(runnerTemp: string): number | undefined {
  for (const name of readdirSync(runnerTemp).filter(n => n.startsWith('ralph-record-'))) {
    try {
      const status = JSON.parse(readFileSync(path.join(runnerTemp, name, 'status.json'), 'utf8'))
      if (typeof status.inFlight === 'number') return status.inFlight
    } catch {
      // not written yet
    }
  }
  return undefined
}

/** Whether a process is still running (a zombie waiting for its reaper is not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}
