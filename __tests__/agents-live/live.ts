// Shared by the live agent tests: temp work dirs, skipping when the CLIs are absent, recorded stream fixtures,
// and a timing table printed at the end of each file.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execFileSync } from 'node:child_process'
import {
  agentEnvironment,
  isolateAgent,
  isolationPrivilege,
  type AgentEnvOptions,
  type AgentIsolation
} from '../../src/security/index.js'
import {
  agentBin,
  liveSetup,
  parseJsonLines,
  runAgentCli,
  whyNotInstalled,
  type AgentName,
  type AgentRun,
  type LiveSetup
} from '../support/agents.js'
import { TEST_AGENT_USER, testTempBase } from '../support/isolation.js'
import type { AgentSettings } from '../../src/agents/index.js'
import type { LoopPorts } from '../../src/loop/index.js'
import type { Script, ScriptedServer } from '../support/model-server/index.js'
import { DRIVERS } from './drivers.js'

export const STREAMS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'streams')
/** Set RECORD_STREAMS=1 to (re)write the recorded streams in __tests__/fixtures/streams/. */
export const RECORDING = process.env.RECORD_STREAMS === '1'

/**
 * `describe`, or `describe.skip` with the reason when the CLI is not installed. With REQUIRE_AGENT_CLIS=1 (CI)
 * a missing CLI is an error instead: the tier must not pass by skipping everything.
 */
export function describeWithAgent(name: AgentName): typeof describe | typeof describe.skip {
  const why = whyNotInstalled(name)
  if (!why) return describe
  if (process.env.REQUIRE_AGENT_CLIS === '1') throw new Error(`REQUIRE_AGENT_CLIS=1 but ${why}`)
  // Straight to stderr: jest hides console output of a suite whose tests are all skipped.
  process.stderr.write(`Skipping the live ${name} tests: ${why}\n`)
  return describe.skip
}

export interface Workspace {
  root: string
  /** The agent's working directory. */
  cwd: string
  /** A throwaway HOME (claude) or CODEX_HOME (codex). */
  home: string
  remove(): void
}

export function makeWorkspace(prefix: string): Workspace {
  const root = mkdtempSync(join(testTempBase(), `ralph-live-${prefix}-`))
  const cwd = join(root, 'work')
  const home = join(root, 'home')
  mkdirSync(cwd)
  mkdirSync(home)
  return { root, cwd, home, remove: () => rmSync(root, { recursive: true, force: true }) }
}

let saidUnisolated = false

/**
 * The agent's own user for a live run, as the action runs agents by default: `cwd` is its work tree and `home`
 * (CODEX_HOME) its own. Where this machine cannot (not root, no passwordless sudo) the CLIs run as the caller,
 * said once on stderr; REQUIRE_ISOLATION=1 (CI runs as root) makes that an error.
 */
export async function isolateLive(
  workspace: Workspace,
  name: AgentName,
  settings?: AgentSettings[]
): Promise<AgentIsolation | undefined> {
  const privilege = isolationPrivilege()
  if ('why' in privilege) {
    if (process.env.REQUIRE_ISOLATION === '1') throw new Error(`REQUIRE_ISOLATION=1 but ${privilege.why}`)
    if (!saidUnisolated) process.stderr.write(`The live ${name} tests run NOT isolated: ${privilege.why}\n`)
    saidUnisolated = true
    return undefined
  }
  const isolation = await isolateAgent({
    user: TEST_AGENT_USER,
    privilege: privilege.privilege,
    workTree: workspace.cwd,
    program: agentBin(name),
    // With the CLI's settings named, the agent gets a copy of them, as the action does; else `home` itself.
    ...(settings ? { settings } : { reach: [workspace.home] })
  })
  if (!settings)
    chownHome(workspace, isolation.state.privilege, `${isolation.user.uid}:${isolation.user.gid}`)
  return isolation
}

/** The CLI's home, as the run's set-up just wrote it (config files, CODEX_HOME), made the agent's user's. */
export function giveHome(workspace: Workspace, isolation: AgentIsolation | undefined): void {
  if (!isolation) return
  const { uid, gid } = isolation.user
  chownHome(workspace, isolation.state.privilege, `${uid}:${gid}`, true)
}

