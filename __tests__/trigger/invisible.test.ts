// Issue #35: text a reader cannot see never reaches the agent. The invisible-character rule is Unicode's own
// properties, so it is checked here against every code point of the tables this Node ships: each one
// Default_Ignorable_Code_Point, unassigned (Cn), a variation selector, a format character (Cf) or a control
// is refused on a `/ralph` command line and removed from issue text; the characters a reader sees stay.
import { parseRalphCommand } from '../../src/trigger/grammar.js'
import { composeTask, hiddenOnCommandLine, sanitizeText } from '../../src/trigger/sanitize.js'

const ALL = { maxChars: Number.MAX_SAFE_INTEGER }
const hex = (point: number): string => `U+${point.toString(16).toUpperCase().padStart(4, '0')}`

/** Every code point (no surrogate halves: they are not characters) for which `test` holds. */
function codePoints(test: (ch: string) => boolean): number[] {
  const found: number[] = []
  for (let point = 0; point <= 0x10ffff; point++) {
    if (point >= 0xd800 && point <= 0xdfff) continue
    if (test(String.fromCodePoint(point))) found.push(point)
  }
  return found
}

// Derived from Node's own tables, property by property. \r and U+0085 are line breaks to a reader: they
// become \n (tested in sanitize.test.ts), and end the command line.
const PROPERTIES = [
  /\p{Default_Ignorable_Code_Point}/u,
  /\p{Cn}/u,
  /\p{Variation_Selector}/u,
  /\p{Cf}/u,
  /\p{Cc}/u
]
const INVISIBLE = codePoints(
  ch => ch !== '\t' && ch !== '\n' && ch !== '\r' && ch !== '\u0085' && PROPERTIES.some(p => p.test(ch))
)
const INVISIBLE_SET = new Set(INVISIBLE)

/**
 * The code points of `points` for which `sanitizeText` of the character between two letters is not
 * `expected(character)`. In chunks: one call checks thousands; only a chunk that differs is searched.
 */
function differing(points: number[], expected: (ch: string) => string): number[] {
  const found: number[] = []
  for (let i = 0; i < points.length; i += 2048) {
    const chunk = points.slice(i, i + 2048)
    const text = chunk.map(p => `a${String.fromCodePoint(p)}`).join('')
    if (sanitizeText(text, ALL) === chunk.map(p => `a${expected(String.fromCodePoint(p))}`).join('')) continue
    for (const p of chunk) {
      const ch = String.fromCodePoint(p)
      if (sanitizeText(`a${ch}b`, ALL) !== `a${expected(ch)}b`) found.push(p)
    }
  }
  return found
}

// The list: each of these passed before.
const LISTED = [
  0x17b4,
  0x17b5,
  0x180b,
  0x180c,
  0x180d,
  0x180f,
  0x2065,
  ...Array.from({ length: 9 }, (_, i) => 0xfff0 + i),
  ...codePoints(ch => /\p{Cn}/u.test(ch)).filter(p => p >= 0xe0000 && p <= 0xe0fff)
]

describe('the invisible-character rule against the Unicode tables', () => {
  test("the tables hold what the issue lists, and the set is Node's, not a hand-made list", () => {
    expect(process.versions.unicode).toMatch(/^\d+\.\d+$/)
    expect(LISTED.length).toBeGreaterThan(3000)
    const missing = LISTED.filter(p => !INVISIBLE_SET.has(p)).map(hex)
    expect(missing).toEqual([])
  })

  test('every such code point is removed from issue text, alone or in a run', () => {
    expect(differing(INVISIBLE, () => '').map(hex)).toEqual([])
    // In a run too (variation selectors in a row encode bytes), and through the task as the agent gets it.
    const run = LISTED.map(p => String.fromCodePoint(p)).join('')
    expect(sanitizeText(`pay${run}ment`, ALL)).toBe('payment')
    const task = composeTask({ title: `Fix${run} it`, body: `Steps${run}:\n1. save${run}` })
    expect(task).toBe('## Fix it\n\nSteps:\n1. save')
  })

  test('every such code point on a /ralph command line is refused, naming it', () => {
    // All of them outside planes 3 to 13 (the listed ones among them), and every 61st of those 700,000 alike.
    const lines = INVISIBLE.filter(p => p < 0x30000 || p > 0xdffff || p % 61 === 0)
    expect(lines.length).toBeGreaterThan(100000)
    const passed = lines.filter(
      p => hiddenOnCommandLine(`/ralph echo --focus a${String.fromCodePoint(p)}b`) === undefined
    )
    expect(passed.map(hex)).toEqual([])
    for (const p of LISTED.slice(0, 20).concat(LISTED.slice(-3)))
      expect(parseRalphCommand(`/ralph echo -- fix ${String.fromCodePoint(p)}it`)).toEqual({
        kind: 'invalid',
        problem: expect.stringContaining(`an invisible or bidi character (${hex(p)})`)
      })
  })

  test('written as character references, they are removed too', () => {
    const refs = LISTED.filter((_, i) => i % 97 === 0 || i < 16)
      .map(p => `&#x${p.toString(16)};`)
      .join('')
    expect(sanitizeText(`a${refs}b`, ALL)).toBe('ab')
    expect(parseRalphCommand(`/ralph echo --focus a&#x180F;b`)).toEqual({
      kind: 'invalid',
      problem: expect.stringContaining('a character reference to an invisible character')
    })
  })

  test('what a reader sees stays: every assigned letter, digit, mark-free symbol and punctuation outside ASCII', () => {
    const visible = codePoints(
      ch =>
        /[\p{L}\p{N}\p{S}\p{Pd}\p{Ps}\p{Pe}\p{Po}]/u.test(ch) &&
        !PROPERTIES.some(p => p.test(ch)) &&
        ch > '\x7f'
    )
    expect(visible.length).toBeGreaterThan(100000)
    // NFC may give a character another code point (Å for Å): compare with what NFC makes of it.
    expect(differing(visible, ch => ch.normalize('NFC')).map(hex)).toEqual([])
  })

  test('one presentation selector straight after an assigned pictograph is drawn, so it stays; any other goes', () => {
    expect(sanitizeText('❤️ stays, ❤︎ too')).toBe('❤️ stays, ❤︎ too')
    expect(sanitizeText('❤\uFE0F\uFE0F\uFE0E')).toBe('❤\uFE0F')
    expect(sanitizeText('a\uFE0Fb\uFE0Ec')).toBe('abc')
    // A pictograph's code point not assigned yet is not drawn: neither it nor its selector stays.
    expect(sanitizeText('x\u{1FC00}\uFE0Fy')).toBe('xy')
    expect(parseRalphCommand('/ralph echo -- thanks ❤️')).toMatchObject({
      kind: 'command',
      freeText: 'thanks ❤️'
    })
    expect(parseRalphCommand('/ralph echo -- thanks a\uFE0F')).toMatchObject({ kind: 'invalid' })
  })
})
