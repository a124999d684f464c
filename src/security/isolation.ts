// The agent as its own unprivileged user. A deny-list of variables is no boundary while the agent is the
// user that holds the tokens: it can read /proc/<pid>/environ and mem of the action, write ~/.gitconfig that
// the action's git obeys, append to the runner's GITHUB_ENV, and (on hosted runners) sudo. Another uid with no
// group, no sudo and no_new_privs can do none of that. The agent, the ralph's commands and the checks all run
// as that user, started with setpriv when the action is root and through `sudo -n` when the job's user has
// passwordless sudo; whenever none of them is running, every process of that uid is killed.
import { spawnSync } from 'node:child_process'
import { appendFileSync, mkdirSync } from 'node:fs'
import { userInfo } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { rmSync } from 'node:fs'
import {
  processIdentity,
  runProcess,
  SYSTEM_PATH,
  trustedProgram,
  which,
  type RunOptions,
  type RunResult,
  type Signaller
} from '../proc/index.js'
import { agentUserEnvironment } from './agent-env.js'
import {
  IsolationError,
  type AgentCommand,
  type AgentIsolation,
  type IsolateOptions,
  type IsolationState,
  type Privilege,
  type Repointed
} from './isolation-types.js'
import { processesOf, zombiesOf } from './processes.js'
import { KILL_ALL, LAUNCHER, PRIVILEGED, SIGNAL } from './scripts.js'
import { stageSettings } from './settings.js'

export const DEFAULT_AGENT_USER = 'ralph-agent'
/** Where the agent's fresh HOME is made (wiped at every start and at the end). */
const HOMES = '/var/lib/ralph-action'
/** PATH for the tools the isolation itself runs (setpriv, sudo, bash, useradd). */
const SYSTEM_ENV = { PATH: SYSTEM_PATH, LANG: 'C' }
/** useradd's default NAME_REGEX: a name that cannot read as an option or a path. */
export const AGENT_USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/
// A socket on stdin (Node's pipes are socketpairs) makes bash read ~/.bashrc, as if run by rshd: never.
const BASH = ['bash', '--norc', '--noprofile', '-c']
/** Rounds of kill(-1) before a uid that keeps forking is reported. */
const KILL_ROUNDS = 20
/** Tenths of a second to wait for the uid's killed processes to be reaped (init may take a second). */
const REAP_WAITS = 50
/** The most processes (threads count: a node program has about ten) the agent's uid may have at once. */
export const DEFAULT_AGENT_MAX_PROCESSES = 4096
/** The lowest cap an agent can work under: its CLI, a shell and a test runner, with their threads. */
export const MIN_AGENT_MAX_PROCESSES = 32
/** Where every user may write outside the work tree: what the agent's uid leaves there is removed at the end. */
export const SHARED_TEMP_FOLDERS = ['/tmp', '/var/tmp', '/dev/shm', '/run/lock', '/dev/mqueue']
/** The longest the removal of the agent's files from SHARED_TEMP_FOLDERS may take, in seconds. */
const SWEEP_SECONDS = 120

/** Another run on this machine holds the agent's user. */
class UserBusy extends Error {
  constructor(readonly pid: number) {
    super(`held by pid ${pid}`)
  }
}

/** Users the default name may take when another run holds it: ralph-agent, ralph-agent-2, … */
const DEFAULT_USERS = 8

/** This process as a holder of the agent's user: its pid and start time (a reused pid is not it). */
const thisHolder = (): string => `${process.pid}:${processIdentity(process.pid) ?? ''}`

/** Whether this process can start programs as another user: as root, or with passwordless sudo. */
export function isolationPrivilege(): { privilege: Privilege } | { why: string } {
  if (process.platform !== 'linux')
    return { why: `running the agent as its own user needs Linux (this is ${process.platform})` }
  for (const tool of ['setpriv', 'prlimit'])
    if (!which(tool, { cwd: '/', path: SYSTEM_PATH })) return { why: `${tool} (util-linux) is not installed` }
  if (process.getuid?.() === 0) return { privilege: 'root' }
  const me = `ralph-action runs as ${userInfo().username} (uid ${process.getuid?.()}), not as root`
  if (!which('sudo', { cwd: '/', path: SYSTEM_PATH })) return { why: `${me}, and sudo is not installed` }
  const probe = spawnSync('sudo', ['-n', 'true'], { env: SYSTEM_ENV, stdio: 'ignore', timeout: 20_000 })
  if (probe.status !== 0) return { why: `${me}, and without passwordless sudo` }
  return { privilege: 'sudo' }
}

