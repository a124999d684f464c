// What two-job mode (#28) adds to a run's wall time on the bundled example (examples/fix-failing-test, its
// scripted agent: no API key): (A) one job, `mode: run`, against (B) an agent job (`mode: agent`, read-only
// token) and a deliver job (`mode: deliver`, write token) on a fresh checkout, as a workflow's two jobs run.
// dist/index.js on Node 24, main step then post step, each job with its own runner folders; behind it a bare
// remote served over smart HTTP, the GitHub API stand-in and the artifact service in front of azurite (the
// tests' stand-ins, transpiled by github-api.mjs). Each run a fresh remote; A and B in turn, pair by pair.
// The deliver job's phases are read from the arrival time of its log lines (markers named in PHASES).
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { parse as parseYaml } from 'yaml'
import { snapshotAction } from './action.mjs'
import { loadSupport } from './github-api.mjs'
import { ACTION_NODE, ROOT, median, progress, runTimed, tempDir } from './lib.mjs'

export const title = 'Two jobs against one: the added wall time of mode agent + mode deliver'

const PAIRS = Number(process.env.BENCH_TWO_JOBS_PAIRS ?? 5)
const EXAMPLE = path.join(ROOT, 'examples', 'fix-failing-test')
const OWNER = 'octo-org'
const REPO = 'octo-repo'
/** `${{ github.token }}` of a job with write permissions, and of the agent job (contents: read). */
export const WRITE_TOKEN = 'ghs_BenchWriteJobToken0123456789abcdefAB'
const READ_TOKEN = 'ghs_BenchReadJobToken0123456789abcdefABC'
/** The agent's own user (isolation: auto, as on a GitHub-hosted runner); created by the warm-up run. */
const AGENT_USER = `${process.env.RALPH_TEST_AGENT_PREFIX ?? 'ralph-agent-bench-'}two-jobs`
const seconds = value => `${(value / 1000).toFixed(2)} s`
const spread = values => `${seconds(Math.min(...values))}–${seconds(Math.max(...values))}`

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Octo Cat',
  GIT_AUTHOR_EMAIL: 'octocat@example.com',
  GIT_COMMITTER_NAME: 'Octo Cat',
  GIT_COMMITTER_EMAIL: 'octocat@example.com'
}

