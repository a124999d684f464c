// Step: open — the agent's preset, the work tree, and the ralph's files pinned before anything else starts.
import { agentPresetFor, openWorkTree, type WorkTree } from '../setup.js'
import { pinRalphFiles } from '../assemble.js'
import type { AgentPreset } from '../../agents/types.js'
import type { RalphFiles } from '../environment.js'
import type { LoopConfig, LoopPorts } from '../types.js'
import { disposeQuietly } from './dispose.js'

export interface Opened extends WorkTree {
  preset: AgentPreset
  ralphFiles: RalphFiles
}

/** Throws RalphError for settings that cannot work, or a ralph file that leads out of the work tree. */
export async function openRun(config: LoopConfig, ports: LoopPorts, startedAt: number): Promise<Opened> {
  const preset = agentPresetFor(config)
  const opened = await openWorkTree(config, ports, startedAt)
  try {
    return { ...opened, preset, ralphFiles: pinRalphFiles(opened.ralph, opened.workTree) }
  } catch (error) {
    await disposeQuietly(opened.workspace)
    throw error
  }
}
