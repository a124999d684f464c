import {
  normalizeNewlines,
  parseFrontmatter,
  readFrontmatter,
  splitFrontmatter
} from '../../src/ralph/frontmatter.js'
import { pyRepr } from '../../src/ralph/pyvalue.js'
import { promptTemplate } from '../../src/ralph/render.js'
import { RalphError } from '../../src/ralph/types.js'
import { PARSE } from './fixtures/reference.js'

function parseError(text: string): RalphError {
  try {
    parseFrontmatter('RALPH.md', text)
  } catch (error) {
    if (error instanceof RalphError) return error
    throw error
  }
  throw new Error('expected a RalphError')
}

const fm = (yaml: string): string => `---\n${yaml}\n---\nbody`
const repr = (yaml: string): string => pyRepr(parseFrontmatter('RALPH.md', fm(yaml)))

describe('frontmatter and body read like the reference (table from PyYAML + ralphify)', () => {
  test.each(PARSE)('%j', (text, expected) => {
    if ('fm' in expected) {
      expect(pyRepr(parseFrontmatter('RALPH.md', text))).toBe(expected.fm)
      expect(promptTemplate(text)).toBe(expected.body)
    } else if (expected.error === 'Invalid YAML') {
      expect(parseError(text).message).toMatch(/^RALPH\.md:\d+:\d+: Invalid YAML in frontmatter: /)
    } else {
      expect(parseError(text).message).toBe(expected.error)
    }
  })
})

describe('splitting', () => {
  test('the block opens on the first line and closes on the next --- line', () => {
    expect(splitFrontmatter('---\nagent: x\n---\nbody\nmore')).toEqual({
      yaml: 'agent: x',
      yamlStartLine: 2,
      body: 'body\nmore',
      bodyStartLine: 4
    })
  })

  test('trailing whitespace after --- is allowed, leading is not', () => {
    expect(splitFrontmatter('---  \nagent: x\n---\t\nb').yaml).toBe('agent: x')
    expect(splitFrontmatter(' ---\nagent: x\n---\nb').yaml).toBeNull()
  })

  test('an indented --- inside a block scalar does not close the block', () => {
    const text = '---\nagent: |\n  a\n  ---\n---\nbody'
    expect(splitFrontmatter(text).yaml).toBe('agent: |\n  a\n  ---')
    expect(pyRepr(parseFrontmatter('RALPH.md', text))).toBe("{'agent': 'a\\n---'}")
  })

  test('without a closing line the whole file is body and the frontmatter is empty', () => {
    const text = '---\nagent: x\nno close'
    expect(splitFrontmatter(text)).toEqual({ yaml: null, yamlStartLine: 0, body: text, bodyStartLine: 1 })
    expect(parseFrontmatter('RALPH.md', text).size).toBe(0)
    expect(promptTemplate(text)).toBe(text)
  })

  test('CRLF and lone CR become LF before anything else (Python universal newlines)', () => {
    expect(normalizeNewlines('a\r\nb\rc\n')).toBe('a\nb\nc\n')
    expect(splitFrontmatter('---\r\nagent: x\r\n---\r\nl1\r\nl2\r\n').body).toBe('l1\nl2\n')
    expect(splitFrontmatter('---\ragent: x\r---\rb').yaml).toBe('agent: x')
  })

  test('one leading BOM is dropped, a second one is text', () => {
    expect(splitFrontmatter('\ufeff---\nagent: x\n---\nb').yaml).toBe('agent: x')
    expect(splitFrontmatter('\ufeff\ufeff---\nagent: x\n---\nb').yaml).toBeNull()
  })

  test('an empty block is an empty mapping', () => {
    expect(parseFrontmatter('RALPH.md', '---\n---\nbody').size).toBe(0)
    expect(parseFrontmatter('RALPH.md', '---\n\n---\nbody').size).toBe(0)
    expect(parseFrontmatter('RALPH.md', '---\n# just a comment\n---\nbody').size).toBe(0)
    expect(parseFrontmatter('RALPH.md', '---\n~\n---\nbody').size).toBe(0)
  })
})

