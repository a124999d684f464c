// The action's own process environment, scrubbed at the start of main and of post.
import * as core from '@actions/core'
import { scrubInitialEnvironment } from '../proc/index.js'
import { MODEL_KEY_VARIABLES } from '../proxy/agent.js'
import { isSecretVariable } from '../security/index.js'

// The model keys too: the proxy exists to keep them from the agent, and a read of environ (a link the action
// followed, a survivor under isolation none) would hand them over with the tokens.
const MODEL_KEYS = new Set(MODEL_KEY_VARIABLES.map(name => name.toUpperCase()))

/** Whether the action keeps `name` off its initial environment block (its value lives on the heap only). */
export function scrubbedFromEnviron(name: string): boolean {
  return isSecretVariable(name) || MODEL_KEYS.has(name.toUpperCase())
}

/**
 * Keeps the tokens and model keys this process was started with out of /proc/<pid>/environ, which any process of the same
 * user can read: the agent is our child, and one that outlived its loop may be watching for post.
 */
export function scrubOwnEnvironment(): void {
  const scrub = scrubInitialEnvironment(scrubbedFromEnviron)
  if (scrub.skipped && process.platform === 'linux')
    core.warning(
      `The tokens could not be removed from /proc/${process.pid}/environ (${scrub.skipped}): processes of this user, the agent's included, can read them there.`
    )
  else core.debug(`Scrubbed from the initial environment: ${scrub.scrubbed.join(', ') || 'nothing'}.`)
}
