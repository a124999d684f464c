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

/** Characters of one line held back at most before they are let out (a line may never end). */
const MAX_HELD = 64 * 1024

/**
 * neutralizeWorkflowCommands for a stream of chunks: a command split across chunks is caught too. Complete
 * lines go out at once; the start of a line waits for its end (or for `flush()`, or MAX_HELD characters).
 */
export class WorkflowCommandFilter {
  private held = ''
  /** Whether what was let out of the current line so far is white space only (a `::` there would count). */
  private lineBlank = true

  /** The text of `chunk` that can go out now, neutralized. */
  push(chunk: string): string {
    this.held += chunk
    const end = Math.max(this.held.lastIndexOf('\n'), this.held.lastIndexOf('\r'))
    if (end >= 0) {
      const out = this.release(this.held.slice(0, end + 1))
      this.held = this.held.slice(end + 1)
      this.lineBlank = true
      return out
    }
    // A line that does not end: let out all but its last two characters (they may start `##[` or `::`).
    if (this.held.length <= MAX_HELD) return ''
    const out = this.release(this.held.slice(0, -2))
    this.held = this.held.slice(-2)
    return out
  }

  /**
   * Everything held back, neutralized: call before writing anything else to the log, and at the end. The
   * caller ends the line if it was not ended: what is pushed next starts a new one.
   */
  flush(): string {
    const out = this.release(this.held)
    this.held = ''
    this.lineBlank = true
    return out
  }

  private release(text: string): string {
    if (text === '') return ''
    // The middle of a line that already has text: a `::` in it is not at the line's start.
    const out = this.lineBlank
      ? neutralizeWorkflowCommands(text)
      : neutralizeWorkflowCommands(`x${text}`).slice(1)
    const lastBreak = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'))
    const tail = lastBreak >= 0 ? text.slice(lastBreak + 1) : text
    this.lineBlank = (lastBreak >= 0 || this.lineBlank) && /^[\s\u0085]*$/.test(tail)
    return out
  }
}
