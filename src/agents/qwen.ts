// qwen-code (`qwen`) with `--output-format stream-json` (added unless the user chose a format). Its stream has
// Claude Code's shape (system/init, assistant with per-turn usage, user tool results, a last `result`), as
// qwen 0.24.4 prints it against a Chat Completions server, but no dollars: the tokens are priced from the
// table, turn by turn, so a dollar cap can stop a run mid-way. The loop's turn cap goes in as
// `--max-session-turns`.
import { hasOption, optionValue, programStem } from './argv.js'
import { ClaudeStreamReader } from './claude.js'
import { genericReader } from './generic.js'
import type { AgentCaps, AgentPreset } from './types.js'

const FORMAT = ['--output-format', '-o']

export const isQwenCommand = (argv: string[]): boolean => programStem(argv[0]) === 'qwen'

/** The output format the user chose, if any. */
export const qwenFormat = (argv: string[]): string | undefined => optionValue(argv, FORMAT)

export function qwenArgv(userArgv: string[], caps: AgentCaps = {}): string[] {
  const argv = hasOption(userArgv, FORMAT) ? [...userArgv] : [...userArgv, '--output-format', 'stream-json']
  if (caps.maxTurns !== undefined && !hasOption(userArgv, ['--max-session-turns']))
    argv.push('--max-session-turns', String(caps.maxTurns))
  return argv
}

/** qwen with its stream-json (added unless the user chose a format). */
export const qwenPreset: AgentPreset = {
  name: 'qwen',
  jsonStream: true,
  argv: (userArgv, caps) => qwenArgv(userArgv, caps),
  read: (_prompt, hooks) => new ClaudeStreamReader(hooks, 'qwen')
}

/** qwen run exactly as written with text output: read as plain text. */
export const qwenPlainPreset: AgentPreset = {
  name: 'qwen',
  jsonStream: false,
  argv: userArgv => [...userArgv],
  read: prompt => genericReader(prompt)
}
