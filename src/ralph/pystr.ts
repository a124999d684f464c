// Python's notion of whitespace, which the reference runtime uses in str.strip() and in `\s` of its regexes.
// It differs from JavaScript's: Python counts \x1c-\x1f and \x85 as whitespace, JavaScript counts \ufeff.

/** The characters for which Python's `str.isspace()` is true (identical to `\s` in a Python str regex). */
export const PY_WHITESPACE =
  '\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000'

/** Python's `\s` as the body of a JavaScript character class, for building regexes. */
export const PY_WS_CLASS =
  '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000'

const WHITESPACE_CODES = new Set(Array.from(PY_WHITESPACE, c => c.charCodeAt(0)))

/** Python's `c.isspace()` for one UTF-16 code unit (no whitespace lies outside the BMP). */
export function isPySpace(code: number): boolean {
  return WHITESPACE_CODES.has(code)
}

/** Python's `s.strip()`. */
export function pyStrip(s: string): string {
  return pyRstrip(pyLstrip(s))
}

/** Python's `s.lstrip()`. */
export function pyLstrip(s: string): string {
  let start = 0
  while (start < s.length && isPySpace(s.charCodeAt(start))) start++
  return s.slice(start)
}

/** Python's `s.rstrip()`. */
export function pyRstrip(s: string): string {
  let end = s.length
  while (end > 0 && isPySpace(s.charCodeAt(end - 1))) end--
  return s.slice(0, end)
}
