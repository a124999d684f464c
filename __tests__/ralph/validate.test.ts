import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadRalph, validateRalph } from '../../src/ralph/validate.js'
import type { LoadOptions } from '../../src/ralph/validate.js'
import { RalphError } from '../../src/ralph/types.js'
import { which } from '../../src/ralph/which.js'
import { CONFIG } from './fixtures/reference.js'

let root: string
let file: string

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-validate-')))
  fs.mkdirSync(path.join(root, 'r'))
  fs.mkdirSync(path.join(root, 'bin'))
  fs.writeFileSync(path.join(root, 'agent.sh'), '#!/bin/sh\ncat\n', { mode: 0o755 })
  fs.writeFileSync(path.join(root, 'r', 'agent.sh'), '#!/bin/sh\n', { mode: 0o755 })
  fs.writeFileSync(path.join(root, 'bin', 'tool'), '#!/bin/sh\n', { mode: 0o755 })
  fs.writeFileSync(path.join(root, 'notexec'), 'x', { mode: 0o644 })
  file = path.join(root, 'r', 'RALPH.md')
  fs.writeFileSync(file, '---\nagent: cat\n---\nbody\n')
})

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true })
})

const ralphText = (frontmatter: string, body = 'Do {{ args.x }}'): string =>
  `---\n${frontmatter}\n---\n${body}`
const load = (frontmatter: string, opts: Partial<LoadOptions> = {}) =>
  loadRalph(file, { cwd: root, text: ralphText(frontmatter), ...opts })
const problems = (frontmatter: string, opts: Partial<LoadOptions> = {}) =>
  validateRalph(file, { cwd: root, text: ralphText(frontmatter), ...opts })
const errorOf = (fn: () => unknown): RalphError => {
  try {
    fn()
  } catch (error) {
    if (error instanceof RalphError) return error
    throw error
  }
  throw new Error('expected a RalphError')
}

describe('validation gives the reference verdict and first message (table from ralphify _build_run_config)', () => {
  test.each(CONFIG)('%j with args %j', (frontmatter, userArgs, expected) => {
    if ('exit' in expected) {
      const error = errorOf(() => load(frontmatter, { userArgs }))
      expect(error.message).toBe(expected.message)
      expect(error.exitCode).toBe(expected.exit)
      expect(problems(frontmatter, { userArgs })[0].message).toBe(expected.message)
    } else {
      const ralph = load(frontmatter, { userArgs })
      expect(ralph.agent).toBe(expected.agent)
      expect(ralph.commands.map(c => [c.name, c.run, c.timeout])).toEqual(expected.commands)
      expect({ ...ralph.argValues }).toEqual(expected.args)
      expect(ralph.credit).toBe(expected.credit)
      expect(problems(frontmatter, { userArgs })).toEqual([])
    }
  })
})

describe('the agent', () => {
  test('a valid ralph gives argv, folder, name and defaults', () => {
    const ralph = load("agent: cat -n 'a b'\nargs: [x]")
    expect(ralph).toMatchObject({
      file,
      dir: path.join(root, 'r'),
      name: 'r',
      agent: "cat -n 'a b'",
      agentArgv: ['cat', '-n', 'a b'],
      commands: [],
      args: ['x'],
      credit: true,
      checks: []
    })
    expect(ralph.completionTag).toBeUndefined()
    expect(ralph.guardrails).toBeUndefined()
  })

  test('agent: "" is missing', () => {
    expect(errorOf(() => load('agent: ""')).message).toBe(
      "Missing or empty 'agent' field in RALPH.md frontmatter."
    )
  })

  test('a relative ./agent is looked up from the project root, not the ralph folder', () => {
    expect(load('agent: ./agent.sh').agentArgv).toEqual(['./agent.sh'])
    expect(errorOf(() => load('agent: ./agent.sh', { cwd: path.join(root, 'bin') })).message).toBe(
      "Agent command './agent.sh' not found on PATH."
    )
  })

  test('PATH comes from the given env; an empty entry means the project root', () => {
    expect(load('agent: tool', { env: { PATH: path.join(root, 'bin') } }).agentArgv).toEqual(['tool'])
    expect(errorOf(() => load('agent: tool', { env: { PATH: '/nonexistent' } })).message).toBe(
      "Agent command 'tool' not found on PATH."
    )
    expect(load('agent: agent.sh', { env: { PATH: '/nonexistent::' } }).agent).toBe('agent.sh')
  })

  test('skipAgentLookup accepts an agent that is not installed yet', () => {
    expect(load('agent: not-installed-xyz', { skipAgentLookup: true }).agentArgv).toEqual([
      'not-installed-xyz'
    ])
  })
})