/** argv that runs `argv` as root: itself when we are root, else through `sudo -n`. */
const asRoot = (privilege: Privilege, argv: string[]): string[] =>
  privilege === 'root' ? argv : [trustedProgram('sudo', true), '-n', '--', ...argv]

/**
 * argv that runs `argv` as the agent's user, with no groups and no way to gain privileges (setuid, sudo). With
 * `maxProcesses`, the uid's processes are capped (RLIMIT_NPROC, soft and hard, set by root before the switch):
 * a fork loop fails at the cap instead of exhausting the machine. The kills go without it: at the cap, a
 * capped exec as that uid would fail (EAGAIN).
 */
export function asAgent(
  state: Pick<IsolationState, 'privilege' | 'user'>,
  argv: string[],
  maxProcesses?: number
): string[] {
  const { uid, gid } = state.user
  return asRoot(state.privilege, [
    ...(maxProcesses === undefined
      ? []
      : [trustedProgram('prlimit', true), `--nproc=${maxProcesses}:${maxProcesses}`, '--']),
    trustedProgram('setpriv', true),
    `--reuid=${uid}`,
    `--regid=${gid}`,
    '--clear-groups',
    '--no-new-privs',
    '--',
    ...argv
  ])
}

/** Runs the privileged script (as root); answers its output lines, or throws IsolationError with its error. */
async function privileged(privilege: Privilege, args: string[]): Promise<string[]> {
  const result = await runProcess({
    argv: asRoot(privilege, [trustedProgram('bash', true), '-s', '--', ...args]),
    cwd: '/',
    env: SYSTEM_ENV,
    input: PRIVILEGED,
    // A step never waits forever (a chown of a large work tree takes a while; a stalled one is cut).
    timeoutMs: 600_000
  })
  const out = result.stdout.head.toString('utf8') + result.stdout.tail.toString('utf8')
  const lines = out.split('\n').filter(Boolean)
  const error = lines.find(line => line.startsWith('error '))
  if (error) throw new IsolationError(error.slice('error '.length))
  const busy = lines.find(line => line.startsWith('busy '))
  if (busy) throw new UserBusy(Number(busy.slice('busy '.length)))
  if (result.exitCode !== 0) {
    const why = result.spawnError?.message ?? result.stderr.head.toString('utf8').trim().split('\n')[0]
    throw new IsolationError(`the isolation's ${args[0]} step failed (exit ${result.exitCode}): ${why}`)
  }
  return lines
}

const inside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

/**
 * Creates the agent's user (first use), gives it a fresh HOME and the work tree, and answers the isolation.
 * Throws IsolationError (one line) when the user or the work tree cannot be set up.
 */
export async function isolateAgent(options: IsolateOptions): Promise<AgentIsolation> {
  const name = options.user ?? DEFAULT_AGENT_USER
  // The default name stands for any of ours: a run that finds it held takes the next one.
  const names =
    name === DEFAULT_AGENT_USER
      ? Array.from({ length: DEFAULT_USERS }, (_, i) => (i === 0 ? name : `${name}-${i + 1}`))
      : [name]
  for (const [i, candidate] of names.entries()) {
    try {
      return await isolateAs(candidate, options)
    } catch (error) {
      if (!(error instanceof UserBusy)) throw error
      if (i === names.length - 1)
        throw new IsolationError(
          names.length > 1
            ? `The agent's users ${name} to ${candidate} are all held by other runs on this machine (the last by pid ${error.pid}): give this run a user of its own with agent-user (the action) or --agent-user (the CLI).`
            : `The agent's user ${name} is held by another run on this machine (pid ${error.pid}): give this run a user of its own with agent-user (the action) or --agent-user (the CLI).`
        )
      options.log?.(
        `The agent's user ${candidate} is held by another run (pid ${error.pid}): trying ${names[i + 1]}.`
      )
    }
  }
  throw new IsolationError('no agent user was tried')
}

