// Python's shlex.split / shlex.quote, which the reference runtime uses for `agent:` and `run:` strings.
// A port of the state machine in CPython's shlex.read_token for posix=True, whitespace_split=True and no
// comment characters: only the behaviour, so that argv and error messages match the reference exactly.

/** Raised where Python's shlex raises ValueError; `message` is Python's text. */
export class ShlexError extends Error {
  constructor(message: 'No closing quotation' | 'No escaped character') {
    super(message)
    this.name = 'ShlexError'
  }
}

// shlex's whitespace is ASCII only: a non-breaking space is part of a word.
const WHITESPACE = ' \t\r\n'
const QUOTES = `'"`
const ESCAPE = '\\'
// Inside these quotes a backslash escapes (only the quote itself or a backslash, as in POSIX shells).
const ESCAPED_QUOTES = '"'

/** Python's `shlex.split(s)` (posix mode, comments off). Throws ShlexError like Python's ValueError. */
export function shlexSplit(s: string): string[] {
  const tokens: string[] = []
  let pos = 0
  // Between tokens ' ', inside a word 'a', inside quotes the quote char, after a backslash '\\'.
  let state = ' '
  while (state !== 'eof') {
    let token = ''
    let quoted = false
    let escapedState = ' '
    let done = false
    while (!done) {
      const ch = pos < s.length ? s[pos++] : ''
      if (state === ' ') {
        if (ch === '') {
          state = 'eof'
          done = true
        } else if (WHITESPACE.includes(ch)) {
          continue
        } else if (ch === ESCAPE) {
          escapedState = 'a'
          state = ch
        } else if (QUOTES.includes(ch)) {
          state = ch
        } else {
          token = ch
          state = 'a'
        }
      } else if (QUOTES.includes(state)) {
        quoted = true
        if (ch === '') throw new ShlexError('No closing quotation')
        if (ch === state) {
          state = 'a'
        } else if (ch === ESCAPE && ESCAPED_QUOTES.includes(state)) {
          escapedState = state
          state = ch
        } else {
          token += ch
        }
      } else if (state === ESCAPE) {
        if (ch === '') throw new ShlexError('No escaped character')
        if (QUOTES.includes(escapedState) && ch !== state && ch !== escapedState) token += state
        token += ch
        state = escapedState
      } else {
        // state 'a': inside a word
        if (ch === '') {
          state = 'eof'
          done = true
        } else if (WHITESPACE.includes(ch)) {
          state = ' '
          done = true
        } else if (QUOTES.includes(ch)) {
          state = ch
        } else if (ch === ESCAPE) {
          escapedState = 'a'
          state = ch
        } else {
          token += ch
        }
      }
    }
    // An empty token counts only if it was quoted ('' or "").
    if (token !== '' || quoted) tokens.push(token)
  }
  return tokens
}

// Python: re.compile(r'[^\w@%+=:,./-]', re.ASCII)
const UNSAFE = /[^\w@%+=:,./-]/

/** Python's `shlex.quote(s)`: `''` for empty, unchanged when only safe characters, else single-quoted. */
export function shlexQuote(s: string): string {
  if (s === '') return "''"
  if (!UNSAFE.test(s)) return s
  return "'" + s.replace(/'/g, `'"'"'`) + "'"
}