/** Kills what the live run left, gives the work tree and the CLI's home back to the test's user. */
export async function releaseLive(
  workspace: Workspace,
  isolation: AgentIsolation | undefined
): Promise<void> {
  if (!isolation) return
  const problems = await isolation.release()
  const { uid, gid } = isolation.state.owner
  // Given to the agent's user (no settings named): back to the test's.
  if (statSync(workspace.home).uid !== uid)
    chownHome(workspace, isolation.state.privilege, `${uid}:${gid}`, true)
  if (problems.length > 0) throw new Error(`the isolation could not be undone: ${problems.join('; ')}`)
}

function chownHome(workspace: Workspace, privilege: 'root' | 'sudo', owner: string, recursive = false): void {
  const argv = ['chown', ...(recursive ? ['-R'] : []), owner, workspace.home]
  if (privilege === 'root') execFileSync(argv[0], argv.slice(1))
  else execFileSync('sudo', ['-n', ...argv])
}

// Placeholders that keep recorded streams stable across runs and machines.
const ROOT_PLACEHOLDER = '/tmp/ralph-live'
const SERVER_PLACEHOLDER = '127.0.0.1:41000'

function normalise(stdout: string, workspace: Workspace, serverUrl: string): string {
  // claude also names a per-project folder after the path with every other character turned into '-'.
  const slug = (path: string): string => path.replace(/[^a-zA-Z0-9]/g, '-')
  return stdout
    .split(workspace.root)
    .join(ROOT_PLACEHOLDER)
    .split(slug(workspace.root))
    .join(slug(ROOT_PLACEHOLDER))
    .split(new URL(serverUrl).host)
    .join(SERVER_PLACEHOLDER)
}

/** The kinds of events in a stream, in order, runs of one kind collapsed: what a parser depends on. */
export function streamShape(events: Array<Record<string, unknown>>): string[] {
  const kinds = events.map(event => {
    const type = String(event.type ?? 'unparsed')
    if (typeof event.subtype === 'string') return `${type}/${event.subtype}`
    const item = event.item as { type?: string } | undefined
    if (item?.type) return `${type}/${item.type}`
    return type
  })
  return kinds.filter((kind, index) => kind !== kinds[index - 1])
}

/**
 * With RECORD_STREAMS=1 writes the run's stdout as a fixture. Otherwise checks the fixture still has the shape of
 * the live stream, so a CLI upgrade that changes its output fails here and says to re-record.
 */
export function recordOrCompare(
  fixture: string,
  run: AgentRun,
  workspace: Workspace,
  serverUrl: string
): void {
  const file = join(STREAMS_DIR, fixture)
  // A run killed on a line ends there: what the CLI wrote after it (already in the pipe under load) is a race.
  const lines = run.stdout.split('\n').filter(line => line.trim() !== '')
  const stdout =
    run.eventsAtKill === undefined ? run.stdout : `${lines.slice(0, run.eventsAtKill).join('\n')}\n`
  if (RECORDING) {
    mkdirSync(STREAMS_DIR, { recursive: true })
    writeFileSync(file, normalise(stdout, workspace, serverUrl))
    return
  }
  if (!existsSync(file))
    throw new Error(`${file} is missing: record it with RECORD_STREAMS=1 npm run test:agents`)
  const recorded = streamShape(parseJsonLines(readFileSync(file, 'utf8')))
  const live = streamShape(parseJsonLines(stdout))
  if (JSON.stringify(recorded) !== JSON.stringify(live)) {
    throw new Error(
      `The live stream no longer has the shape of ${fixture} (re-record with RECORD_STREAMS=1 npm run test:agents):\n` +
        `recorded: ${recorded.join(' ')}\nlive:     ${live.join(' ')}`
    )
  }
}

/** Wall-clock times of the real CLI runs, printed once per test file. */
export class Timings {
  private readonly rows: string[] = []