/** git, asynchronously: the git server answering it runs in this process. */
async function git(cwd, env, ...args) {
  const result = await runTimed('git', args, { cwd, env: { ...process.env, ...GIT_ENV, ...env } })
  if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${result.stderr}`)
  return result.stdout
}

/** A bare remote holding the example (with `files` written over it) on `main`, served with its own git server and API stand-in. */
export async function project({ startGitServer, startGitHubApi }, files = {}) {
  const dir = tempDir('two-jobs')
  const remote = path.join(dir, 'remote.git')
  const seed = path.join(dir, 'seed')
  cpSync(EXAMPLE, seed, { recursive: true })
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(seed, name), text)
  await git(dir, {}, 'init', '--quiet', '--bare', '--initial-branch=main', remote)
  await git(seed, {}, 'init', '--quiet', '--initial-branch=main')
  await git(seed, {}, 'add', '-A')
  await git(seed, {}, 'commit', '--quiet', '-m', 'Two failing tests')
  await git(seed, {}, 'push', '--quiet', remote, 'main')
  const gitServer = await startGitServer({ owner: OWNER, repo: REPO, bareDir: remote })
  gitServer.tokens.set(WRITE_TOKEN, 'write')
  gitServer.tokens.set(READ_TOKEN, 'read')
  // Response bodies unchecked: the schema checks are the stand-in's cost, not the action's.
  const api = await startGitHubApi({
    owner: OWNER,
    repo: REPO,
    gitDir: remote,
    serverUrl: gitServer.url,
    checkResponses: false
  })
  api.state.readOnlyTokens.add(READ_TOKEN)
  const sha = (await git(remote, {}, 'rev-parse', 'refs/heads/main')).trim()
  let jobs = 0
  return {
    dir,
    remote,
    gitServer,
    api,
    sha,
    nextRunner: () => path.join(dir, `runner-${++jobs}`),
    close: async () => {
      await api.close()
      await gitServer.close()
    }
  }
}

/** actions/checkout on a new runner: init, origin, the persisted credential (v6: a file), fetch --depth=1, checkout. */
export async function checkout(p, token) {
  const runner = p.nextRunner()
  const job = {
    runner,
    workspace: path.join(runner, 'work', REPO, REPO),
    temp: path.join(runner, 'temp'),
    home: path.join(runner, 'home'),
    token
  }
  for (const d of [job.workspace, job.temp, job.home]) mkdirSync(d, { recursive: true })
  const env = { HOME: job.home }
  const run = (...args) => git(job.workspace, env, ...args)
  await run('init', '--quiet')
  await run('remote', 'add', 'origin', `${p.gitServer.url}/${OWNER}/${REPO}`)
  const credentials = path.join(job.temp, 'git-credentials-bench.config')
  await git(
    job.workspace,
    env,
    'config',
    '--file',
    credentials,
    `http.${p.gitServer.url}/.extraheader`,
    `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`
  )
  await run('config', `includeIf.gitdir:${job.workspace}/.git.path`, credentials)
  await run('config', `includeIf.gitdir:${job.workspace}/.git/worktrees/*.path`, credentials)
  await run(
    '-c',
    'protocol.version=2',
    'fetch',
    '--no-tags',
    '--prune',
    '--no-recurse-submodules',
    '--depth=1',
    'origin',
    `+${p.sha}:refs/remotes/origin/main`
  )
  await run('checkout', '--quiet', '--force', '-B', 'main', 'refs/remotes/origin/main')
  return job
}

/** INPUT_* as the runner sets them: every input of action.yml, its default unless given. */
function inputEnv(given, token) {
  const { inputs } = parseYaml(readFileSync(path.join(ROOT, 'action.yml'), 'utf8'))
  const env = {}
  for (const [name, spec] of Object.entries(inputs)) {
    const value = String(given[name] ?? spec.default ?? '').replace(/\$\{\{\s*github\.token\s*\}\}/g, token)
    env[`INPUT_${name.toUpperCase()}`] = value
  }
  return env
}

/** GITHUB_OUTPUT / GITHUB_STATE: `name<<DELIM\nvalue\nDELIM` lines. */
function fileCommands(file) {
  const out = {}
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : []
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i])
    if (!heredoc) continue
    const value = []
    for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) value.push(lines[i])
    out[heredoc[1]] = value.join('\n')
  }
  return out
}

/** Runs a step to its end; each stdout line stamped with its arrival (ms since the spawn). */
function stampedStep(env, cwd) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(ACTION_NODE, [snapshotAction()], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const lines = []
    let partial = ''
    let stderr = ''
    child.stdout.setEncoding('utf8')
    child.stderr.setEncoding('utf8')
    child.stdout.on('data', chunk => {
      const at = performance.now() - started
      const parts = (partial + chunk).split('\n')
      partial = parts.pop()
      for (const text of parts) lines.push({ at, text })
    })
    child.stderr.on('data', chunk => (stderr += chunk))
    child.on('error', reject)
    child.on('close', code => {
      if (partial) lines.push({ at: performance.now() - started, text: partial })
      resolve({ code, wallMs: performance.now() - started, lines, stderr })
    })
  })
}

const jobBackendId = name =>
  `c0ffee00-0000-4000-8000-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`

/**
 * One job's use of the action (`uses: ./`): main, then post with main's state, as the runner runs them.
 * `event`: the workflow_dispatch payload; `backendId`: the run's artifact backend id; `codes`: main's accepted exits.
 */