describe('YAML 1.1 scalars, as PyYAML resolves them', () => {
  test('credit: no is false (YAML 1.1), and so are off / NO / False', () => {
    for (const word of ['no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'False', 'FALSE']) {
      expect(repr(`credit: ${word}`)).toBe("{'credit': False}")
    }
    for (const word of ['yes', 'on', 'ON', 'true', 'True'])
      expect(repr(`credit: ${word}`)).toBe("{'credit': True}")
  })

  test('y, n and mixed case like tRUE are strings for PyYAML', () => {
    expect(repr('a: y')).toBe("{'a': 'y'}")
    expect(repr('a: n')).toBe("{'a': 'n'}")
    expect(repr('a: tRUE')).toBe("{'a': 'tRUE'}")
  })

  test('a quoted "no" is a string', () => {
    expect(repr('credit: "no"')).toBe("{'credit': 'no'}")
  })

  test('ints: octal with a leading 0, hex, binary, underscores, base 60', () => {
    expect(repr('a: 010')).toBe("{'a': 8}")
    expect(repr('a: 0x1F')).toBe("{'a': 31}")
    expect(repr('a: 0b101')).toBe("{'a': 5}")
    expect(repr('a: 1_000')).toBe("{'a': 1000}")
    expect(repr('a: 1:30')).toBe("{'a': 90}")
    expect(repr('a: 0o10')).toBe("{'a': '0o10'}")
  })

  test('floats need a dot; an exponent needs a sign: 1e3 and 1.0e3 are strings', () => {
    expect(repr('a: 1.5')).toBe("{'a': 1.5}")
    expect(repr('a: 1e3')).toBe("{'a': '1e3'}")
    expect(repr('a: 1.0e3')).toBe("{'a': '1.0e3'}")
    expect(repr('a: 1.0e+3')).toBe("{'a': 1000.0}")
    expect(repr('a: .5')).toBe("{'a': 0.5}")
    expect(repr('a: -.5')).toBe("{'a': '-.5'}")
    expect(repr('a: .inf')).toBe("{'a': inf}")
    expect(repr('a: .nan')).toBe("{'a': nan}")
  })

  test('null: ~, null, Null, NULL and empty', () => {
    expect(repr('a: ~\nb: null\nc:\nd: NULL')).toBe("{'a': None, 'b': None, 'c': None, 'd': None}")
  })

  test('dates are datetime.date', () => {
    expect(repr('a: 2024-01-01')).toBe("{'a': datetime.date(2024, 1, 1)}")
  })

  test('an int keeps its type apart from a float of the same value', () => {
    const data = parseFrontmatter('RALPH.md', fm('a: 1\nb: 1.0'))
    expect(data.get('a')).toBe(1n)
    expect(data.get('b')).toBe(1)
  })

  test('a duplicate key keeps the last value', () => {
    expect(repr('agent: claude\nagent: codex')).toBe("{'agent': 'codex'}")
  })

  test('merge keys: own keys win, earlier merges win', () => {
    expect(repr('b: &b {p: 1, q: 2}\nm:\n  <<: *b\n  q: 3')).toBe(
      "{'b': {'p': 1, 'q': 2}, 'm': {'p': 1, 'q': 3}}"
    )
  })

  test('a block scalar on the last YAML line has no final newline, as with PyYAML', () => {
    expect(repr('a: |\n  x')).toBe("{'a': 'x'}")
    expect(repr('a: |\n  x\nb: 1')).toBe("{'a': 'x\\n', 'b': 1}")
  })
})

describe('YAML errors', () => {
  test('a YAML error is one line: file, line and column in the real file, then the reason', () => {
    const error = parseError('---\nagent: claude\ncommands: [a\n---\nbody')
    expect(error.message).toMatch(/^RALPH\.md:3:\d+: Invalid YAML in frontmatter: \S.*$/)
    expect(error.message).not.toContain('\n')
    expect(error.exitCode).toBe(1)
    expect(error.problems).toEqual([
      expect.objectContaining({ file: 'RALPH.md', line: 3, message: expect.stringContaining('Invalid YAML') })
    ])
  })

  test('a tab used as indentation is an error on its line', () => {
    expect(parseError('---\na:\n\t- b\n---\nx').message).toMatch(
      /^RALPH\.md:3:1: Invalid YAML in frontmatter: /
    )
  })

  test('lines count from the top of the file, after a BOM and CRLF normalisation', () => {
    expect(parseError('\ufeff---\r\nok: 1\r\nbad: "x\r\n---\r\n').message).toMatch(/^RALPH\.md:3:/)
  })

  test('an unknown tag is an error, as with safe_load', () => {
    expect(parseError(fm('a: !foo bar')).message).toContain(
      "could not determine a constructor for the tag '!foo'"
    )
    expect(parseError(fm('a: !!python/object:os.system x')).message).toContain('could not determine')
  })

  test('a list as a key is an error (unhashable)', () => {
    expect(parseError(fm('? [a]\n: 1')).message).toContain('found unhashable key')
  })

  test('two documents are an error', () => {
    expect(parseError(fm('x: 1\n...\ny: 2')).message).toBe(
      'RALPH.md:4:1: Invalid YAML in frontmatter: expected a single document, but found another one (a "..." line?)'
    )
  })

  test('a value after a flow collection is an error, not a None key', () => {
    expect(parseError(fm('a: [x, y]: z')).message).toBe(
      'RALPH.md:2:10: Invalid YAML in frontmatter: mapping values are not allowed here'
    )
    expect(repr('? \n: c')).toBe("{None: 'c'}")
  })

  test('True, 1 and 1.0 are one key, spelled as first written (Python dict)', () => {
    expect(repr('1: a\ntrue: b\n1.0: c')).toBe("{1: 'c'}")
  })

  test('an anchor defined twice is an error, as with PyYAML', () => {
    expect(parseError(fm('a: &x 1\nb: &x 2')).message).toContain("found duplicate anchor 'x'")
    expect(repr('a: &x 1\nb: *x')).toBe("{'a': 1, 'b': 1}")
  })

  test.each([
    ['- a', 'list'],
    ["'text'", 'str'],
    ['12', 'int'],
    ['1.5', 'float'],
    ['true', 'bool'],
    ['2024-01-01', 'date'],
    ['!!binary aGk=', 'bytes'],
    ['!!set {a}', 'set']
  ])('a %s frontmatter is "Frontmatter must be a YAML mapping, got %s"', (yaml, type) => {
    const error = parseError(fm(yaml))
    expect(error.message).toBe(`Frontmatter must be a YAML mapping, got ${type}`)
    expect(error.problems[0]).toMatchObject({ line: 2 })
  })
})

describe('positions', () => {
  test('every value knows its line and column in RALPH.md', () => {
    const { data, positions } = readFrontmatter(
      'RALPH.md',
      '---\nagent: claude\ncommands:\n  - name: a\n    run: x\n    timeout: 0\n---\nbody'
    )
    expect(positions.entry(data, 'agent')).toEqual({
      key: { line: 2, column: 1 },
      value: { line: 2, column: 8 }
    })
    const commands = data.get('commands') as never as Map<string, unknown>[]
    expect(positions.item(commands as never, 0)).toEqual({ line: 4, column: 5 })
    expect(positions.entry(commands[0] as never, 'timeout').value).toEqual({ line: 6, column: 14 })
    expect(positions.of(commands as never)).toEqual({ line: 4, column: 3 })
  })
})
