import { parseUserArgs } from '../../src/ralph/args.js'
import { parseFrontmatter } from '../../src/ralph/frontmatter.js'
import {
  assemblePrompt,
  commandArgv,
  CREDIT_TRAILER,
  formatDuration,
  PLACEHOLDER_RE,
  promptTemplate,
  renderPlaceholders,
  resolveArgsInRun,
  runsFromRalphDir,
  timeoutMarker
} from '../../src/ralph/render.js'
import { ShlexError } from '../../src/ralph/shlex.js'
import { RalphError } from '../../src/ralph/types.js'
import type { PlaceholderValues } from '../../src/ralph/types.js'
import { DURATION, PROMPTS, RENDER, RENDER_VALUES, RUN_ARGS } from './fixtures/reference.js'

const values = (v: Partial<PlaceholderValues> = {}): PlaceholderValues => ({
  commands: {},
  args: {},
  ralph: {},
  ...v
})

describe('placeholders (table from ralphify resolve_all)', () => {
  test.each(RENDER)('%j', (template, expected) => {
    expect(renderPlaceholders(template, RENDER_VALUES)).toBe(expected)
  })
})

describe('placeholders', () => {
  test('a known kind with an unknown name becomes empty', () => {
    expect(renderPlaceholders('[{{ commands.nope }}{{ args.nope }}{{ ralph.nope }}]', values())).toBe('[]')
  })

  test('anything else stays literal', () => {
    const literal = '{{ env.X }} {{ foo.bar }} {{ commands }} {{ commands. }} {{ commands.a.b }} {% x %}'
    expect(renderPlaceholders(literal, values({ commands: { a: 'A' } }))).toBe(literal)
  })

  test('whitespace, tabs and newlines are allowed inside the braces; none around the dot', () => {
    const v = values({ commands: { a: 'A' } })
    expect(renderPlaceholders('{{commands.a}}|{{\n\tcommands.a \n}}', v)).toBe('A|A')
    expect(renderPlaceholders('{{ commands .a }}', v)).toBe('{{ commands .a }}')
  })

  test("Python's \\s counts \\x1c and \\x85 but not \\ufeff", () => {
    const v = values({ commands: { a: 'A' } })
    expect(renderPlaceholders('{{\x1ccommands.a\x85}}', v)).toBe('A')
    expect(renderPlaceholders('{{\ufeffcommands.a}}', v)).toBe('{{\ufeffcommands.a}}')
  })

  test('the kind is lowercase only and names are case-sensitive', () => {
    const v = values({ commands: { a: 'A' } })
    expect(renderPlaceholders('{{ Commands.a }}|{{ commands.A }}', v)).toBe('{{ Commands.a }}|')
  })

  test('substitution is single pass: inserted values are never scanned again', () => {
    const v = values({
      commands: { log: '{{ args.secret }}' },
      args: { secret: 'S', x: '{{ commands.log }}' }
    })
    expect(renderPlaceholders('{{ commands.log }} {{ args.x }}', v)).toBe(
      '{{ args.secret }} {{ commands.log }}'
    )
  })

  test('triple braces keep the outer ones', () => {
    expect(renderPlaceholders('{{{ args.a }}}', values({ args: { a: 'v' } }))).toBe('{v}')
  })

  test('names like __proto__ or constructor are just unknown names', () => {
    expect(renderPlaceholders('[{{ args.constructor }}{{ args.__proto__ }}]', values())).toBe('[]')
  })

  test('PLACEHOLDER_RE captures kind and name', () => {
    const match = new RegExp(PLACEHOLDER_RE.source).exec('x {{ commands.git-log }}')
    expect(match?.slice(1)).toEqual(['commands', 'git-log'])
  })
})

describe('args inside run strings', () => {
  test.each(RUN_ARGS)('%j with %j', (run, args, expected) => {
    expect(resolveArgsInRun(run, args)).toBe(expected)
  })

  test('a value with spaces, ; or $(…) becomes exactly one argv token', () => {
    const args = { v: 'a b; rm -rf / $(whoami) "q" \'s\'' }
    expect(commandArgv('echo {{ args.v }}', args)).toEqual(['echo', args.v])
  })

  test("a missing arg becomes nothing (no token), an empty value becomes ''", () => {
    expect(commandArgv('echo {{ args.missing }} x', {})).toEqual(['echo', 'x'])
    expect(commandArgv('echo {{ args.empty }} x', { empty: '' })).toEqual(['echo', '', 'x'])
  })

  test('a value glued to text stays one token', () => {
    expect(commandArgv('prefix-{{ args.x }}-suffix', { x: 'a b' })).toEqual(['prefix-a b-suffix'])
  })

  test("a placeholder inside double quotes with a ' in the value cannot be split", () => {
    expect(() => commandArgv('echo "p-{{ args.x }}"', { x: "it's" })).toThrow(ShlexError)
  })

  test('{{ commands.x }} and {{ ralph.x }} stay literal in run strings', () => {
    expect(resolveArgsInRun('echo {{ commands.a }} {{ ralph.name }}', {})).toBe(
      'echo {{ commands.a }} {{ ralph.name }}'
    )
  })

  test('a run string starting with ./ after leading whitespace runs from the ralph folder', () => {
    expect(runsFromRalphDir('./x.sh')).toBe(true)
    expect(runsFromRalphDir('  ./x.sh')).toBe(true)
    expect(runsFromRalphDir(resolveArgsInRun('{{ args.none }} ./x.sh', {}))).toBe(true)
    expect(runsFromRalphDir('../x.sh')).toBe(false)
    expect(runsFromRalphDir('scripts/x.sh')).toBe(false)
  })
})

