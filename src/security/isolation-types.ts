// The shapes of the agent's isolation: the user it runs as, what a start changed (so a release can undo it),
// the isolation's port, and its options. Imports nothing of the isolation itself.
import type { RunOptions, RunResult, Signaller } from '../proc/index.js'
import type { SettingsCopy } from './settings.js'

/** The action's input: `auto` is `user` where the runner allows it, else `none` with a warning. */
export type IsolationSetting = 'auto' | 'user' | 'none'

/** How the action becomes the agent's user: it is root, or the job's user has passwordless sudo. */
export type Privilege = 'root' | 'sudo'

/** A settings variable's copied folder (`from`, as the job named it) and its copy in the agent's HOME. */
export interface Repointed {
  from: string
  to: string
}

/** The user the agent runs as, for this run. */
export interface AgentUser {
  name: string
  uid: number
  gid: number
  /** Its HOME: fresh, empty but for a .gitconfig that trusts the work tree (safe.directory). */
  home: string
}

/** What a start left changed, so that a release (main's end, or post after a killed main) can undo it. */
export interface IsolationState {
  user: AgentUser
  /** `PID:START` of the process that holds the user for this run (main's; post takes it over). */
  holder: string
  privilege: Privilege
  workTree: string
  /** The action's own user, who owns the work tree again afterwards. */
  owner: { uid: number; gid: number }
  /** The work tree's top folder before: its group and mode (it is shared with the agent's group meanwhile). */
  top: { gid: number; mode: string }
  /** Folders the agent was let through (o+x), with their mode before. */
  opened: { path: string; mode: string }[]
  /** Variables that named the agent CLI's settings, pointed at their copies in the agent's HOME. */
  repointed?: Record<string, Repointed>
  /** RLIMIT_NPROC of the agent's programs (undefined: DEFAULT_AGENT_MAX_PROCESSES). */
  maxProcesses?: number
}

/** How to start one program as the agent's user: spawn `argv` with `env`, writing `stdin` first. */
export interface AgentCommand {
  argv: string[]
  /** The agent's environment as root (setpriv passes it on); through sudo, the launcher's own (no value of the agent's). */
  env: NodeJS.ProcessEnv
  /** Through sudo: the agent's environment, for the launcher; the program's own input follows it. Else empty. */
  stdin: Buffer
}

export interface AgentIsolation {
  readonly state: IsolationState
  readonly user: AgentUser
  /** `argv` with `env` as the agent's user (another spawner, e.g. a model proxy, can start programs with it). */
  command(argv: string[], env: NodeJS.ProcessEnv): AgentCommand
  /** The environment a program started as the agent's user gets from `env` (its HOME, its settings' copies). */
  environment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv
  /** Signals processes of the agent's user (negative pids: groups). */
  readonly signaller: Signaller
  /**
   * The loop's runProcess port: the program runs as the agent's user; once none of the programs started this
   * way is running, every process of its uid is killed before the promise resolves.
   */
  runProcess(options: RunOptions): Promise<RunResult>
  /** Kills every process of the agent's uid, until none is left. Answers the pids it found. */
  killAll(): Promise<number[]>
  /** The pids killed because they outlived their program, since the last call (what the loop left running). */
  leftovers(): number[]
  /**
   * Kills everything of the uid, removes its files from the shared temp folders (how many is said through
   * the isolation's log), gives the work tree back and undoes every change. Answers what failed.
   */
  release(): Promise<string[]>
  /**
   * Gives `dir` (a folder the action made, outside the work tree) to the agent's user, who may then pass
   * through its parents; answers what takes it back (every process of the uid killed first), which answers
   * what failed. Throws IsolationError when it cannot be given.
   */
  lend(dir: string): Promise<() => Promise<string[]>>
}

export interface IsolateOptions {
  /** The user to run as (created on first use). Default ralph-agent. */
  user?: string
  privilege: Privilege
  /** The git work tree the agent works in: its content becomes the agent's, .git stays read-only. */
  workTree: string
  /** Folders the agent must reach (e.g. where the task file is): it may pass through their parents. */
  reach?: string[]
  /** The agent's program as found on PATH: checked to be runnable by the agent's user. */
  program?: string
  /** Paths that must stay outside the work tree (the action's HOME, the record, RUNNER_TEMP). */
  outside?: string[]
  /** Said once each: environment variables the agent cannot be given (a name that is not an identifier). */
  log?: (message: string) => void
  /**
   * The agent CLI's own settings (its preset names them): copied into the fresh HOME, the agent's; symbolic
   * links and special files left out. What was copied and left out is said through `log`.
   */
  settings?: readonly SettingsCopy[]
  /** RLIMIT_NPROC for the agent's uid, counted per real uid over the whole machine. Default 4096. */
  maxProcesses?: number
}

/** Isolation could not be set up: the message is one line that says why and what to do. */
export class IsolationError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'IsolationError'
  }
}
