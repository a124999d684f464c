// The Actions runner acts on two forms of workflow command in a step's stdout (actions/runner,
// ActionCommand.cs): `::name …::data` at the start of a line after leading white space, and the legacy
// `##[name …]data` anywhere in a line. It splits lines at \r as well as \n. Its log viewer acts on terminal
// escape sequences too: ANSI colours (a green "✓ gate passed" painted by the agent) and OSC 8 hyperlinks (a
// link whose target is not the text shown). Text the agent, a check or an issue wrote is not ours to turn into
// commands or paint, with or without a stolen ::stop-commands:: token, so every such text passes through here
// before it reaches the log: each command form gets a zero-width space inside it, and each control character
// is shown as a visible one.

const ZWSP = '\u200b'

// .NET's TrimStart removes every Char.IsWhiteSpace character: JavaScript's \s plus U+0085 (U+FEFF, which \s
// also holds, is not one of them, so this errs on the safe side).
const COMMAND_AT_LINE_START = /(^|[\r\n])([\s\u0085]*):(?=:)/g
const LEGACY_COMMAND = /##\[/g
// Every control character (Unicode's Cc: C0, DEL and C1) but tab and the line breaks: ESC and CSI start every
// ANSI and OSC sequence, BEL and ST end one, and a terminal view reads the rest as controls too.
const CONTROL = /(?![\t\n\r])\p{Cc}/gu

/** A control as a visible character: its Unicode control picture (ESC is ␛), or � for a C1 control (none has one). */
const picture = (control: string): string => {
  const code = control.charCodeAt(0)
  return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? '\u2421' : '\ufffd'
}

/** The text with every control character but tab, \n and \r shown as a visible one: no escape sequence is left. */
export function neutralizeTerminalControls(text: string): string {
  return text.replace(CONTROL, picture)
}

/**
 * The text with every workflow command defused and every terminal control made visible, and nothing else
 * changed: a line that would start with `::` becomes `:\u200b:…`, every `##[` becomes `##\u200b[`, and ESC
 * becomes ␛. Feed it whole lines (or whole texts): a command split across two calls is not seen.
 */
export function neutralizeWorkflowCommands(text: string): string {
  return neutralizeTerminalControls(text)
    .replace(COMMAND_AT_LINE_START, `$1$2:${ZWSP}`)
    .replace(LEGACY_COMMAND, `##${ZWSP}[`)
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

/** What a write of `chunk` in `encoding` puts in the log, as text. */
const logText = (chunk: string | Uint8Array, encoding: unknown): string =>
  typeof chunk !== 'string'
    ? Buffer.from(chunk).toString('utf8')
    : typeof encoding === 'string' && !/^utf-?8$/i.test(encoding)
      ? Buffer.from(chunk, encoding as BufferEncoding).toString('utf8')
      : chunk

/**
 * Makes every write to `stream` (the step's stdout or stderr: the job log) go through
 * neutralizeTerminalControls, whoever writes it: a file name in a warning, an error's message or a check's
 * output in an annotation can carry the agent's text into any line, and no line of ours needs a control.
 */
export function guardJobLog(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (chunk: string, encoding: 'utf8', callback?: unknown) => boolean
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean =>
    write(
      neutralizeTerminalControls(logText(chunk, rest[0])),
      'utf8',
      rest.find(arg => typeof arg === 'function')
    )) as typeof stream.write
}