export async function runJob(p, job, artifacts, { name, runId, inputs, event, backendId, codes = [0] }) {
  const files = path.join(job.temp, '_runner_file_commands')
  mkdirSync(files, { recursive: true })
  const eventFile = path.join(files, 'event.json')
  writeFileSync(eventFile, JSON.stringify(event ?? p.api.events.workflowDispatch()))
  const env = {
    PATH: process.env.PATH,
    HOME: job.home,
    LANG: 'C.UTF-8',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GIT_CONFIG_NOSYSTEM: '1',
    RUNNER_OS: 'Linux',
    RUNNER_ARCH: 'X64',
    RUNNER_ENVIRONMENT: 'github-hosted',
    RUNNER_TEMP: job.temp,
    RUNNER_TOOL_CACHE: path.join(job.runner, 'tool-cache'),
    GITHUB_WORKSPACE: job.workspace,
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_EVENT_PATH: eventFile,
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_REPOSITORY_OWNER: OWNER,
    GITHUB_REPOSITORY_ID: String(p.api.state.repo.id),
    GITHUB_SHA: p.sha,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_REF_NAME: 'main',
    GITHUB_REF_TYPE: 'branch',
    GITHUB_ACTOR: 'octocat',
    GITHUB_TRIGGERING_ACTOR: 'octocat',
    GITHUB_RUN_ID: runId,
    GITHUB_RUN_NUMBER: runId.slice(-4),
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_JOB: name,
    GITHUB_WORKFLOW: 'Ralph',
    GITHUB_ACTION: '__self',
    GITHUB_ACTION_PATH: ROOT,
    GITHUB_RETENTION_DAYS: '90',
    ...p.api.env,
    ...artifacts.env,
    ACTIONS_RUNTIME_TOKEN: backendId
      ? artifacts.tokenForRun(backendId, jobBackendId(name))
      : artifacts.tokenForJob(jobBackendId(name)),
    // After the artifact service's: git is served here (@actions/artifact accepts a *.localhost server).
    GITHUB_SERVER_URL: p.gitServer.url,
    ...inputEnv({ 'agent-user': AGENT_USER, ...inputs }, job.token)
  }
  const step = async (label, extra) => {
    const commands = {}
    for (const file of [
      'GITHUB_OUTPUT',
      'GITHUB_STATE',
      'GITHUB_ENV',
      'GITHUB_PATH',
      'GITHUB_STEP_SUMMARY'
    ]) {
      commands[file] = path.join(files, `${label}-${file}`)
      writeFileSync(commands[file], '')
    }
    const result = await stampedStep({ ...env, ...commands, ...extra }, job.workspace)
    return {
      ...result,
      outputs: fileCommands(commands.GITHUB_OUTPUT),
      state: fileCommands(commands.GITHUB_STATE)
    }
  }
  const main = await step('main', {})
  const post = await step(
    'post',
    Object.fromEntries(Object.entries(main.state).map(([k, v]) => [`STATE_${k}`, v]))
  )
  const log = () =>
    `main (exit ${main.code}):\n${main.lines.map(l => l.text).join('\n')}\n${main.stderr}\n` +
    `post (exit ${post.code}):\n${post.lines.map(l => l.text).join('\n')}\n${post.stderr}`
  // BENCH_TWO_JOBS_LOG=1 shows each job's log, its lines stamped (ms since the step's spawn).
  if (process.env.BENCH_TWO_JOBS_LOG)
    for (const [label, s] of [
      ['main', main],
      ['post', post]
    ])
      process.stderr.write(
        `--- ${name} ${label} (exit ${s.code})\n${s.lines.map(l => `${Math.round(l.at)}\t${l.text}`).join('\n')}\n${s.stderr}`
      )
  if (!codes.includes(main.code) || post.code !== 0)
    throw new Error(`the ${name} job failed:\n${log().slice(-4000)}`)
  return { main, post, wallMs: main.wallMs + post.wallMs, outputs: main.outputs, log }
}