describe('prompt assembly', () => {
  test('the credit trailer is exact and has no trailing newline', () => {
    expect(CREDIT_TRAILER).toBe(
      '\n\n---\n\nIMPORTANT: When you make any git commits, include the following trailer at the end of your ' +
        'commit message:\n\nCo-authored-by: Ralphify <noreply@ralphify.co>'
    )
  })

  test.each(PROMPTS.map(p => [JSON.stringify(p.ralph).slice(0, 70), p] as const))(
    'byte-identical to what ralphify piped to the agent: %s',
    (_label, p) => {
      const fm = parseFrontmatter('RALPH.md', p.ralph)
      const args = parseUserArgs(p.args, (fm.get('args') as string[] | undefined) ?? [])
      const credit = fm.get('credit') !== false
      const ralph = { name: p.name, iteration: '1', max_iterations: '1' }
      expect(assemblePrompt(p.ralph, { commands: p.commands, args, ralph }, credit)).toBe(p.prompt)
    }
  )

  test('body is stripped, comments removed, stripped again, then substituted', () => {
    const text = '---\nagent: x\n---\n\n  <!-- note -->\n  Hi {{ args.n }}  \n\n'
    expect(assemblePrompt(text, values({ args: { n: ' Bob ' } }), false)).toBe('Hi  Bob ')
  })

  test('a command placeholder at the very end keeps its trailing newlines', () => {
    const text = '---\nagent: x\n---\nstill runs\n{{ commands.c }}'
    expect(assemblePrompt(text, values({ commands: { c: 'out\n\n' } }), true)).toBe(
      'still runs\nout\n\n' + CREDIT_TRAILER
    )
  })

  test('an empty body with credit starts with the trailer; without credit it is empty', () => {
    expect(assemblePrompt('---\nagent: x\n---\n', values(), true)).toBe(CREDIT_TRAILER)
    expect(assemblePrompt('---\nagent: x\n---\n<!-- c -->', values(), false)).toBe('')
  })

  test('comments in command output reach the agent untouched', () => {
    const text = '---\nagent: x\n---\n{{ commands.c }}'
    expect(assemblePrompt(text, values({ commands: { c: '<!-- from output -->' } }), false)).toBe(
      '<!-- from output -->'
    )
  })

  test('broken YAML in the re-read file fails the iteration', () => {
    expect(() => assemblePrompt('---\nagent: [x\n---\nbody', values(), true, 'r/RALPH.md')).toThrow(
      RalphError
    )
  })

  test('an unchanged file is parsed once, a changed one again: broken YAML fails every time it is read', () => {
    const good = '---\nagent: x\n---\nHi {{ args.n }}'
    const broken = '---\nagent: [x\n---\nHi {{ args.n }}'
    const n = values({ args: { n: 'Bob' } })
    expect(assemblePrompt(good, n, false, 'r/RALPH.md')).toBe('Hi Bob')
    expect(assemblePrompt(good, n, false, 'r/RALPH.md')).toBe('Hi Bob')
    expect(() => assemblePrompt(broken, n, false, 'r/RALPH.md')).toThrow(/r\/RALPH\.md/)
    expect(() => assemblePrompt(broken, n, false, 'r/RALPH.md')).toThrow(RalphError)
    expect(assemblePrompt(good, n, false, 'r/RALPH.md')).toBe('Hi Bob')
    expect(() => assemblePrompt(broken, n, false, 'other/RALPH.md')).toThrow(/other\/RALPH\.md/)
    expect(assemblePrompt(`${good}!`, n, false, 'r/RALPH.md')).toBe('Hi Bob!')
  })

  test('promptTemplate gives the body a ralph would send, before substitution', () => {
    expect(promptTemplate('---\na: 1\n---\n  <!-- x -->{{ args.a }}  ')).toBe('{{ args.a }}')
  })
})

describe('durations', () => {
  test.each(DURATION)('format_duration(%p) is %j', (seconds, expected) => {
    expect(formatDuration(seconds)).toBe(expected)
  })

  test('the timeout marker uses an em dash and the formatted duration', () => {
    expect(timeoutMarker('slow', 60)).toBe(
      "\n\n[Command 'slow' timed out after 1m 0s — output may be incomplete]"
    )
    expect(timeoutMarker('x', 0.5)).toBe("\n\n[Command 'x' timed out after 0.5s — output may be incomplete]")
  })
})
