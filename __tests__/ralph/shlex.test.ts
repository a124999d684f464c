import { ShlexError, shlexQuote, shlexSplit } from '../../src/ralph/shlex.js'
import { SHLEX_QUOTE, SHLEX_SPLIT } from './fixtures/reference.js'

describe('shlexSplit is Python shlex.split', () => {
  test.each(SHLEX_SPLIT)('split %j', (input, expected) => {
    if (Array.isArray(expected)) {
      expect(shlexSplit(input)).toEqual(expected)
    } else {
      expect(() => shlexSplit(input)).toThrow(new ShlexError(expected.error as 'No closing quotation'))
    }
  })

  test('an unclosed quote is "No closing quotation", a trailing backslash "No escaped character"', () => {
    expect(() => shlexSplit("claude 'oops")).toThrow('No closing quotation')
    expect(() => shlexSplit('claude \\')).toThrow('No escaped character')
    expect(() => shlexSplit('x')).not.toThrow()
  })

  test('the error is a ShlexError', () => {
    expect(() => shlexSplit('"')).toThrow(ShlexError)
  })

  test('an empty quoted token is kept, an empty word is not', () => {
    expect(shlexSplit("a '' b")).toEqual(['a', '', 'b'])
    expect(shlexSplit('   ')).toEqual([])
  })

  test('only space, tab, CR and LF separate words (a no-break space does not)', () => {
    expect(shlexSplit('a\u00a0b c')).toEqual(['a\u00a0b', 'c'])
  })

  test('pipes, $VAR, ~ and globs are plain characters', () => {
    expect(shlexSplit('echo $HOME ~ *.py | wc')).toEqual(['echo', '$HOME', '~', '*.py', '|', 'wc'])
  })

  test('inside double quotes a backslash escapes only " and \\', () => {
    expect(shlexSplit('"a\\"b" "c\\$d" "e\\\\f"')).toEqual(['a"b', 'c\\$d', 'e\\f'])
  })

  test('inside single quotes a backslash is literal', () => {
    expect(shlexSplit("'a\\b'")).toEqual(['a\\b'])
  })
})

describe('shlexQuote is Python shlex.quote', () => {
  test.each(SHLEX_QUOTE)('quote %j', (input, expected) => {
    expect(shlexQuote(input)).toBe(expected)
  })

  test('any value round-trips through quote then split as one token', () => {
    for (const value of ['', 'a b', "it's", '$(whoami)', 'a"b\'c', '\\', ' ; rm -rf / ', 'é ü', '\n']) {
      expect(shlexSplit(shlexQuote(value))).toEqual([value])
    }
  })
})
