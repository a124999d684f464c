// The `/ralph` comment grammar: first line only, tokenised without a shell, names and values checked.
import { parseTriggerEvent } from '../../src/trigger/event.js'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseRalphCommand, splitAtDoubleDash } from '../../src/trigger/grammar.js'
import { argsOf } from '../../src/ralph/installed.js'

describe('parseRalphCommand', () => {
  test('only a first line that starts with /ralph is a command', () => {
    expect(parseRalphCommand('/ralph')).toEqual({ kind: 'command', args: {}, freeText: '' })
    expect(parseRalphCommand('/ralph fix-tests\r\nmore')).toEqual({
      kind: 'command',
      name: 'fix-tests',
      args: {},
      freeText: 'more'
    })
    expect(parseRalphCommand('/Ralph docs')).toMatchObject({ kind: 'command', name: 'docs' })
    expect(parseRalphCommand('Could someone run\n/ralph fix-tests')).toEqual({ kind: 'none' })
    expect(parseRalphCommand('I think /ralph would help')).toEqual({ kind: 'none' })
    expect(parseRalphCommand('> /ralph fix-tests')).toEqual({ kind: 'none' })
    expect(parseRalphCommand('/ralphify')).toEqual({ kind: 'none' })
    expect(parseRalphCommand('`/ralph`')).toEqual({ kind: 'none' })
  })

  test.each([
    ['an empty first line', '\n/ralph fix'],
    ['a blank first line', '   \n/ralph fix'],
    ['a zero-width space', '\u200B\n/ralph fix'],
    ['a zero-width space before it', '\u200B/ralph fix'],
    ['a vertical tab', '\x0b\n/ralph fix'],
    ['an HTML comment line', '<!-- hi -->\n/ralph fix'],
    ['an HTML comment before it', '<!-- x -->/ralph fix'],
    ['an indent of one space', ' /ralph fix'],
    ['an indent that makes it code', '    /ralph fix'],
    ['a tab', '\t/ralph fix'],
    ['a BOM', '\uFEFF/ralph fix']
  ])('the first line must be the command: not after %s', (_what, body) => {
    expect(parseRalphCommand(body)).toEqual({ kind: 'none' })
  })

  test('--arg value and --arg=value, quoted values are one value each, free text after -- and below', () => {
    const parsed = parseRalphCommand(
      `/ralph fix-tests --focus "the parser" --limit=3 --quote 'it''s' -- only the "slow" ones\nAlso: check $(whoami)`
    )
    expect(parsed).toEqual({
      kind: 'command',
      name: 'fix-tests',
      args: { focus: 'the parser', limit: '3', quote: 'its' },
      freeText: 'only the "slow" ones\n\nAlso: check $(whoami)'
    })
    expect(parseRalphCommand('/ralph -- just text')).toEqual({
      kind: 'command',
      args: {},
      freeText: 'just text'
    })
    expect(parseRalphCommand('/ralph --focus "a -- b"')).toMatchObject({ args: { focus: 'a -- b' } })
    expect(parseRalphCommand('/ralph --n -5')).toMatchObject({ args: { n: '-5' } })
  })

  test('shell syntax stays literal data: nothing is expanded, substituted or split again', () => {
    const parsed = parseRalphCommand(
      '/ralph x --focus "$(touch pwned)" --b `id` --c "a; rm -rf /" --d "{{ commands.x }}"'
    )
    expect(parsed).toMatchObject({
      args: { focus: '$(touch pwned)', b: '`id`', c: 'a; rm -rf /', d: '{{ commands.x }}' }
    })
  })

  test.each([
    ['/ralph ../../etc', /is not a ralph name/],
    ['/ralph a/b', /is not a ralph name/],
    ['/ralph x --focus "unclosed', /close every quote/],
    ['/ralph x --focus', /needs a value/],
    ['/ralph x --focus --force', /needs a value/],
    ['/ralph x --focus=--force', /starts with -, so a command could read it as an option/],
    ['/ralph x --focus=-rf', /starts with -/],
    ['/ralph x --bad.name v', /is not an arg name/],
    ['/ralph x --task "do evil"', /is set by the action/],
    ['/ralph x --task_file /etc/passwd', /is set by the action/],
    ['/ralph x --a 1 --a 2', /is given twice/],
    ['/ralph x -f', /is not understood/],
    ['/ralph x stray words', /is not understood/]
  ])('%s is refused', (body, problem) => {
    const parsed = parseRalphCommand(body)
    expect(parsed.kind).toBe('invalid')
    expect(parsed.kind === 'invalid' && parsed.problem).toMatch(problem)
  })

  test('a value over 1000 characters is refused', () => {
    expect(parseRalphCommand(`/ralph x --v ${'a'.repeat(1001)}`)).toMatchObject({
      kind: 'invalid',
      problem: expect.stringMatching(/over 1000 characters/)
    })
  })

  test('a value cannot carry a newline: a quote opened on the first line is not closed by a later one', () => {
    expect(parseRalphCommand('/ralph x --focus "line one\nline two"')).toMatchObject({ kind: 'invalid' })
  })
})

