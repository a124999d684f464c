// The one set of Markdown helpers, below the engine (which writes progress.md with them): a code span and a
// fence no text can break out of, a table cell, and cutting to a length. Every renderer uses them: progress.md,
// the job summary, the PR body, the tracking comment, the hunt's issue, the replies and the prompt's blocks.

/** Cuts `text` to `max` characters, the last one an ellipsis. */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** One line for a table or a sentence: no pipes, no newlines (nor the spaces around them), cut to `max`. */
export function cell(text: string, max = 80): string {
  return cut(
    text
      .replace(/[ \t]*\r?\n\s*/g, ' ')
      .replace(/\|/g, '\\|')
      .trim(),
    max
  )
}

const longestRun = (text: string, char: '`' | '~'): number =>
  Math.max(0, ...[...text.matchAll(char === '`' ? /`+/g : /~+/g)].map(m => m[0].length))

/**
 * An inline code span that no run of backticks inside `text` can close: its delimiter is longer than the
 * longest run, padded with a space where the text holds or touches a backtick.
 */
export function code(text: string): string {
  const ticks = '`'.repeat(longestRun(text, '`') + 1)
  return ticks.length > 1 || text.startsWith('`') || text.endsWith('`')
    ? `${ticks} ${text} ${ticks}`
    : `${ticks}${text}${ticks}`
}

/** A name or a command inside a table or a sentence: one line, cut to `max`, as code. */
export const codeCell = (text: string, max = 120): string => code(cell(text, max))

/** A fenced block (of backticks, or tildes) longer than any run of the same mark inside `text`. */
export function fence(text: string, lang = '', mark: '`' | '~' = '`'): string {
  const marks = mark.repeat(Math.max(3, longestRun(text, mark) + 1))
  return `${marks}${lang}\n${text.replace(/\n+$/, '')}\n${marks}`
}

/** Keeps a body under `max` characters by cutting its middle (its first line, a marker, stays whole). */
export function fit(body: string, max: number, what = 'GitHub’s comment limit'): string {
  if (body.length <= max) return body
  const note = `\n\n_[… cut to fit ${what}]_\n\n`
  const head = Math.floor((max - note.length) * 0.6)
  const tail = max - note.length - head
  return body.slice(0, head) + note + body.slice(body.length - tail)
}
