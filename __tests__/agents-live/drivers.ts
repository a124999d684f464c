// How the live tier drives each of the five CLIs the same way: the scripted server it talks to (its wire,
// from the product's AGENT_WIRE), the agent command a user would write in RALPH.md, the model turn that runs a
// shell command, and what the record should say of its cost.
import { AGENT_WIRE } from '../../src/agents/endpoints.js'
import { priceFromTable } from '../../src/agents/prices.js'
import type { CostSource } from '../../src/loop/types.js'
import { agentBin, liveSetup, TEST_MODELS, type AgentName } from '../support/agents.js'
import {
  claudeBash,
  codexExec,
  startAnthropicServer,
  startChatServer,
  startGeminiServer,
  startResponsesServer,
  toolCall,
  type ModelServerOptions,
  type ScriptedServer,
  type ToolOptions,
  type TurnSource
} from '../support/model-server/index.js'

export interface LiveDriver {
  name: AgentName
  /** The scripted server for the CLI's wire. */
  startServer(options: ModelServerOptions): Promise<ScriptedServer>
  /** The agent command as written in RALPH.md (the preset adds its output flags); `extra` goes at its end. */
  agent(extra?: string): string
  /** The same with the bare program name, found on PATH (as after install-agent). */
  command: string
  /** The environment that points the CLI at `serverUrl` only (files written under `home`). */
  env(serverUrl: string, home: string): Record<string, string>
  /** A model turn that runs `command` through the CLI's shell tool. */
  shell(command: string, options?: ToolOptions): TurnSource
  /** The tool name the transcript shows for a shell call. */
  shellTool: string
  /** How the record knows the cost: the CLI's own dollars, or its tokens priced from the table. */
  costSource: Exclude<CostSource, 'unknown'>
  /** The last line the transcript (agent.log) ends a successful run with. */
  closingLine: RegExp
  /** Requests the CLI makes per run besides its turns (opencode asks for a title first). */
  sideRequests: number
}

const servers = {
  'anthropic-messages': startAnthropicServer,
  'openai-responses': startResponsesServer,
  gemini: startGeminiServer,
  'openai-chat': startChatServer
} as const

function driver(
  name: AgentName,
  spec: Omit<LiveDriver, 'name' | 'startServer' | 'env' | 'agent' | 'command'> & { args: string }
): LiveDriver {
  const { args, ...rest } = spec
  return {
    name,
    startServer: options => servers[AGENT_WIRE[name]](options),
    agent: (extra = '') => `${agentBin(name)} ${args}${extra}`,
    command: `${name} ${args}`,
    env: (serverUrl, home) => {
      const setup = liveSetup(name, serverUrl, home)
      return setup.env as Record<string, string>
    },
    ...rest
  }
}

const shellCall = (tool: string) => (command: string, options?: ToolOptions) =>
  toolCall(tool, { command, description: 'Run a scripted command' }, options)

/** The five CLIs, each pinned in scripts/install-agent-clis.json. */
export const DRIVERS: LiveDriver[] = [
  driver('claude', {
    // acceptEdits plus Bash: files under the working directory and the shell, as root too.
    args: `-p --model ${TEST_MODELS.claude} --permission-mode acceptEdits --allowedTools Bash`,
    shell: claudeBash,
    shellTool: 'Bash',
    costSource: 'reported',
    closingLine: /^\[result\] success · \$\d+\.\d{4} · \d+ turns$/,
    sideRequests: 0
  }),
  driver('codex', {
    args:
      'exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox ' +
      '-c check_for_update_on_startup=false -c analytics.enabled=false -c feedback.enabled=false -c web_search=disabled ' +
      '--disable plugins --disable apps -',
    shell: codexExec,
    shellTool: 'exec',
    costSource: 'estimated',
    closingLine: /^\[turn completed\] \d+ input · \d+ output tokens$/,
    sideRequests: 0
  }),
  driver('gemini', {
    args: '-y',
    shell: shellCall('run_shell_command'),
    shellTool: 'run_shell_command',
    costSource: 'estimated',
    closingLine: /^\[result\] success · \d+ tool calls$/,
    sideRequests: 0
  }),
  driver('opencode', {
    // --pure: no plugins fetched from the npm registry at run time.
    args: 'run --pure',
    shell: shellCall('bash'),
    shellTool: 'bash',
    costSource: 'reported',
    closingLine: /^\[done\] \d+ steps · \$\d+\.\d{4}$/,
    sideRequests: 1
  }),
  driver('qwen', {
    args: '-y',
    shell: shellCall('run_shell_command'),
    shellTool: 'run_shell_command',
    costSource: 'estimated',
    closingLine: /^\[result\] success · \d+ turns$/,
    sideRequests: 0
  })
]

/** Dollars for tokens of `name`'s test model at the price table's rates (what every CLI's cost comes to). */
export function tableCost(name: AgentName, tokens: { input: number; output: number }): number {
  const usd = priceFromTable({ ...tokens, cache_read: 0, cache_write: 0, model: TEST_MODELS[name] })
  if (usd === undefined) throw new Error(`${TEST_MODELS[name]} is not in the price table`)
  return usd
}
