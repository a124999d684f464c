// Say what happened, in words a person reads right: the console, progress.md and the scaffold.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { charts, iterationTable, type LoopResult } from '../../src/loop/index.js'
import { cli, project, recordOf } from './helpers.js'

const status = (record: string): LoopResult =>
  JSON.parse(readFileSync(path.join(record, 'status.json'), 'utf8')) as LoopResult

describe('checks pass, but the agent has not given the completion tag', () => {
  test('has its own verdict and wording, and says once how to let the checks alone decide', () => {
    const dir = project({ 'agent.sh': '#!/bin/bash\ncat > last-prompt\necho working\n' }, true)
    const record = recordOf(dir)
    const r = cli(
      dir,
      'loop',
      'Do it.',
      '--agent',
      './agent.sh',
      '--check',
      'true',
      '-n',
      '2',
      '--record-dir',
      record
    )
    expect(r.code).toBe(3)
    expect(r.stdout).toContain(
      '◐ Iteration 1: the checks pass; the agent has not given the completion tag <promise>COMPLETE</promise>'
    )
    expect(r.stdout.split("To let the checks alone decide, run with --completion-tag ''.")).toHaveLength(2)
    expect(r.stdout).toContain(
      'Stopped: max_iterations — reached the cap of 2 iterations; the checks pass, but the agent has not given the completion tag\n'
    )
    expect(r.stdout).toContain('Done: 2 iterations — 2 passed the checks without the completion tag\n')
    expect(r.stdout).not.toContain('failed its checks')
    const result = status(record)
    expect(result.iterations.map(it => it.verdict)).toEqual(['checks_passed_no_tag', 'checks_passed_no_tag'])
    const progress = readFileSync(path.join(record, 'progress.md'), 'utf8')
    expect(progress).toContain('## Iteration 1: checks pass; the agent has not given the completion tag\n')
    expect(progress).not.toContain('checks failed')
  })

  test.each(['run', 'loop'])('%s --help says what ends the loop', command => {
    const r = cli(process.cwd(), command, '--help')
    expect(r.stdout).toMatch(
      /The loop ends, successfully, when every check passes and the agent's final message/
    )
    expect(r.stdout).toContain("--completion-tag '' lets the checks\nalone decide")
    expect(r.stdout).toMatch(/It stops without success at/)
  })
})

describe('a failing check on the console', () => {
  test('shows its exit code and its last lines, and a --check gate is named by its command', () => {
    const dir = project({ 'r/RALPH.md': '---\nagent: cat\n---\nx\n' })
    const r = cli(
      dir,
      'run',
      'r',
      '-n',
      '1',
      '--record-dir',
      recordOf(dir),
      '--check',
      'echo line-1; echo line-2; echo the-reason >&2; exit 3',
      '--check',
      'bash -c nothing-called-this-xyz'
    )
    expect(r.code).toBe(3)
    expect(r.stdout).toMatch(
      /✗ check echo line-1; echo line-2; echo the-reas… \(\d+\.\ds, exit 3\)\n {6}line-1\n {6}line-2\n {6}the-reason\n/
    )
    expect(r.stdout).toMatch(
      /✗ check bash -c nothing-called-this-xyz \(\d+\.\ds, exit 127\)\n {6}bash: line 1: nothing-called-this-xyz: command not found\n/
    )
    expect(r.stdout).not.toContain('check-1')
  })
})

describe('credit', () => {
  test('a loop prompt carries no ralphify credit line', () => {
    const dir = project({ 'agent.sh': '#!/bin/bash\ncat > prompt.txt\n' })
    const r = cli(dir, 'loop', 'Do it.', '--agent', './agent.sh', '-n', '1', '--record-dir', recordOf(dir))
    expect(r.code).toBe(0)
    const prompt = readFileSync(path.join(dir, 'prompt.txt'), 'utf8')
    expect(prompt).toBe('Do it.')
    expect(prompt).not.toContain('Co-authored-by')
  })
})

describe('counts and costs', () => {
  test('"1 iteration", "unknown" cost, and a Done line that does not call a run a success', () => {
    const dir = project({ 'r/RALPH.md': '---\nagent: cat\n---\nx\n' })
    const record = recordOf(dir)
    const r = cli(dir, 'run', 'r', '-n', '1', '--record-dir', record)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('  max 1 iteration\n')
    expect(r.stdout).toContain('Done: 1 iteration — 1 ran\n')
    expect(r.stdout).toContain('Stopped: max_iterations — reached the cap of 1 iteration\n')
    expect(r.stdout).toContain('Cost: unknown')
    const progress = readFileSync(path.join(record, 'progress.md'), 'utf8')
    expect(progress).toContain('- Budgets: at most 1 iteration\n')
    expect(progress).toMatch(/- Started \S+ · \d+\.\ds · cost unknown\n/)
    expect(progress).not.toContain('$0.0000')
    expect(progress).not.toContain('iteration(s)')
  })
})