describe('which is shutil.which', () => {
  test('a file must exist, be executable and not be a folder', () => {
    expect(which('tool', { cwd: root, path: path.join(root, 'bin') })).toBe(path.join(root, 'bin', 'tool'))
    expect(which('notexec', { cwd: root, path: root })).toBeNull()
    expect(which('bin', { cwd: root, path: root })).toBeNull()
  })

  test('a name with a slash is checked as is, relative to cwd', () => {
    expect(which('bin/tool', { cwd: root, path: '' })).toBe('bin/tool')
    expect(which('./agent.sh', { cwd: root })).toBe('./agent.sh')
  })

  test('an empty PATH finds nothing; an unset one falls back to /bin:/usr/bin', () => {
    expect(which('sh', { cwd: root, path: '' })).toBeNull()
    expect(which('sh', { cwd: root })).toMatch(/^\/(usr\/)?bin\/sh$/)
  })
})

describe('commands', () => {
  test('timeouts default to 60 and keep int or float values', () => {
    const ralph = load('agent: cat\ncommands:\n  - {name: a, run: x}\n  - {name: b, run: y, timeout: 2.5}')
    expect(ralph.commands).toEqual([
      { name: 'a', run: 'x', timeout: 60 },
      { name: 'b', run: 'y', timeout: 2.5 }
    ])
  })

  test('commands: {} is not a list', () => {
    expect(errorOf(() => load('agent: cat\ncommands: {}')).message).toBe(
      "'commands' must be a list of {name, run} mappings."
    )
  })

  test('a name with a dot is rejected', () => {
    expect(errorOf(() => load('agent: cat\ncommands: [{name: git.log, run: x}]')).message).toBe(
      "Command name 'git.log' contains invalid characters. Names may only contain letters, digits, hyphens, and underscores."
    )
  })

  test('timeout: true is rejected with its Python repr', () => {
    expect(errorOf(() => load('agent: cat\ncommands: [{name: a, run: x, timeout: true}]')).message).toBe(
      "Command 'a' has invalid timeout: True. Must be a positive number."
    )
  })

  test('a quoted timeout "10" is rejected', () => {
    expect(errorOf(() => load("agent: cat\ncommands: [{name: a, run: x, timeout: '10'}]")).message).toBe(
      "Command 'a' has invalid timeout: '10'. Must be a positive number."
    )
  })
})

describe('args and credit', () => {
  test('args: [1] is rejected', () => {
    expect(errorOf(() => load('agent: cat\nargs: [1]')).message).toBe(
      "'args' items must be strings, got non-string value."
    )
  })

  test("credit: no is false (YAML 1.1), credit: 'no' is an error with its repr", () => {
    expect(load('agent: cat\ncredit: no').credit).toBe(false)
    expect(errorOf(() => load('agent: cat\ncredit: "no"')).message).toBe(
      "'credit' must be true or false, got 'no'."
    )
  })

  test('user args are parsed after args and before credit, with exit code 2', () => {
    const error = errorOf(() => load("agent: cat\nargs: [x]\ncredit: 'bad'", { userArgs: ['a', 'b'] }))
    expect(error.message).toBe('Too many positional arguments. Expected at most 1 (x).')
    expect(error.exitCode).toBe(2)
  })

  test('parsed user args come back on the ralph', () => {
    expect({ ...load('agent: cat\nargs: [x, y]', { userArgs: ['--y', '1', 'v'] }).argValues }).toEqual({
      x: 'v',
      y: '1'
    })
  })
})

