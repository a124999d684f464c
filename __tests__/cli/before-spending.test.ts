// Say no before spending: every program a run would start is looked for before the first agent run, a
// mistake on the command line is named as it was typed, and errors have one style and one exit-code rule.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { CLI, cli, project, recordOf } from './helpers.js'

/** An agent that leaves a mark when it runs: the proof that nothing was spent. */
const markingAgent = { 'agent.sh': '#!/bin/bash\ncat >/dev/null\necho ran >> agent-ran\n' }
const agentRan = (dir: string): boolean => existsSync(path.join(dir, 'agent-ran'))

describe('every program is looked for before the first agent run', () => {
  test('a --check whose program is missing: one line naming it, exit 1, the agent never runs', () => {
    const dir = project({ ...markingAgent, 'r/RALPH.md': '---\nagent: ./agent.sh\n---\nx\n' })
    const r = cli(dir, 'run', 'r', '-n', '3', '--record-dir', recordOf(dir), '--check', 'no-such-tool --run')
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      "Error: Check 'no-such-tool --run' cannot run: 'no-such-tool' is not on PATH. Install it, or fix the check.\n"
    )
    expect(agentRan(dir)).toBe(false)
    expect(existsSync(recordOf(dir))).toBe(false)
  })

  test("a ralph's check and command programs are named at their line, by run and by validate", () => {
    const ralph =
      '---\nagent: ./agent.sh\ncommands:\n  - name: notes\n    run: no-such-notes-tool --all\nchecks:\n' +
      '  - name: lint\n    run: CI=1 npm --version && no-such-linter .\n---\nx\n'
    const dir = project({ ...markingAgent, 'r/RALPH.md': ralph })
    const run = cli(dir, 'run', 'r', '-n', '1', '--record-dir', recordOf(dir))
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(
      "Error: r/RALPH.md:5:10: Command 'notes' binary not found: 'no-such-notes-tool --all'. Check the 'commands' field in your RALPH.md frontmatter.\n"
    )
    expect(agentRan(dir)).toBe(false)
    const validate = cli(dir, 'validate', 'r')
    expect(validate.code).toBe(1)
    expect(validate.stderr.split('\n')).toEqual([
      "r/RALPH.md:5:10: Command 'notes' binary not found: 'no-such-notes-tool --all'. Check the 'commands' field in your RALPH.md frontmatter.",
      "r/RALPH.md:8:10: Check 'lint' cannot run: 'no-such-linter' is not on PATH (its command: CI=1 npm --version && no-such-linter .). Install it, or fix the check.",
      '2 problems in r/RALPH.md.',
      ''
    ])
  })

  test('builtins, keywords, expansions and paths the agent may yet write are not refused', () => {
    const ralph =
      '---\nagent: ./agent.sh\nchecks:\n' +
      "  - { name: a, run: 'test -f agent-ran' }\n" +
      "  - { name: b, run: 'if [ -f agent-ran ]; then true; fi' }\n" +
      "  - { name: c, run: './written-later.sh || true' }\n" +
      '  - { name: d, run: \'echo "$(cat agent-ran)" > /dev/null\' }\n' +
      "  - { name: e, run: 'cd . && FOO=1 true' }\n" +
      '---\nx\n'
    const dir = project({ ...markingAgent, 'r/RALPH.md': ralph })
    expect(cli(dir, 'validate', 'r')).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^r\/RALPH\.md: OK\n/)
    })
    const r = cli(dir, 'run', 'r', '-n', '1', '--completion-tag', '', '--record-dir', recordOf(dir))
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(agentRan(dir)).toBe(true)
  })

  test('loop --agent with a missing program: one line, no RALPH.md in it, said once, exit 1', () => {
    const dir = project({})
    const r = cli(dir, 'loop', 'Do it.', '--agent', 'missing-agent-xyz --flag', '--record-dir', recordOf(dir))
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe("Error: Agent command 'missing-agent-xyz' not found on PATH.\n")
  })
})

