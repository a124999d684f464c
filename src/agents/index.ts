// Agent presets: recognised by the agent command's program name; anything else is generic.
import { claudePreset, isClaudeCommand } from './claude.js'
import { genericPreset } from './generic.js'
import type { AgentPreset } from './types.js'

export { claudePreset, isClaudeCommand, CLAUDE_STREAM_FLAGS } from './claude.js'
export { genericPreset, finalMessageFromOutput } from './generic.js'
export { LineSplitter } from './lines.js'
export type { AgentOutcome, AgentPreset, AgentRunHooks, AgentRunReader, UsageReport } from './types.js'

/** The preset for an agent command line; with presets off every agent is generic (argv untouched). */
export function presetFor(agentArgv: string[], options: { presets: boolean }): AgentPreset {
  if (options.presets && isClaudeCommand(agentArgv[0])) return claudePreset
  return genericPreset
}