describe('all problems at once, each at its line', () => {
  test('problems come in the reference order, the first one being what the reference reports', () => {
    const list = problems(
      [
        'agent: not-installed-xyz',
        'commands:',
        '  - name: a.b',
        '    run: x',
        '  - name: c',
        '    run: y',
        '    timeout: 0',
        'args: [ok, ok]',
        'credit: maybe'
      ].join('\n')
    )
    expect(list.map(p => [p.line, p.column, p.message])).toEqual([
      [2, 8, "Agent command 'not-installed-xyz' not found on PATH."],
      [
        4,
        11,
        "Command name 'a.b' contains invalid characters. Names may only contain letters, digits, hyphens, and underscores."
      ],
      [8, 14, "Command 'c' has invalid timeout: 0. Must be a positive number."],
      [9, 12, "Duplicate arg name 'ok'."],
      [10, 9, "'credit' must be true or false, got 'maybe'."]
    ])
    expect(list.every(p => p.file === file && p.exitCode === 1)).toBe(true)
    expect(errorOf(() => load('agent: not-installed-xyz\ncredit: maybe')).problems).toHaveLength(2)
  })

  test('a missing field has no position', () => {
    expect(problems('credit: true')).toEqual([
      {
        file,
        line: undefined,
        column: undefined,
        message: "Missing or empty 'agent' field in RALPH.md frontmatter.",
        exitCode: 1
      }
    ])
  })

  test('a YAML error is the only problem, with its position', () => {
    expect(problems('agent: [cat')).toEqual([expect.objectContaining({ file, line: 2, exitCode: 1 })])
    expect(errorOf(() => load('agent: [cat')).message).toMatch(
      new RegExp(`^${file}:2:\\d+: Invalid YAML in frontmatter: `)
    )
  })
})

