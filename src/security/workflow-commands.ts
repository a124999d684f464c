// The Actions runner acts on two forms of workflow command in a step's stdout (actions/runner,
// ActionCommand.cs): `::name …::data` at the start of a line after leading white space, and the legacy
// `##[name …]data` anywhere in a line. It splits lines at \r as well as \n. Text the agent, a check or an issue
// wrote is not ours to turn into commands, with or without a stolen ::stop-commands:: token, so every such
// text passes through here before it reaches the log: each command form gets a zero-width space inside it.

const ZWSP = '\u200b'

// .NET's TrimStart removes every Char.IsWhiteSpace character: JavaScript's \s plus U+0085 (U+FEFF, which \s
// also holds, is not one of them, so this errs on the safe side).
const COMMAND_AT_LINE_START = /(^|[\r\n])([\s\u0085]*):(?=:)/g
const LEGACY_COMMAND = /##\[/g

/**
 * The text with every workflow command defused, and nothing else changed: a line that would start with
 * `::` becomes `:\u200b:…`, and every `##[` becomes `##\u200b[`. Feed it whole lines (or whole texts): a
 * command split across two calls is not seen.
 */
export function neutralizeWorkflowCommands(text: string): string {
  return text.replace(COMMAND_AT_LINE_START, `$1$2:${ZWSP}`).replace(LEGACY_COMMAND, `##${ZWSP}[`)
}