describe('progress.md', () => {
  test('opens with the outcome, the iteration table and the same charts as the job summary', () => {
    const dir = project(
      {
        'agent.sh': '#!/bin/bash\ncat >/dev/null\necho x >> count\necho "<promise>COMPLETE</promise>"\n',
        'r/RALPH.md': '---\nagent: ./agent.sh\n---\nx\n'
      },
      true
    )
    const record = recordOf(dir)
    const r = cli(
      dir,
      'run',
      'r',
      '-n',
      '3',
      '--record-dir',
      record,
      '--check',
      'test $(wc -l < count) -ge 2'
    )
    expect(r.code).toBe(0)
    const result = status(record)
    const progress = readFileSync(path.join(record, 'progress.md'), 'utf8')
    const outcome = progress.indexOf('## Stopped: all_checks_passed\n\nevery check passed in iteration 2\n')
    const table = progress.indexOf(
      `## Overview\n\n${iterationTable(result, Infinity)}\n\n${charts(result)}\n`
    )
    const details = progress.indexOf('## Iteration 1: checks failed')
    expect(outcome).toBeGreaterThan(0)
    expect(table).toBeGreaterThan(outcome)
    expect(details).toBeGreaterThan(table)
    expect(progress.indexOf('## Iteration 2: passed')).toBeGreaterThan(details)
    // The baseline (the gate before the first agent run) is row 0; each gate cell carries its time.
    expect(iterationTable(result, Infinity)).toMatch(
      /\| 0 \| 🔎 baseline: gates failing \| ✗ \d+\.\ds \| – \| \d+s \|\n\| 1 \| ❌ gates failed \| ✗ \d+\.\ds \| unknown \|/
    )
    expect(charts(result)).toContain('```mermaid\nxychart-beta\n  title "Duration per iteration (seconds)"')
    // Said once: the outcome is not repeated at the end.
    expect(progress.split('## Stopped:')).toHaveLength(2)
  })
})

describe('scaffold', () => {
  test('writes an agent line that works as root, no ralphify credit, and leaves commits to --commit', () => {
    const dir = project({})
    const r = cli(dir, 'scaffold', 'mine')
    expect(r.stdout).toContain('then run: ralph-action run mine -n 5 --commit')
    const text = readFileSync(path.join(dir, '.agents/ralphs/mine/RALPH.md'), 'utf8')
    expect(text).toContain('agent: claude -p --permission-mode acceptEdits\n')
    expect(text).not.toContain('--dangerously-skip-permissions')
    expect(text).toContain('credit: false\n')
    expect(text).not.toMatch(/^- Commit/m)
  })
})

describe('the message nits: each mistake named as what it is, with the nearest right word', () => {
  const dir = (): string =>
    project({
      'fix/RALPH.md': '---\nagent: cat\n---\nFix it.\n',
      'bare/RALPH.md': 'Just a prompt, no frontmatter.\n'
    })

  test.each([
    [
      ['--bogus'],
      2,
      "Error: No such option '--bogus': options come after a command (ralph-action run my-ralph --bogus)."
    ],
    [['--versoin'], 2, "Error: No such option '--versoin'. Did you mean '--version'?"],
    [['rnu', 'fix'], 2, "Error: No such command 'rnu'. Did you mean 'run'?"],
    [['run', 'fix', '-x'], 2, "'-x' is not an option of run either: see 'ralph-action run --help'."],
    [
      ['run', 'fix', '--agent-network', 'foo'],
      2,
      `'--agent-network' must be one of model-only, allow-list, open, got "foo".`
    ],
    [
      ['run', 'fxi'],
      1,
      "Error: 'fxi' is not a directory, RALPH.md file, or installed ralph. Did you mean 'fix'?"
    ],
    [
      ['run', 'bare'],
      1,
      "The file has no frontmatter: start it with a '---' line, then 'agent: <command>', then '---'."
    ]
  ])('%j', (args, code, line) => {
    const r = cli(dir(), ...args)
    expect(r.stderr).toContain(line)
    expect(r.stderr).not.toMatch(/\n\s+at /)
    expect(r.code).toBe(code)
  })
})
