// The action's own process environment, scrubbed at the start of main and of post.
import * as core from '@actions/core'
import { scrubInitialEnvironment } from '../proc/index.js'
import { isSecretVariable } from '../security/index.js'

/**
 * Keeps the tokens this process was started with out of /proc/<pid>/environ, which any process of the same
 * user can read: the agent is our child, and one that outlived its loop may be watching for post.
 */
export function scrubOwnEnvironment(): void {
  const scrub = scrubInitialEnvironment(isSecretVariable)
  if (scrub.skipped && process.platform === 'linux')
    core.warning(
      `The tokens could not be removed from /proc/${process.pid}/environ (${scrub.skipped}): processes of this user, the agent's included, can read them there.`
    )
  else core.debug(`Scrubbed from the initial environment: ${scrub.scrubbed.join(', ') || 'nothing'}.`)
}
