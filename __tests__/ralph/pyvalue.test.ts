import { pyLstrip, pyRstrip, pyStrip } from '../../src/ralph/pystr.js'
import {
  PyOpaque,
  pyFloatRepr,
  pyFormatFixed1,
  pyRepr,
  pyStrRepr,
  pyTypeName
} from '../../src/ralph/pyvalue.js'
import { FIXED1, FLOAT_REPR, PY_STRIP, STR_REPR } from './fixtures/reference.js'

describe('Python whitespace', () => {
  test.each(PY_STRIP)('strip %j', (input, expected) => {
    expect(pyStrip(input)).toBe(expected)
  })

  test('\\x1c-\\x1f and \\x85 are whitespace, \\ufeff and zero-width space are not (unlike JS trim)', () => {
    expect(pyStrip('\x1c\x1d\x1e\x1f\x85a')).toBe('a')
    expect(pyStrip('\ufeffa')).toBe('\ufeffa')
    expect(pyStrip('\u200ba')).toBe('\u200ba')
  })

  test('lstrip and rstrip strip one side only', () => {
    expect(pyLstrip(' \ta \t')).toBe('a \t')
    expect(pyRstrip(' \ta \t')).toBe(' \ta')
  })

  test('a long run of inner whitespace is fast to strip', () => {
    const s = 'a' + ' '.repeat(200_000) + 'b'
    expect(pyStrip(s)).toBe(s)
  })
})

describe('Python repr', () => {
  test.each(STR_REPR)('repr of str %j', (input, expected) => {
    expect(pyStrRepr(input)).toBe(expected)
  })

  test.each(FLOAT_REPR)('repr of float %p', (input, expected) => {
    expect(pyFloatRepr(input)).toBe(expected)
  })

  test('special floats', () => {
    expect(pyFloatRepr(Infinity)).toBe('inf')
    expect(pyFloatRepr(-Infinity)).toBe('-inf')
    expect(pyFloatRepr(NaN)).toBe('nan')
    expect(pyFloatRepr(-0)).toBe('-0.0')
    expect(pyFloatRepr(3)).toBe('3.0')
  })

  test('int, bool, None, list, dict and opaque values', () => {
    expect(pyRepr(10n)).toBe('10')
    expect(pyRepr(-123456789012345678901234567890n)).toBe('-123456789012345678901234567890')
    expect(pyRepr(true)).toBe('True')
    expect(pyRepr(null)).toBe('None')
    expect(pyRepr([1n, 'a', [false, 1.5]])).toBe("[1, 'a', [False, 1.5]]")
    expect(pyRepr(new Map<string, bigint>([['a', 1n]]))).toBe("{'a': 1}")
    expect(pyRepr(new Map())).toBe('{}')
    expect(pyRepr(new PyOpaque('date', 'datetime.date(2024, 1, 1)'))).toBe('datetime.date(2024, 1, 1)')
  })

  test('a list that contains itself prints [...]', () => {
    const list: unknown[] = [1n]
    list.push(list)
    expect(pyRepr(list as never)).toBe('[1, [...]]')
  })

  test('type names', () => {
    expect([null, true, 1n, 1.5, 's', [], new Map()].map(v => pyTypeName(v))).toEqual([
      'NoneType',
      'bool',
      'int',
      'float',
      'str',
      'list',
      'dict'
    ])
    expect(pyTypeName(new PyOpaque('date', ''))).toBe('date')
  })
})

describe("Python '%.1f'", () => {
  test.each(FIXED1)('%p', (input, expected) => {
    expect(pyFormatFixed1(input)).toBe(expected)
  })

  test('an exact tie rounds to even, unlike toFixed', () => {
    expect((0.25).toFixed(1)).toBe('0.3')
    expect(pyFormatFixed1(0.25)).toBe('0.2')
    expect(pyFormatFixed1(0.75)).toBe('0.8')
  })
})
