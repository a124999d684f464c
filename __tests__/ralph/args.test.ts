import { parseUserArgs } from '../../src/ralph/args.js'
import { RalphError } from '../../src/ralph/types.js'
import { USER_ARGS } from './fixtures/reference.js'

describe('user args (table from ralphify _parse_user_args)', () => {
  test.each(USER_ARGS)('%j declared %j', (tokens, declared, expected) => {
    if ('bad' in expected && typeof expected.bad === 'string' && Object.keys(expected).length === 1) {
      expect(() => parseUserArgs(tokens, declared ?? [])).toThrow(new RalphError(expected.bad, 2))
    } else {
      expect({ ...parseUserArgs(tokens, declared ?? []) }).toEqual(expected)
    }
  })
})

describe('user args', () => {
  const errorOf = (fn: () => unknown): RalphError => {
    try {
      fn()
    } catch (error) {
      if (error instanceof RalphError) return error
    }
    throw new Error('expected a RalphError')
  }

  test('--name value and --name=value work without declaring args; the value may be empty', () => {
    expect({ ...parseUserArgs(['--a', '1', '--b=2', '--c='], []) }).toEqual({ a: '1', b: '2', c: '' })
  })

  test('a flag without a value is a usage error (exit 2)', () => {
    const error = errorOf(() => parseUserArgs(['--x'], []))
    expect(error.message).toBe("Flag '--x' requires a value.")
    expect(error.exitCode).toBe(2)
  })

  test('positional args fill declared names in order, skipping names set by flags', () => {
    expect({ ...parseUserArgs(['--a', '1', 'x'], ['a', 'b']) }).toEqual({ a: '1', b: 'x' })
  })

  test('a positional arg without declared args names the fix', () => {
    expect(errorOf(() => parseUserArgs(['v'], [])).message).toBe(
      "Positional argument 'v' requires args declared in RALPH.md frontmatter. " +
        "Use --name value syntax or add 'args: [...]' to your RALPH.md."
    )
  })

  test('too many positional args lists the declared names', () => {
    expect(errorOf(() => parseUserArgs(['1', '2', '3'], ['a', 'b'])).message).toBe(
      'Too many positional arguments. Expected at most 2 (a, b).'
    )
  })

  test('-- ends flag parsing: later --x tokens are positional values', () => {
    expect({ ...parseUserArgs(['--', '--verbose', 'x'], ['p', 'q']) }).toEqual({ p: '--verbose', q: 'x' })
  })

  test('single-dash tokens are values', () => {
    expect({ ...parseUserArgs(['-x'], ['a']) }).toEqual({ a: '-x' })
  })

  test('a flag name with a dot is rejected with the reference message', () => {
    expect(errorOf(() => parseUserArgs(['--a.b', '1'], [])).message).toBe(
      "Arg name 'a.b' contains invalid characters. Names may only contain letters, digits, hyphens, and underscores."
    )
  })

  test('an arg called __proto__ is an ordinary arg', () => {
    const parsed = parseUserArgs(['--__proto__', 'x'], [])
    expect(Object.keys(parsed)).toEqual(['__proto__'])
    expect(parsed['__proto__']).toBe('x')
  })
})