async function isolateAs(name: string, options: IsolateOptions): Promise<AgentIsolation> {
  if (!AGENT_USER_NAME.test(name))
    throw new IsolationError(
      `'${name}' cannot be the agent's user: use lower-case letters, digits, - and _, starting with a letter.`
    )
  const workTree = path.resolve(options.workTree)
  const maxProcesses = options.maxProcesses ?? DEFAULT_AGENT_MAX_PROCESSES
  if (!Number.isInteger(maxProcesses) || maxProcesses < 1)
    throw new IsolationError(`The agent's process cap must be a positive whole number, got ${maxProcesses}.`)
  const paths = [workTree, ...(options.reach ?? []), options.program ?? '', HOMES]
  if (paths.some(p => /[\n\r]/.test(p)))
    throw new IsolationError('A path for the isolation holds a line break; move the work tree.')
  if (workTree === '/') throw new IsolationError('The work tree is /: the agent cannot be given all of it.')
  for (const other of options.outside ?? [])
    if (other && inside(path.resolve(other), workTree))
      throw new IsolationError(
        `${other} is inside the work tree ${workTree}: the agent's user would be given it. Check out the repository in a folder of its own.`
      )
  const owner = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }
  const home = `${HOMES}/${name}`
  const holder = thisHolder()
  // Staged by the action's own user (it reads its own files as itself), copied in by prepare as root.
  const staged = stageSettings(options.settings ?? [])
  if (staged.dir && /[\n\r]/.test(staged.dir))
    throw new IsolationError('A path for the isolation holds a line break; set TMPDIR elsewhere.')
  let lines: string[]
  try {
    lines = await privileged(options.privilege, [
      'prepare',
      name,
      home,
      workTree,
      String(owner.uid),
      (process.getgroups?.() ?? [owner.gid]).join(','),
      options.program ?? '',
      staged.dir ?? '',
      holder,
      ...(options.reach ?? [])
    ])
  } finally {
    if (staged.dir) rmSync(staged.dir, { recursive: true, force: true })
  }
  for (const copied of staged.copied) options.log?.(`The agent's user gets a copy of ${copied}.`)
  for (const skipped of staged.skipped)
    options.log?.(`Left out of the copy of the agent's settings: ${skipped}.`)
  const repointed: Record<string, Repointed> = {}
  for (const { variable, from, to } of options.settings ?? [])
    if (variable) repointed[variable] = { from, to: path.join(home, to) }
  const field = (key: string): string[] =>
    (lines.find(line => line.startsWith(`${key} `)) ?? '').split(' ').slice(1)
  const [uid, gid] = field('user').map(Number)
  const [topGid, topMode] = field('top')
  const opened = lines
    .filter(line => line.startsWith('opened '))
    .map(line => {
      const [, mode, ...rest] = line.split(' ')
      return { mode, path: rest.join(' ') }
    })
  const state: IsolationState = {
    user: { name, uid, gid, home },
    holder,
    privilege: options.privilege,
    workTree,
    owner,
    top: { gid: Number(topGid), mode: topMode },
    opened,
    repointed,
    maxProcesses
  }
  if (!Number.isInteger(uid) || uid <= 0 || topMode === undefined)
    throw new IsolationError(`the isolation's prepare step gave no user: ${lines.join('; ')}`)
  return isolation(state, options.log)
}

