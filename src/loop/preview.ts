// The prompt an iteration would pipe to the agent, without running the agent (`ralph-action prompt`):
// the commands run for real, as in the loop, and the prompt is assembled as a first pass of the loop sees it.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runProcess } from '../proc/index.js'
import { RalphError } from '../ralph/index.js'
import { runCommands } from './commands.js'
import { assemble } from './assemble.js'
import { DEFAULT_KILL_GRACE_MS } from './defaults.js'
import type { LoopConfig, LoopPorts } from './types.js'

/**
 * Runs the ralph's commands and answers the prompt of iteration `iteration` (no history: no failures,
 * no diff, no progress yet). Throws RalphError with the reference's "Run crashed" reason when a command
 * cannot run, or when RALPH.md cannot be read.
 */
export async function previewPrompt(
  config: LoopConfig,
  iteration = 1,
  ports: Pick<LoopPorts, 'runProcess' | 'signal'> = {}
): Promise<string> {
  const logs = mkdtempSync(path.join(tmpdir(), 'ralph-preview-'))
  try {
    const commands = await runCommands(config.ralph.commands, {
      ralphDir: config.ralph.dir,
      workTree: config.projectRoot,
      userArgs: config.userArgs,
      iterationDir: logs,
      relative: file => path.relative(logs, file),
      outputCap: config.outputCap,
      killGraceMs: config.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
      signal: ports.signal ?? new AbortController().signal,
      runProcess: ports.runProcess ?? runProcess
    })
    if (commands.crash) throw new RalphError(commands.crash)
    if (commands.interrupted) throw new RalphError('Cancelled while the commands ran.')
    const state = { config, ralph: config.ralph, workTree: config.projectRoot, history: [] }
    return assemble(state, iteration, commands.outputs).prompt
  } finally {
    rmSync(logs, { recursive: true, force: true })
  }
}