/** When the first line matching `pattern` arrived (ms since the step's spawn). */
export function marker(step, pattern, what, log) {
  const line = step.lines.find(l => pattern.test(l.text))
  if (!line) throw new Error(`no log line for ${what} (${pattern}) in:\n${log().slice(-4000)}`)
  return line.at
}

let runs = 0
const newRunId = () => String(9_100_000_000 + process.pid * 100 + ++runs)

/** (A): one job, mode run. */
async function oneJob(stands) {
  const p = await project(stands)
  try {
    const started = performance.now()
    const job = await checkout(p, WRITE_TOKEN)
    const checkoutMs = performance.now() - started
    const run = await runJob(p, job, stands.artifacts, {
      name: 'ralph',
      runId: newRunId(),
      inputs: { ralph: 'fix-tests' }
    })
    if (run.outputs['pr-operation'] !== 'created')
      throw new Error(`the one job opened no pull request:\n${run.log().slice(-4000)}`)
    return { wallMs: performance.now() - started, checkoutMs, jobMs: run.wallMs }
  } finally {
    await p.close()
  }
}

/** (B): the agent job, then the deliver job of the same run on a fresh checkout. */
async function twoJobs(stands) {
  const p = await project(stands)
  try {
    const runId = newRunId()
    const started = performance.now()
    const first = await checkout(p, READ_TOKEN)
    const checkoutMs = performance.now() - started
    const agent = await runJob(p, first, stands.artifacts, {
      name: 'agent',
      runId,
      inputs: { ralph: 'fix-tests', mode: 'agent' }
    })
    if (!agent.outputs.delivery)
      throw new Error(`the agent job handed nothing over:\n${agent.log().slice(-4000)}`)
    const between = performance.now()
    const second = await checkout(p, WRITE_TOKEN)
    const secondCheckoutMs = performance.now() - between
    const deliver = await runJob(p, second, stands.artifacts, {
      name: 'deliver',
      runId,
      inputs: { ralph: 'fix-tests', mode: 'deliver', delivery: agent.outputs.delivery }
    })
    const wallMs = performance.now() - started
    if (deliver.outputs['pr-operation'] !== 'created' || deliver.outputs.verified !== 'true')
      throw new Error(`the deliver job delivered nothing verified:\n${deliver.log().slice(-4000)}`)
    const { main } = deliver
    const at = (pattern, what) => marker(main, pattern, what, deliver.log)
    const received = at(/^Received ralph-delivery-/, 'the received delivery')
    const verifying = at(/^Verifying [0-9a-f]+ again/, 'the re-verification')
    const verified = at(/^Stopped: /, "the re-verification's end")
    const pushing = at(/^::group::Pushing /, 'the push')
    const opened = at(/^Pull request #\d+ created/, 'the pull request')
    return {
      wallMs,
      checkoutMs,
      agentMs: agent.wallMs,
      secondCheckoutMs,
      deliverMs: deliver.wallMs,
      // The deliver job's main step, by the arrival of its log lines.
      downloadMs: received,
      checksMs: verifying - received,
      reverifyMs: verified - verifying,
      releaseMs: pushing - verified,
      pushPrMs: opened - pushing,
      reportMs: main.wallMs - opened,
      deliverPostMs: deliver.post.wallMs
    }
  } finally {
    await p.close()
  }
}

export async function run() {
  const [{ startArtifactService }, { startGitServer }, { startGitHubApi }] = await loadSupport(
    'support/artifacts/index.ts',
    'support/git-server.ts',
    'support/github-api/index.ts'
  )
  progress('two-jobs: starting the artifact service (azurite)')
  const artifacts = await startArtifactService()
  const stands = { artifacts, startGitServer, startGitHubApi }
  const a = []
  const b = []
  try {
    // Not counted: creates the agent's user and warms the caches.
    progress('two-jobs: a warm-up run of each')
    await oneJob(stands)
    await twoJobs(stands)
    for (let i = 1; i <= PAIRS; i++) {
      progress(`two-jobs: pair ${i} of ${PAIRS}`)
      // Which goes first alternates, so a drift of the machine's speed falls on both.
      if (i % 2) {
        a.push(await oneJob(stands))
        b.push(await twoJobs(stands))
      } else {
        b.push(await twoJobs(stands))
        a.push(await oneJob(stands))
      }
    }
  } finally {
    await artifacts.close()
  }
  const med = (list, field) => median(list.map(r => r[field]))
  const added = a.map((r, i) => b[i].wallMs - r.wallMs)
  const agentOverOne = a.map((r, i) => b[i].agentMs - r.jobMs)
  const part = (figure, field, detail) => ({
    figure: `    ${figure}`,
    display: seconds(med(b, field)),
    goal: '—',
    met: null,
    detail: detail && `${detail} (spread ${spread(b.map(r => r[field]))})`
  })
  const rows = [
    {
      figure: '(A) one job, mode: run',
      display: seconds(med(a, 'wallMs')),
      goal: '—',
      met: null,
      detail: `median of ${PAIRS}, spread ${spread(a.map(r => r.wallMs))}: checkout ${seconds(med(a, 'checkoutMs'))}, the action (main + post) ${seconds(med(a, 'jobMs'))}.`
    },
    {
      figure: '(B) agent job + deliver job',
      display: seconds(med(b, 'wallMs')),
      goal: '—',
      met: null,
      detail: `median of ${PAIRS}, spread ${spread(b.map(r => r.wallMs))}.`
    },
    {
      figure: 'added by two jobs (B − A, pair by pair)',
      display: seconds(median(added)),
      goal: '—',
      met: null,
      detail: `median of the ${PAIRS} pairs' differences, spread ${spread(added)}; ${Math.round((100 * median(added)) / med(a, 'wallMs'))}% of A's median.`
    },
    {
      figure: "  B's agent job − A's job (pair by pair)",
      display: seconds(median(agentOverOne)),
      goal: '—',
      met: null,
      detail: `spread ${spread(agentOverOne)}: the handover (bundle, delivery artifact) in place of the push and the pull request.`
    },
    part('B: first checkout', 'checkoutMs'),
    part('B: agent job (main + post)', 'agentMs', 'admission, loop, clean verification, bundle, two uploads'),
    part('B: second checkout', 'secondCheckoutMs', "the deliver job's own actions/checkout"),
    part('B: deliver job (main + post)', 'deliverMs'),
    part(
      '  start, admission, download',
      'downloadMs',
      'spawn to the "Received" line: plan, artifact download, manifest'
    ),
    part(
      '  branch, isolation, checks',
      'checksMs',
      'branch prepared, agent user set up, bundle fetched and checked ("Received" to "Verifying")'
    ),
    part(
      '  re-verification',
      'reverifyMs',
      'setup + gates on a clean checkout as the agent user ("Verifying" to "Stopped")'
    ),
    part(
      '  after the gates',
      'releaseMs',
      'the agent user given back, the push prepared ("Stopped" to "Pushing"; a one-job run pays it too)'
    ),
    part('  push + pull request', 'pushPrMs', '"Pushing" to "Pull request #N created"'),
    part('  record, summary, exit', 'reportMs', "the deliver job's record uploaded, summary, outputs"),
    part('  post step', 'deliverPostMs')
  ]
  return {
    rows,
    notes: [
      'dist/index.js on Node 24 against local stand-ins (git over HTTP, the GitHub API, the artifact service on azurite): no network',
      "latency, and none of a real second job's queueing and runner start-up (often tens of seconds on GitHub), which a workflow adds.",
      `Isolation auto as the agent user ${AGENT_USER}; each run on a fresh remote; a warm-up run of each not counted.`
    ],
    data: { pairs: PAIRS, oneJob: a, twoJobs: b }
  }
}