/** The isolation a saved state describes (post, after main was killed, releases it with this). */
export function isolation(state: IsolationState, log?: (message: string) => void): AgentIsolation {
  const said = new Set<string>()
  const signaller = agentSignaller(state)
  let running = 0
  let reaped: number[] = []

  const command = (argv: string[], env: NodeJS.ProcessEnv): AgentCommand => {
    const agentEnv = agentUserEnvironment(env, state.user, state.repointed)
    // As root, setpriv hands the environment on as it is: no launcher, no copy in an argv.
    const cap = state.maxProcesses ?? DEFAULT_AGENT_MAX_PROCESSES
    if (state.privilege === 'root')
      return { argv: asAgent(state, argv, cap), env: agentEnv, stdin: Buffer.alloc(0) }
    // sudo resets the environment (env_reset, secure_path): it travels on stdin, to the launcher.
    const entries: string[] = []
    for (const [key, value] of Object.entries(agentEnv)) {
      if (value === undefined) continue
      if (IDENTIFIER.test(key)) entries.push(`${key}=${value}\0`)
      else if (!said.has(key)) {
        said.add(key)
        log?.(
          `The variable ${key} cannot be passed to the agent's user through sudo (not a shell name); it is left out.`
        )
      }
    }
    return {
      argv: asAgent(state, [...BASH, LAUNCHER, 'ralph-agent', ...argv], cap),
      env: SYSTEM_ENV,
      stdin: Buffer.from(`${entries.join('')}\0`)
    }
  }

  const killLive = async (): Promise<number[]> => {
    const found = new Set<number>()
    for (let round = 0; round < KILL_ROUNDS; round++) {
      const pids = processesOf(state.user.uid)
      if (pids.length === 0) return [...found]
      for (const pid of pids) {
        if (!found.has(pid)) reaped.push(pid)
        found.add(pid)
      }
      const [program, ...args] = asAgent(state, [...BASH, KILL_ALL])
      spawnSync(program, args, { env: SYSTEM_ENV, stdio: 'ignore', timeout: 20_000 })
      // SIGKILL lands at once, but a process leaves /proc only once it is reaped.
      if (round > 0) await sleep(20)
    }
    const left = processesOf(state.user.uid)
    if (left.length > 0)
      throw new IsolationError(
        `processes of ${state.user.name} survived ${KILL_ROUNDS} rounds of SIGKILL (pid ${left.join(', ')})`
      )
    return [...found]
  }

  const killAll = async (): Promise<number[]> => {
    const found = await killLive()
    // The dead count against the cap until reaped: the next program would find a fork loop's share still taken.
    for (let wait = 0; wait < REAP_WAITS && zombiesOf(state.user.uid).length > 0; wait++) await sleep(100)
    return found
  }

  const run = async (options: RunOptions): Promise<RunResult> => {
    const env = options.env ?? process.env
    // As run directly: a program that is not there is not started (the loop says which one is missing).
    if (!which(options.argv[0] ?? '', { cwd: options.cwd, path: env.PATH })) return notFound(options)
    const agent = command(options.argv, env)
    const input =
      agent.stdin.length === 0
        ? options.input
        : Buffer.concat([
            agent.stdin,
            options.input === undefined ? Buffer.alloc(0) : Buffer.from(options.input)
          ])
    running++
    let exited = false
    let killing: Promise<unknown> | undefined
    // Once the last program has exited, what it left (holding its output open, or not) is killed at once.
    const ended = (): void => {
      if (exited) return
      exited = true
      if (--running === 0) killing = killAll()
    }
    try {
      return await runProcess({
        ...options,
        argv: agent.argv,
        env: agent.env,
        ...(input !== undefined ? { input } : {}),
        signaller,
        onExit: () => {
          ended()
          options.onExit?.()
        }
      })
    } finally {
      ended()
      // Nothing of the uid survives the program's end (a kill started at its exit is waited for).
      if (killing) await killing
      else if (running === 0) await killAll()
    }
  }

  const release = async (): Promise<string[]> => {
    const problems: string[] = []
    // Held first (post takes over from a killed main): a run that took the user since is left alone.
    const holder = thisHolder()
    try {
      await privileged(state.privilege, ['claim', state.user.name, holder, state.holder])
    } catch (error) {
      if (error instanceof UserBusy)
        return [
          `the agent's user ${state.user.name} is held by another run (pid ${error.pid}) since this one ended: its processes and HOME are that run's, left alone`
        ]
      return [(error as Error).message]
    }
    try {
      await killAll()
    } catch (error) {
      // The work tree is not handed back while a process of the agent's user could still race the chown.
      return [(error as Error).message]
    }
    const { user, owner, top, workTree } = state
    try {
      const lines = await privileged(state.privilege, [
        'release',
        String(user.uid),
        String(user.gid),
        user.home,
        workTree,
        String(owner.uid),
        String(owner.gid),
        String(top.gid),
        top.mode,
        user.name,
        holder,
        String(SWEEP_SECONDS),
        SHARED_TEMP_FOLDERS.join(':'),
        ...state.opened.flatMap(o => [o.mode, o.path])
      ])
      for (const line of lines) if (line.startsWith('problem ')) problems.push(line.slice('problem '.length))
      const swept = lines.find(line => line.startsWith('swept '))
      const n = Number(swept?.slice('swept '.length) ?? 0)
      // Said when there were any (none is the usual case, and the CLI keeps its stderr for what matters).
      if (n > 0)
        log?.(
          `Removed ${n} file${n === 1 ? '' : 's'} the agent's user ${user.name} left outside the work tree (in ${SHARED_TEMP_FOLDERS.join(', ')}; its HOME is removed whole).`
        )
    } catch (error) {
      problems.push((error as Error).message)
    }
    return problems
  }

  const lend = async (dir: string): Promise<() => Promise<string[]>> => {
    const target = path.resolve(dir)
    if (/[\n\r]/.test(target))
      throw new IsolationError('A path for the isolation holds a line break; set TMPDIR elsewhere.')
    const { uid, gid, name } = state.user
    const lines = await privileged(state.privilege, ['lend', String(uid), String(gid), target, name])
    const opened = lines
      .filter(line => line.startsWith('opened '))
      .map(line => {
        const [, mode, ...rest] = line.split(' ')
        return { mode, path: rest.join(' ') }
      })
    return async () => {
      try {
        await killAll()
      } catch (error) {
        return [(error as Error).message]
      }
      try {
        const back = await privileged(state.privilege, [
          'reclaim',
          String(uid),
          String(gid),
          target,
          String(state.owner.uid),
          String(state.owner.gid),
          // The deepest first: a folder is closed again after those below it.
          ...opened.reverse().flatMap(o => [o.mode, o.path])
        ])
        return back.filter(line => line.startsWith('problem ')).map(line => line.slice('problem '.length))
      } catch (error) {
        return [(error as Error).message]
      }
    }
  }

  return {
    state,
    user: state.user,
    lend,
    command,
    environment: env => agentUserEnvironment(env, state.user, state.repointed),
    signaller,
    runProcess: run,
    killAll,
    leftovers: () => {
      const pids = reaped
      reaped = []
      return pids
    },
    release
  }
}