describe('our additions (the reference ignores these keys)', () => {
  test('checks: a list of {name, run, timeout?} with a 600 s default', () => {
    const ralph = load(
      'agent: cat\nchecks:\n  - {name: tests, run: npm test}\n  - {name: lint, run: npm run lint, timeout: 30}'
    )
    expect(ralph.checks).toEqual([
      { name: 'tests', run: 'npm test', timeout: 600 },
      { name: 'lint', run: 'npm run lint', timeout: 30 }
    ])
  })

  test.each([
    [
      'checks: npm test',
      "'checks' must be a list of {name, run} mappings, e.g. checks: [{name: tests, run: npm test}]."
    ],
    [
      'checks: [{run: x}]',
      "Each check must have 'name' and 'run' fields, e.g. {name: tests, run: npm test}."
    ],
    ["checks: [{name: '', run: x}]", "Check 'name' must be a non-empty string."],
    ['checks: [{name: a, run: 5}]', "Check 'run' must be a non-empty string."],
    [
      'checks: [{name: unit tests, run: x}]',
      "Check name 'unit tests' contains invalid characters. Names may only contain letters, digits, hyphens, and underscores."
    ],
    [
      'checks: [{name: a, run: x}, {name: a, run: y}]',
      "Duplicate check name 'a'. Give each check its own name."
    ],
    [
      "checks: [{name: a, run: x, timeout: '5m'}]",
      "Check 'a' has invalid timeout: '5m'. Must be a positive number of seconds, e.g. timeout: 600."
    ],
    [
      'completion_tag: 5',
      "'completion_tag' must be a non-empty string on one line, got 5. Example: completion_tag: COMPLETE"
    ],
    [
      'protected: [none, docs]',
      "'protected': 'none' turns protection off and cannot be listed with other globs. Example: protected: [auto, docs/spec/**]"
    ],
    [
      'protected: 5',
      "'protected': it must be auto, none or a list of globs, got 5. Example: protected: [auto, docs/spec/**]"
    ],
    [
      'guardrails: [a]',
      "'guardrails' must be the path of a file (relative to the project root), got ['a']. Example: guardrails: .ralph/guardrails.md"
    ],
    [
      'setup: [npm ci, 3]',
      "'setup' must be a command or a list of commands, got ['npm ci', 3]. Example: setup: npm ci"
    ],
    [
      'verify: dirty',
      "'verify' must be clean or tree, got 'dirty'. Example: verify: clean (the gates pass again on a clean checkout of the commit before it is delivered)"
    ]
  ])('%s → %s', (frontmatter, message) => {
    expect(errorOf(() => load(`agent: cat\n${frontmatter}`)).message).toBe(message)
  })

  test('a check name may repeat a command name', () => {
    expect(
      load('agent: cat\ncommands: [{name: t, run: x}]\nchecks: [{name: t, run: y}]').checks
    ).toHaveLength(1)
  })

  test('protected is a known key: auto, none, or globs with auto among them', () => {
    expect(load('agent: cat\nprotected: none').protected).toEqual(['none'])
    expect(load("agent: cat\nprotected: [auto, 'docs/**']").protected).toEqual(['auto', 'docs/**'])
    expect(problems('agent: cat\nprotected: auto')).toEqual([])
    expect(load('agent: cat').protected).toBeUndefined()
  })

  test('setup is one command or a list; verify is clean or tree', () => {
    expect(load('agent: cat\nsetup: npm ci\nverify: tree')).toMatchObject({
      setup: ['npm ci'],
      verify: 'tree'
    })
    expect(load('agent: cat\nsetup: [npm ci, make]').setup).toEqual(['npm ci', 'make'])
    expect(load('agent: cat').setup).toBeUndefined()
  })

  test('completion_tag and guardrails are kept as written', () => {
    const ralph = load('agent: cat\ncompletion_tag: ALL DONE\nguardrails: .ralph/guardrails.md')
    expect(ralph.completionTag).toBe('ALL DONE')
    expect(ralph.guardrails).toBe('.ralph/guardrails.md')
  })

  test("our keys are checked after the reference's, so its first error still comes first", () => {
    expect(errorOf(() => load("checks: 5\ncredit: 'x'")).problems.map(p => p.message)).toEqual([
      "Missing or empty 'agent' field in RALPH.md frontmatter.",
      "'credit' must be true or false, got 'x'.",
      "'checks' must be a list of {name, run} mappings, e.g. checks: [{name: tests, run: npm test}]."
    ])
  })
})

describe('reading the file', () => {
  test('a folder means its RALPH.md', () => {
    expect(loadRalph(path.join(root, 'r'), { cwd: root }).file).toBe(file)
  })

  test('the file is read when no text is given, relative to cwd', () => {
    expect(loadRalph('r/RALPH.md', { cwd: root }).agent).toBe('cat')
  })

  test('a missing file says where it looked', () => {
    expect(errorOf(() => loadRalph(path.join(root, 'nope', 'RALPH.md'), { cwd: root })).message).toBe(
      `RALPH.md not found at '${path.join(root, 'nope', 'RALPH.md')}'.`
    )
  })

  test('a file that is not UTF-8 is refused, like Python read_text', () => {
    const bad = path.join(root, 'latin1.md')
    fs.writeFileSync(bad, Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xe9, 0x0a]))
    expect(errorOf(() => loadRalph(bad, { cwd: root })).message).toContain('not valid UTF-8')
  })

  test('the name is the basename of the resolved folder (a symlink gives its target name)', () => {
    const link = path.join(root, 'alias')
    fs.symlinkSync(path.join(root, 'r'), link)
    const ralph = loadRalph(path.join(link, 'RALPH.md'), { cwd: root })
    expect(ralph.name).toBe('r')
    expect(ralph.dir).toBe(path.join(root, 'r'))
  })
})
