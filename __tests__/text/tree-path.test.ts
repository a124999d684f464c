// A path of the work tree is bytes: the string the action holds for one must turn back into exactly those
// bytes, keep two names apart whenever their bytes differ, and show in a log line without a `�` standing for
// what is not on disk.
import { randomBytes } from 'node:crypto'
import { onDisk, pathBytes, pathFromBytes, showPath, splitNul } from '../../src/text/tree-path.js'

const bytes = (...parts: (string | number[])[]): Buffer =>
  Buffer.concat(parts.map(p => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))))

test('any bytes turn into a path string and back into the same bytes', () => {
  for (let i = 0; i < 2000; i++) {
    const b = randomBytes(1 + (i % 40))
    expect(pathBytes(pathFromBytes(b)).equals(b)).toBe(true)
  }
  // The cases a decoder gets wrong: a cut sequence, an overlong, an encoded surrogate, past U+10FFFF, a lone lead.
  for (const b of [
    [0x63, 0x61, 0x66, 0xe9],
    [0xe2, 0x82],
    [0xc0, 0xaf],
    [0xed, 0xb2, 0x80],
    [0xf4, 0x90, 0x80, 0x80],
    [0xff, 0xfe, 0x2f, 0xc3, 0xa9]
  ])
    expect([...pathBytes(pathFromBytes(Buffer.from(b)))]).toEqual(b)
})

test('names whose bytes differ are different strings, even where a UTF-8 decoder gives both the same `�`', () => {
  const names = [
    bytes('caf', [0xe9]),
    bytes('caf', [0xe8]),
    bytes('caf\u00e9'),
    bytes('caf\ufffd'),
    bytes('cafe')
  ]
  const strings = names.map(pathFromBytes)
  expect(new Set(strings).size).toBe(names.length)
  expect(names.map(n => n.toString('utf8'))).toContain(names[1].toString('utf8'))
  expect(names[0].toString('utf8')).toBe(names[1].toString('utf8'))
})

test('UTF-8 names are their text: nothing changes for them', () => {
  expect(pathFromBytes(bytes('tests/café/日本.test.js'))).toBe('tests/café/日本.test.js')
  expect(pathBytes('tests/café/日本.test.js').toString('utf8')).toBe('tests/café/日本.test.js')
})

test("git's -z output splits into exact path strings, UTF-8 or not", () => {
  const out = bytes('? a\0', '? caf', [0xe9], '/\0', 'C b', [0xff], '.bin\0')
  const records = splitNul(out)
  expect(records).toHaveLength(3)
  expect(records.map(r => [...pathBytes(r)])).toEqual([
    [...bytes('? a')],
    [...bytes('? caf', [0xe9], '/')],
    [...bytes('C b', [0xff], '.bin')]
  ])
  expect(splitNul(bytes('a\0b\0'))).toEqual(['a', 'b'])
})

test('a path on disk is the top folder and the name, byte for byte', () => {
  expect([...onDisk('/w', pathFromBytes(bytes('d/caf', [0xe9])))]).toEqual([...bytes('/w/d/caf', [0xe9])])
  expect(onDisk('/w', '').toString()).toBe('/w')
})

test('a log line shows a name as it is when it is printable UTF-8, else quoted with C escapes as git does', () => {
  expect(showPath('src/café.js')).toBe('src/café.js')
  expect(showPath(pathFromBytes(bytes('caf', [0xe9], '/.git')))).toBe('"caf\\xe9/.git"')
  expect(showPath(pathFromBytes(bytes('big', [0xff], '.bin')))).toBe('"big\\xff.bin"')
  expect(showPath('a\nb')).toBe('"a\\nb"')
  expect(showPath('say "hi"\\')).toBe('"say \\"hi\\"\\\\"')
  // A bidi override would reorder the line it is shown in.
  expect(showPath('x\u202ey')).toBe('"x\\u{202e}y"')
  // What is shown never holds the replacement character for a byte that is not it.
  expect(showPath(pathFromBytes(bytes([0xe9])))).not.toContain('\ufffd')
  expect(showPath('caf\ufffd')).toBe('caf\ufffd')
})