/** The result of a program that could not be found: nothing started (as proc answers ENOENT). */
function notFound(options: RunOptions): RunResult {
  const program = options.argv[0] ?? ''
  if (options.logFile) {
    mkdirSync(path.dirname(options.logFile), { recursive: true })
    appendFileSync(options.logFile, '')
  }
  const none = { head: Buffer.alloc(0), tail: Buffer.alloc(0), totalBytes: 0, truncated: false }
  const spawnError: NodeJS.ErrnoException = Object.assign(new Error(`spawn ${program} ENOENT`), {
    code: 'ENOENT',
    errno: -2,
    syscall: `spawn ${program}`,
    path: program
  })
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    spawnError,
    stdout: none,
    stderr: none,
    durationMs: 0
  }
}

/** Signals as the action where it may (its own sudo), and as the agent's user for the agent's processes. */
function agentSignaller(state: IsolationState): Signaller {
  return (pids, sig) => {
    const denied: number[] = []
    for (const pid of pids) {
      try {
        process.kill(pid, sig)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EPERM') denied.push(pid)
      }
    }
    if (denied.length === 0) return
    const argv = asAgent(state, [...BASH, SIGNAL, sig, ...denied.map(String)])
    spawnSync(argv[0], argv.slice(1), { env: SYSTEM_ENV, stdio: 'ignore', timeout: 20_000 })
  }
}
