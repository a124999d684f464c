// JSON from another job is read with its nesting bounded before anything walks it.
import { parseBoundedJson } from '../../src/text/json.js'

const nested = (depth: number, open = '[', close = ']'): string => open.repeat(depth) + close.repeat(depth)

test.each([
  ['64 levels of arrays', nested(64), true],
  ['65 levels of arrays', nested(65), false],
  ['65 levels of objects and arrays', `${'{"a":['.repeat(32)}{}${']}'.repeat(32)}`, false],
  ['brackets inside a string do not count', JSON.stringify({ text: '[[[['.repeat(100) }), true],
  ['an escaped quote does not end the string', JSON.stringify({ text: `\\"${'['.repeat(100)}` }), true],
  ['a backslash at the end of a string', JSON.stringify({ a: '\\', b: [[1]] }), true],
  ['deep siblings, each shallow', `[${Array.from({ length: 1000 }, () => nested(10)).join(',')}]`, true]
])('%s: read %s', (_what, text, read) => {
  if (read) expect(parseBoundedJson(text)).toEqual(JSON.parse(text))
  else expect(() => parseBoundedJson(text)).toThrow('it is nested deeper than 64 levels')
})

test('a manifest nested 200,000 levels deep is refused in one line, not a stack overflow', () => {
  const deep = `{"version":1,"notes":${nested(200_000)}}`
  expect(() => parseBoundedJson(deep)).toThrow(/^it is nested deeper than 64 levels$/)
  // What the bound spares: walking what JSON.parse accepts.
  expect(() => JSON.stringify(JSON.parse(deep))).toThrow(RangeError)
})