  /** Records a run; with the server, also the start-up time (spawn to first model request). */
  add(name: string, run: AgentRun, server?: ScriptedServer): void {
    const seconds = (ms: number): string => `${(ms / 1000).toFixed(2).padStart(5)} s`
    const first = server?.requests.find(request => request.at >= run.startedAt)
    const startup = first ? seconds(first.at.getTime() - run.startedAt.getTime()) : '      -'
    const kill = run.killLatencyMs === undefined ? '' : `, killed in ${Math.round(run.killLatencyMs)} ms`
    this.rows.push(`  ${seconds(run.durationMs)}  ${startup}  ${name}${kill}`)
  }

  print(agent: string): void {
    if (this.rows.length === 0) return
    console.info(`Real ${agent} CLI runs (total, start-up to first request):\n${this.rows.join('\n')}`)
  }
}

/**
 * The ways the tier runs each agent: as the runner's user, and as the agent's own unprivileged user (#15), the
 * loop's processes started through the isolation's runProcess.
 */
export const LIVE_MODES: Array<{ name: string; isolated: boolean }> = [
  { name: "as the runner's user", isolated: false },
  { name: "as the agent's own user", isolated: true }
]

let saidNoIsolatedMode = false

/**
 * `describe` for a mode, or `describe.skip` for the isolated one where this machine cannot isolate (said once);
 * REQUIRE_ISOLATION=1 (CI runs as root) makes that an error.
 */
export function describeMode(mode: {
  name: string
  isolated: boolean
}): typeof describe | typeof describe.skip {
  if (!mode.isolated) return describe
  const privilege = isolationPrivilege()
  if (!('why' in privilege)) return describe
  if (process.env.REQUIRE_ISOLATION === '1') throw new Error(`REQUIRE_ISOLATION=1 but ${privilege.why}`)
  if (!saidNoIsolatedMode)
    process.stderr.write(`The live tier's isolated mode is skipped: ${privilege.why}\n`)
  saidNoIsolatedMode = true
  return describe.skip
}

/** The loop's runProcess port through `isolation`, as the CLI wires it: the agent's environment by default. */
export function isolatedRunProcess(
  isolation: AgentIsolation,
  agentEnv: AgentEnvOptions
): NonNullable<LoopPorts['runProcess']> {
  const env = agentEnvironment(process.env, agentEnv)
  return options => isolation.runProcess({ ...options, env: options.env ?? env })
}

export interface LiveCli {
  /** This test's workspace (fresh per test). */
  readonly workspace: Workspace
  /** This test's server (started by the first run of the test). */
  readonly server: ScriptedServer
  /** Runs the CLI once with the prompt 'Create hello.txt, then show it.'; the server keeps its script per test. */
  run(label: string, script: Script, options?: { timeoutMs?: number }): Promise<AgentRun>
  /** RECORD_STREAMS=1 writes the run's stdout as `fixture`; otherwise its shape is compared with it. */
  record(fixture: string, run: AgentRun): void
}

/**
 * A live test file for one CLI: a workspace and a server per test, the CLI pointed at it by the product's
 * endpoint recipe, `args(setup)` as its command line, the timings printed at the end.
 */
export function liveCli(name: AgentName, args: (setup: LiveSetup) => string[]): LiveCli {
  const timings = new Timings()
  const driver = DRIVERS.find(d => d.name === name)!
  let workspace: Workspace | undefined
  let server: ScriptedServer | undefined
  beforeEach(() => {
    workspace = makeWorkspace(name)
  })
  afterEach(async () => {
    await server?.close()
    server = undefined
    workspace?.remove()
  })
  afterAll(() => timings.print(name))
  const cli: LiveCli = {
    get workspace() {
      if (!workspace) throw new Error('no workspace outside a test')
      return workspace
    },
    get server() {
      if (!server) throw new Error('no server before the first run')
      return server
    },
    async run(label, script, options = {}) {
      server ??= await driver.startServer({ script })
      const setup = liveSetup(name, server.url, cli.workspace.home)
      const run = await runAgentCli(name, {
        cwd: cli.workspace.cwd,
        env: setup.env,
        args: args(setup),
        prompt: 'Create hello.txt, then show it.',
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {})
      })
      timings.add(label, run, server)
      return run
    },
    record: (fixture, run) => recordOrCompare(fixture, run, cli.workspace, cli.server.url)
  }
  return cli
}
