import { combineOutput, decodeCaptured, translateNewlines } from '../../src/proc/text.js'
import type { Captured } from '../../src/proc/types.js'

const whole = (bytes: Buffer): Captured => ({
  head: bytes,
  tail: Buffer.alloc(0),
  totalBytes: bytes.length,
  truncated: false
})
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s/g, ''), 'hex')

describe('decodeCaptured', () => {
  // Expected strings come from CPython 3.11: bytes.decode('utf-8', 'replace').
  test.each([
    ['a stray 0xff', 'ff', '\ufffd'],
    ['a byte between letters', '61ff62', 'a\ufffdb'],
    ['a truncated 3-byte sequence at the end', 'e282', '\ufffd'],
    ['a truncated sequence before ASCII', 'e28261', '\ufffda'],
    ['an overlong slash', 'c0af', '\ufffd\ufffd'],
    ['a 3-byte overlong', 'e080af', '\ufffd\ufffd\ufffd'],
    ['a UTF-16 surrogate', 'eda080', '\ufffd\ufffd\ufffd'],
    ['a code point above U+10FFFF', 'f4908080', '\ufffd\ufffd\ufffd\ufffd'],
    ['a truncated 4-byte sequence', 'f09f98', '\ufffd'],
    ['lone continuation bytes', '8080', '\ufffd\ufffd'],
    ['a lead byte followed by a valid character', 'c2c2a9', '\ufffd\u00a9'],
    ['a 5-byte form', 'f888808080', '\ufffd\ufffd\ufffd\ufffd\ufffd'],
    ['a broken 4-byte sequence', 'f09080ff', '\ufffd\ufffd'],
    ['valid text', 'f09f9880e282acc3a9', '\u{1f600}\u20ac\u00e9'],
    ["a BOM (kept, as Python's utf-8 codec keeps it)", 'efbbbf616263', '\ufeffabc']
  ])('replaces invalid UTF-8 like Python: %s', (_name, bytes, expected) => {
    expect(decodeCaptured(whole(hex(bytes)))).toBe(expected)
  })

  test('translates newlines like Python text mode when asked', () => {
    const c = whole(Buffer.from('a\r\nb\rc\r\r\nd\n'))
    expect(decodeCaptured(c)).toBe('a\r\nb\rc\r\r\nd\n')
    expect(decodeCaptured(c, { translateNewlines: true })).toBe('a\nb\nc\n\nd\n')
  })

  test('puts a marker with the dropped byte count between head and tail', () => {
    const c: Captured = {
      head: Buffer.from('abc'),
      tail: Buffer.from('xyz'),
      totalBytes: 10,
      truncated: true
    }
    expect(decodeCaptured(c, { truncationMarker: n => `<${n}>` })).toBe('abc<4>xyz')
    expect(decodeCaptured(c)).toBe('abc\n[... 4 bytes omitted ...]\nxyz')
  })

  test('a character split by the cut shows no replacement characters', () => {
    // "é€😀" cut inside the euro sign (head) and inside the emoji (tail).
    const c: Captured = { head: hex('c3a9 e282'), tail: hex('9880 21'), totalBytes: 20, truncated: true }
    expect(decodeCaptured(c, { truncationMarker: n => `<${n}>` })).toBe('é<17>!')
  })

  test('invalid bytes next to the cut are still replaced as Python would', () => {
    // 0xff is no beginning of a character; e0 80 can never become one (overlong).
    const c: Captured = { head: hex('61 e080'), tail: hex('62 ff'), totalBytes: 9, truncated: true }
    expect(decodeCaptured(c, { truncationMarker: () => '|' })).toBe('a\ufffd\ufffd|b\ufffd')
  })

  test('translates newlines in each part of a truncated capture', () => {
    const c: Captured = {
      head: Buffer.from('a\r\n'),
      tail: Buffer.from('\rb\r\n'),
      totalBytes: 9,
      truncated: true
    }
    expect(decodeCaptured(c, { translateNewlines: true, truncationMarker: () => '|' })).toBe('a\n|\nb\n')
  })
})

describe('translateNewlines', () => {
  test('does \\r\\n first, then a lone \\r', () => {
    expect(translateNewlines('a\r\nb\rc')).toBe('a\nb\nc')
    expect(translateNewlines('\r\r\n\n')).toBe('\n\n\n')
  })
})

describe('combineOutput', () => {
  test('puts stdout before stderr with a newline between when stdout lacks one', () => {
    expect(combineOutput('out', 'err')).toBe('out\nerr')
    expect(combineOutput('out\n', 'err')).toBe('out\nerr')
  })

  test('adds nothing when either side is empty, and trims nothing', () => {
    expect(combineOutput('', 'err\n\n')).toBe('err\n\n')
    expect(combineOutput('out', '')).toBe('out')
    expect(combineOutput('out\n\n', '')).toBe('out\n\n')
    expect(combineOutput('', '')).toBe('')
  })
})