test('splitAtDoubleDash finds the first stand-alone -- outside quotes', () => {
  expect(splitAtDoubleDash(' a --b -- c -- d')).toEqual([' a --b ', ' c -- d'])
  expect(splitAtDoubleDash(` "--" '--' \\-- x`)).toEqual([` "--" '--' \\-- x`, undefined])
  expect(splitAtDoubleDash('--')).toEqual(['', ''])
})

describe('parseTriggerEvent', () => {
  test('payloads become typed triggers, with the sender the payload names; what lacks its parts is unsupported', () => {
    expect(parseTriggerEvent('schedule', { schedule: '0 3 * * *' })).toEqual({
      name: 'schedule',
      schedule: '0 3 * * *'
    })
    expect(parseTriggerEvent('push', { ref: 'refs/heads/main', sender: { login: 'a' } })).toEqual({
      name: 'push',
      ref: 'refs/heads/main',
      deleted: false,
      sender: 'a',
      from: { login: 'a', type: '' }
    })
    expect(parseTriggerEvent('workflow_run', { sender: { login: 'renovate[bot]', type: 'Bot' } })).toEqual({
      name: 'unsupported',
      eventName: 'workflow_run',
      from: { login: 'renovate[bot]', type: 'Bot' }
    })
    expect(parseTriggerEvent('issue_comment', {})).toEqual({
      name: 'unsupported',
      eventName: 'issue_comment'
    })
    expect(parseTriggerEvent('workflow_run', {})).toEqual({ name: 'unsupported', eventName: 'workflow_run' })
    expect(parseTriggerEvent('issue_comment', null)).toEqual({
      name: 'unsupported',
      eventName: 'issue_comment'
    })
  })
})

describe('argsOf: the args a ralph reads', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-argsof-'))
  const ralphAt = (name: string, text: string): string => {
    mkdirSync(path.join(dir, name), { recursive: true })
    writeFileSync(path.join(dir, name, 'RALPH.md'), text)
    return path.join(dir, name)
  }
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('declared args, and placeholders in the prompt and the frontmatter, without the action’s own', () => {
    const ralph = ralphAt(
      'a',
      '---\nagent: x\nargs: [focus]\ncommands:\n  - name: c\n    run: echo {{ args.depth }}\n---\n' +
        'Do {{ args.area }} and {{ args.task }}.\n<!-- {{ args.hidden }} -->\n'
    )
    expect(argsOf(ralph, dir)?.sort()).toEqual(['area', 'depth', 'focus'])
    // By path relative to the project too.
    expect(argsOf('a/RALPH.md', dir)?.sort()).toEqual(['area', 'depth', 'focus'])
  })

  test('a ralph that is broken or missing answers undefined: the plan reports it', () => {
    expect(argsOf(ralphAt('b', '---\nagent: x\nargs: focus\n---\nx\n'), dir)).toBeUndefined()
    expect(argsOf(ralphAt('c', '---\nagent: [x\n---\nx\n'), dir)).toBeUndefined()
    expect(argsOf(path.join(dir, 'missing'), dir)).toBeUndefined()
  })
})
