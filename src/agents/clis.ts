// The agent CLIs ralph-action can install and has proven live: each one's npm package at the version the
// live tier tests (scripts/install-agent-clis.json, the one place to bump them), and the preset that reads it.
import path from 'node:path'
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
  /** Programs the package ships without their x bit (qwen's vendored rg), relative to the package. */
  executables?: string[]
}

const PINS = pins.agents as Record<
  AgentCliName,
  { package: string; version: string; postinstall?: string; executables?: string[] }
>

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

/** The command that installs the known CLI an agent command line runs, at its tested version, or undefined. */
export function npmInstallOf(agentArgv: string[]): string | undefined {
  const cli = agentCliOf(agentArgv)
  return cli && `npm install -g ${cli.package}@${cli.version}`
}

/**
 * Where a CLI reads its own settings: `home`, a path under HOME (and the copy's); `variable`, a variable that
 * moves it (its value is the place), read only where it is set when `onlyVariable`; `config`, the place lies
 * under $XDG_CONFIG_HOME when that is set.
 */
interface SettingsPlace {
  home: string
  variable?: string
  onlyVariable?: true
  config?: true
}

/** What each CLI reads at start-up besides its environment (the agent's user gets a copy of these only). */
const SETTINGS: Record<AgentCliName, SettingsPlace[]> = {
  claude: [{ home: '.claude', variable: 'CLAUDE_CONFIG_DIR' }, { home: '.claude.json' }],
  codex: [{ home: '.codex', variable: 'CODEX_HOME' }],
  gemini: [{ home: '.gemini' }],
  opencode: [
    { home: '.config/opencode', config: true },
    { home: '.config/opencode-config/opencode.json', variable: 'OPENCODE_CONFIG', onlyVariable: true }
  ],
  qwen: [{ home: '.qwen' }]
}

/** A settings file or folder of the runner's, and where its copy goes in the agent's HOME. */
export interface AgentSettings {
  from: string
  /** Relative to the agent's HOME. */
  to: string
  /** The variable that named `from`: the agent's names the copy. */
  variable?: string
}

/**
 * The settings the CLI an agent command runs reads, as the runner's user has them (`env` is the environment
 * the agent would get as that user: its HOME, XDG_CONFIG_HOME, CODEX_HOME…). Empty for a CLI we do not know.
 */
export function agentSettings(agentArgv: string[], env: NodeJS.ProcessEnv): AgentSettings[] {
  const cli = agentCliOf(agentArgv)
  const home = env.HOME
  if (!cli || !home) return []
  const found: AgentSettings[] = []
  for (const place of SETTINGS[cli.name]) {
    const moved = place.variable ? env[place.variable] : undefined
    if (moved) found.push({ from: path.resolve(moved), to: place.home, variable: place.variable! })
    else if (place.onlyVariable) continue
    else if (place.config && env.XDG_CONFIG_HOME)
      found.push({
        from: path.join(env.XDG_CONFIG_HOME, path.relative('.config', place.home)),
        to: place.home
      })
    else found.push({ from: path.join(home, place.home), to: place.home })
  }
  return found
}