describe('an arg the ralph never reads', () => {
  test('a typo of one of our options is a usage error, exit 2, before anything runs: unbounded, it would spend', () => {
    const dir = project({ 'r/RALPH.md': '---\nagent: cat\n---\nFocus: {{ args.focus }}\n' })
    const r = cli(dir, 'run', 'r', '--max-iteration', '2', '--focus', 'tests', '--record-dir', recordOf(dir))
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      "Error: No such option: --max-iteration (did you mean --max-iterations?). r declares no arg of that name either.\nTry 'ralph-action run --help' for help.\n"
    )
    expect(r.stdout).toBe('')
  })

  test('unless the ralph declares an arg of that name: then it is the ralph’s', () => {
    const dir = project({
      'r/RALPH.md': '---\nagent: cat\nargs: [max-iteration]\n---\nCap: {{ args.max-iteration }}\n'
    })
    const r = cli(dir, 'run', 'r', '--max-iteration', '2', '-n', '1', '--record-dir', recordOf(dir))
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
  })

  test('an arg near none of our options is named in a warning; the run goes on', () => {
    const dir = project({ 'r/RALPH.md': '---\nagent: cat\n---\nFocus: {{ args.focus }}\n' })
    const r = cli(
      dir,
      'run',
      'r',
      '--shade',
      'blue',
      '--focus',
      'tests',
      '-n',
      '1',
      '--record-dir',
      recordOf(dir)
    )
    expect(r.code).toBe(0)
    expect(r.stderr).toBe(
      'Warning: --shade is not an option of run, and r never reads {{ args.shade }}: it is ignored.\n'
    )
    expect(r.stdout).toContain('Done: 1 iteration — 1 ran\n')
  })

  test('without -n the banner says no iteration cap applies', () => {
    const dir = project(
      { 'r/RALPH.md': '---\nagent: cat\nchecks:\n  - name: ok\n    run: "true"\n---\nx\n' },
      true
    )
    const r = cli(dir, 'run', 'r', '--record-dir', recordOf(dir))
    expect(r.stdout).toContain('▶ Running: r\n  no iteration cap (-n N sets one)\n')
  })

  test("--max-iterations is run's long name for -n", () => {
    const dir = project({ 'r/RALPH.md': '---\nagent: cat\n---\nx\n' })
    const r = cli(dir, 'run', 'r', '--max-iterations', '2', '--record-dir', recordOf(dir))
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain('Stopped: max_iterations — reached the cap of 2 iterations\n')
  })
})

describe('one error style, one exit-code rule', () => {
  const ralph = { 'r/RALPH.md': '---\nagent: cat\n---\nx\n' }

  test.each([
    [['--max-iterations', 'abc'], "Invalid value for '--max-iterations': 'abc' is not a valid integer."],
    [['--max-iterations', '-1'], "'--max-iterations' must be a positive integer, got -1."],
    [['-n', '0'], "'-n' must be a positive integer, got 0."],
    [['--max-time', 'soon'], "Invalid value for '--max-time': 'soon' is not a positive duration"]
  ])('a bad value on the command line (%j) is a usage error: exit 2, named as typed', (args, message) => {
    const dir = project(ralph)
    const r = cli(dir, 'run', 'r', ...args)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(
      new RegExp(
        `^Error: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*\nTry 'ralph-action run --help' for help\\.\n$`
      )
    )
  })

  test('loop names the option as typed too', () => {
    const r = cli(project({}), 'loop', 'x', '--agent', 'cat', '--max-iterations', '-1')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("Error: '--max-iterations' must be a positive integer, got -1.\n")
  })

  test('a problem with a file is exit 1, with its file and line: a frontmatter that is a list', () => {
    const dir = project({ 'r/RALPH.md': '---\n- agent: cat\n---\nx\n' })
    const r = cli(dir, 'run', 'r')
    expect(r.code).toBe(1)
    expect(r.stderr).toBe('Error: r/RALPH.md:2:1: Frontmatter must be a YAML mapping, got list\n')
  })

  test('--worktree outside git names --worktree', () => {
    const r = cli(project({}), 'loop', 'x', '--agent', 'cat', '--worktree')
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(
      /^Error: --worktree needs a git repository, and .+ is not in one: .*leave --worktree out\.\n$/
    )
  })

  test('a missing spec file is said in words, not ENOENT', () => {
    const dir = project({})
    const r = cli(dir, 'loop', '--spec', 'SPEC.md', '--agent', 'cat')
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      `Error: Cannot read the spec file ${path.join(dir, 'SPEC.md')}: no such file or folder.\n`
    )
  })
})

describe('--max-time takes units', () => {
  test.each([
    ['90s', 90],
    ['2m', 120],
    ['1h', 3600],
    ['45', 45]
  ])('%s is %i seconds (a bare number is seconds, as on the CLI before)', (given, seconds) => {
    const dir = project({ 'r/RALPH.md': '---\nagent: cat\n---\nx\n' })
    const record = recordOf(dir)
    const r = cli(dir, 'run', 'r', '-n', '1', '--max-time', given, '--record-dir', record)
    expect(r.code).toBe(0)
    const status = JSON.parse(readFileSync(path.join(record, 'status.json'), 'utf8'))
    expect(status.budgets.maxTimeSeconds).toBe(seconds)
  })
})

test('a record folder that cannot be made is one line and exit 1 at once (Node’s recursive mkdir spun forever on /proc)', () => {
  const dir = project({ 'r/RALPH.md': '---\nagent: cat\n---\nx\n' })
  // Killed after 20 s: the old CLI ignored SIGTERM while it spun.
  const r = spawnSync(process.execPath, [CLI, 'run', 'r', '-n', '1', '--record-dir', '/proc/nope'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 20_000,
    killSignal: 'SIGKILL'
  })
  expect(r.status).toBe(1)
  expect(r.stderr).toBe('Error: The record folder /proc/nope cannot be written: no such file or folder.\n')
})
