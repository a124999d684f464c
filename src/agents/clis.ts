// The agent CLIs ralph-action can install and has proven live: each one's npm package at the version the
// live tier tests (scripts/install-agent-clis.json, the one place to bump them), and the preset that reads it.
import pins from '../../scripts/install-agent-clis.json' with { type: 'json' }
import { programStem } from './argv.js'

export type AgentCliName = 'claude' | 'codex' | 'gemini' | 'opencode' | 'qwen'

export interface AgentCli {
  name: AgentCliName
  /** The npm package. */
  package: string
  /** The version the live tier tests. */
  version: string
  /** The program the package puts on PATH (the same as `name`). */
  bin: string
  /** The package's own script that links its native binary, run after an install with --ignore-scripts. */
  postinstall?: string
}

const PINS = pins.agents as Record<AgentCliName, { package: string; version: string; postinstall?: string }>

export const AGENT_CLIS: readonly AgentCli[] = (Object.keys(PINS) as AgentCliName[]).map(name => ({
  name,
  bin: name,
  ...PINS[name]
}))

/** The CLI called `name`, or undefined when ralph-action does not know it. */
export function agentCli(name: string): AgentCli | undefined {
  return AGENT_CLIS.find(cli => cli.name === name)
}

/** The known CLI an agent command line runs (`claude -p …` → claude), or undefined. */
export function agentCliOf(agentArgv: string[]): AgentCli | undefined {
  return agentCli(programStem(agentArgv[0]))
}
