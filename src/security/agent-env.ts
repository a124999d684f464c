// The agent's environment as its own user: its own HOME and names, nothing pointing into the runner's HOME.
import path from 'node:path'
import { RUNNER_FILE_COMMANDS } from './env.js'
import type { AgentUser, Repointed } from './isolation-types.js'

/**
 * The agent's environment as its own user: its own HOME, USER and LOGNAME; nothing that points into the
 * runner's HOME (XDG_*, a global git config) or at the runner's file commands; a variable that named the CLI's
 * settings (`repointed`) names their copy.
 */
export function agentUserEnvironment(
  env: NodeJS.ProcessEnv,
  user: AgentUser,
  repointed: Record<string, Repointed> = {}
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || key.startsWith('XDG_') || key.startsWith('SUDO_')) continue
    if ((RUNNER_FILE_COMMANDS as readonly string[]).includes(key)) continue
    // PWD stays: the loop sets it to the work tree for the agent (opencode works where PWD says).
    if (['GIT_CONFIG_GLOBAL', 'OLDPWD', 'MAIL'].includes(key)) continue
    out[key] = value
  }
  // Only while it still names what was copied: a folder of the run's own (the model proxy's) stays as it is.
  for (const [key, { from, to }] of Object.entries(repointed))
    if (out[key] !== undefined && path.resolve(out[key]) === from) out[key] = to
  return { ...out, HOME: user.home, USER: user.name, LOGNAME: user.name }
}
