// `--isolation user`: the loop's processes (the agent, the ralph's commands, the checks) run as their own
// unprivileged user, with the environment minus credentials; everything of that user is killed whenever none
// of them runs, and the work tree is given back at the end. Needs root or passwordless sudo: said in one line.
import { homedir } from 'node:os'
import path from 'node:path'
import { agentSettings } from '../agents/index.js'
import { GitWorkspace } from '../git/index.js'
import type { LoopConfig, LoopPorts } from '../loop/index.js'
import { which } from '../proc/index.js'
import { RalphError } from '../ralph/index.js'
import {
  IsolationError,
  agentEnvironment,
  isolateAgent,
  isolationPrivilege,
  type Privilege
} from '../security/index.js'
import type { LoopSettings } from './options.js'

export interface CliIsolation {
  runProcess: NonNullable<LoopPorts['runProcess']>
  agentEnvironment: NonNullable<LoopPorts['agentEnvironment']>
  /** The agent's uid and how root is reached: what the model proxy's egress rules need. */
  uid: number
  privilege: Privilege
  /** How the clean checkout (loop/verify.ts) is handed to the agent's user, as the work tree was. */
  verify: NonNullable<LoopPorts['verify']>
  /** Kills what is left, gives the work tree back; problems go to `warn`. */
  release(warn: (message: string) => void): Promise<void>
}

/** The isolation `--isolation` asks for; undefined for `none`. Throws RalphError (one line) when impossible. */
export async function isolateCli(
  config: LoopConfig,
  settings: LoopSettings,
  say: (message: string) => void = () => {}
): Promise<CliIsolation | undefined> {
  if (settings.isolation !== 'user') return undefined
  if (config.worktree)
    throw new RalphError(
      "'--isolation user' does not work with --worktree yet: run it in a checkout of its own."
    )
  const privilege = isolationPrivilege()
  if ('why' in privilege) throw new RalphError(`'--isolation user' is not possible here: ${privilege.why}.`)
  const workspace = await GitWorkspace.open(config.projectRoot)
  const workTree = workspace.root
  await workspace.dispose()
  const program = which(config.ralph.agentArgv[0] ?? '', { cwd: config.projectRoot, path: process.env.PATH })
  const env = agentEnvironment(process.env, config.agentEnv)
  try {
    const isolated = await isolateAgent({
      ...(settings.agentUser !== undefined ? { user: settings.agentUser } : {}),
      ...(settings.agentMaxProcesses !== undefined ? { maxProcesses: settings.agentMaxProcesses } : {}),
      privilege: privilege.privilege,
      workTree,
      ...(program ? { program: path.resolve(config.projectRoot, program) } : {}),
      outside: [config.recordDir, homedir()],
      // The CLI's own settings, as it would read them as the caller: copied into the agent's HOME.
      settings: agentSettings(config.ralph.agentArgv, env),
      log: say
    })
    return {
      runProcess: options => isolated.runProcess({ ...options, env: options.env ?? env }),
      agentEnvironment: isolated.environment,
      uid: isolated.user.uid,
      privilege: privilege.privilege,
      verify: { lend: dir => isolated.lend(dir) },
      release: async warn => {
        for (const problem of await isolated.release())
          warn(`The isolation could not be fully undone: ${problem}`)
      }
    }
  } catch (error) {
    if (error instanceof IsolationError) throw new RalphError(`'--isolation user': ${error.message}`)
    throw error
  }
}
