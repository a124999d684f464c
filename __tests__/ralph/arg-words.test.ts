// An arg placeholder in a command is safe only as a word of its own: inside a larger word, above all inside
// the author's quotes, a value can change how the command is split (and a `bash -c` script becomes the
// value's). validate says so with the file, the line and the fix; the values are in the environment too.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { argEnvName, argsInsideWords, commandArgv, lintRalph } from '../../src/ralph/index.js'

describe('argsInsideWords', () => {
  test.each([
    ['node x.mjs {{ args.focus }}'],
    ['{{ args.focus }} --flag'],
    ['tool {{args.a}}\t{{ args.b }}'],
    ['tool "quoted text" {{ args.focus }} \'more\''],
    ['tool\n{{ args.focus }}\n']
  ])('a word of its own is fine: %j', run => {
    expect(argsInsideWords(run)).toEqual([])
  })

  test.each([
    ["bash -c 'echo {{ args.focus }}'", 'focus'],
    ['bash -c "echo {{ args.focus }}"', 'focus'],
    ['tool "{{ args.focus }}"', 'focus'],
    ["tool '{{ args.focus }}'", 'focus'],
    ['tool --focus={{ args.focus }}', 'focus'],
    ['tool prefix-{{ args.focus }}', 'focus'],
    ['tool {{ args.focus }}-suffix', 'focus'],
    ['tool {{ args.a }}{{ args.b }}', 'a'],
    ['tool \\ {{ args.focus }}', 'focus'],
    ["tool 'a'{{ args.focus }}", 'focus'],
    ['tool {{ args.focus }}"x"', 'focus']
  ])('inside a larger word is found: %j', (run, name) => {
    expect(argsInsideWords(run).map(a => a.name)[0]).toBe(name)
  })

  test("the break it prevents: a value that closes the author's quotes becomes its own words of a script", () => {
    const value = `x"; touch pwned; echo "`
    // The reference's resolution: the value, shell-quoted, pasted inside the author's single quotes, which
    // it closes and reopens: bash gets a script of three commands.
    expect(commandArgv("bash -c 'echo {{ args.focus }}'", { focus: value })).toEqual([
      'bash',
      '-c',
      'echo x; touch pwned; echo '
    ])
    // As a word of its own, the value is one argument, whatever it holds.
    expect(commandArgv('node x.mjs {{ args.focus }}', { focus: value })).toEqual(['node', 'x.mjs', value])
  })

  test('the environment variable of an arg', () => {
    expect(argEnvName('focus')).toBe('RALPH_ARG_FOCUS')
    expect(argEnvName('max-depth')).toBe('RALPH_ARG_MAX_DEPTH')
  })
})

test('lintRalph warns with the line of the run and the fix, and the ralph stays valid (as in the reference)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-argwords-'))
  try {
    const file = path.join(dir, 'RALPH.md')
    writeFileSync(
      file,
      [
        '---',
        'agent: node',
        'args: [focus]',
        'commands:',
        '  - name: ok',
        '    run: node x.mjs {{ args.focus }}',
        '  - name: c2',
        `    run: "bash -c 'echo {{ args.focus }}'"`,
        '---',
        'Focus {{ args.focus }}',
        ''
      ].join('\n')
    )
    const { problems, warnings } = lintRalph(file, { cwd: dir, skipAgentLookup: true })
    expect(problems).toEqual([])
    expect(warnings).toEqual([
      expect.objectContaining({
        file,
        line: 8,
        message: expect.stringMatching(
          /^Command 'c2' puts \{\{ args\.focus \}\} inside a larger word of its run, .* Make it a word of its own, or read \$RALPH_ARG_FOCUS in a script\.$/
        )
      })
    ])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
