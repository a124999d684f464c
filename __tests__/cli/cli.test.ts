// The CLI as a user runs it: the built dist/cli/index.js in real projects (temp folders, real git, scripted
// agents). Prompt bytes and errors shared with ralphify are pinned by the conformance suite; these pin ours.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { CLI, alive, cli, gitEnv, project, recordOf, type Ran } from './helpers.js'

describe('ralph-action prompt', () => {
  test('prints the assembled prompt exactly, running the commands but not the agent', () => {
    const dir = project({
      'r/RALPH.md':
        '---\nagent: ./never-run.sh\ncommands:\n  - name: greet\n    run: echo hello\nargs: [who]\ncredit: false\n---\n\n' +
        'Hi {{ args.who }}, iteration {{ ralph.iteration }} of {{ ralph.max_iterations }}:\n{{ commands.greet }}<!-- gone -->end\n',
      'never-run.sh': '#!/bin/sh\ntouch agent-ran\n'
    })
    const r = cli(dir, 'prompt', 'r', '--iteration', '3', '-n', '7', 'you')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('Hi you, iteration 3 of 7:\nhello\nend')
    expect(existsSync(path.join(dir, 'agent-ran'))).toBe(false)
  })

  test('shows the loop status section a gated ralph gets in its first iteration', () => {
    const dir = project({
      'r/RALPH.md': '---\nagent: cat\nchecks:\n  - name: unit\n    run: npm test\n---\nDo it.\n'
    })
    const r = cli(dir, 'prompt', 'r')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^Do it\.\n\n---\n\n## Loop status\n/)
    expect(r.stdout).toContain('npm test')
    expect(r.stdout).toContain('<promise>COMPLETE</promise>')
    expect(r.stdout.endsWith('Co-authored-by: Ralphify <noreply@ralphify.co>')).toBe(true)
  })
})

describe('ralph-action validate', () => {
  test('reports every problem at once as file:line:column: message and exits 1', () => {
    const dir = project({
      'r/RALPH.md':
        '---\nagent: definitely-not-an-agent-xyz\ncommands:\n  - name: bad name\n    run: echo\n  - name: t\n    run: echo\n    timeout: "10"\ncredit: maybe\n---\nbody\n'
    })
    const r = cli(dir, 'validate', 'r')
    expect(r.code).toBe(1)
    const lines = r.stderr.trim().split('\n')
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^r\/RALPH\.md:2:\d+: Agent command 'definitely-not-an-agent-xyz' not found on PATH\.$/
        ),
        expect.stringMatching(/^r\/RALPH\.md:4:\d+: Command name 'bad name' contains invalid characters\./),
        expect.stringMatching(
          /^r\/RALPH\.md:8:\d+: Command 't' has invalid timeout: '10'\. Must be a positive number\.$/
        ),
        expect.stringMatching(/^r\/RALPH\.md:9:\d+: 'credit' must be true or false, got 'maybe'\.$/)
      ])
    )
    expect(lines[lines.length - 1]).toBe('4 problems in r/RALPH.md.')
  })

  test('a valid ralph passes', () => {
    const dir = project({ 'r/RALPH.md': '---\nagent: cat\n---\nbody\n' })
    expect(cli(dir, 'validate', 'r')).toMatchObject({ code: 0, stdout: 'r/RALPH.md: OK\n' })
  })

  test('a ralph with gates and no editable: validate suggests editable; with editable set, no suggestion', () => {
    const dir = project({
      'r/RALPH.md': '---\nagent: cat\nchecks:\n  - name: t\n    run: "true"\n---\nbody\n',
      's/RALPH.md': '---\nagent: cat\neditable: [src/**]\nchecks:\n  - name: t\n    run: "true"\n---\nbody\n'
    })
    expect(cli(dir, 'validate', 'r')).toMatchObject({
      code: 0,
      stdout:
        'r/RALPH.md: OK\nr/RALPH.md: suggestion: name the paths the agent may change, e.g. `editable: [src/**]`: every other path is put back before the gates and refused at delivery\n'
    })
    expect(cli(dir, 'validate', 's')).toMatchObject({ code: 0, stdout: 's/RALPH.md: OK\n' })
  })

  test('an arg inside a larger word of a command: a warning with file:line and the fix, still OK (as the reference)', () => {
    const dir = project({
      'r/RALPH.md': `---\nagent: cat\nargs: [focus]\ncommands:\n  - name: c2\n    run: bash -c 'echo {{ args.focus }}'\n---\nbody\n`
    })
    const r = cli(dir, 'validate', 'r')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('r/RALPH.md: OK, with 1 warning\n')
    expect(r.stderr).toMatch(
      /^r\/RALPH\.md:6:\d+: warning: Command 'c2' puts \{\{ args\.focus \}\} inside a larger word of its run, .* \$RALPH_ARG_FOCUS in a script\.\n$/
    )
  })

  test('a ralph without gates whose unknown key was meant as checks is an error: validate and run exit 1', () => {
    const dir = project({
      'r/RALPH.md': '---\nagent: cat\nchek:\n  - name: tests\n    run: "true"\n---\nFix it.\n'
    })
    const line =
      "r/RALPH.md:3:1: Unknown frontmatter key 'chek': did you mean 'checks'? Without it this ralph has no gates, and would loop with nothing to judge its work: fix the key.\n"
    expect(cli(dir, 'validate', 'r')).toMatchObject({ code: 1, stderr: `${line}1 problem in r/RALPH.md.\n` })
    const ran = cli(dir, 'run', 'r', '-n', '1', '--record-dir', recordOf(dir))
    expect(ran.code).toBe(1)
    expect(ran.stderr).toContain(line.trim())
    expect(existsSync(recordOf(dir))).toBe(false)
  })

  test('what silently changes a run is warned with the fix: a key no runtime reads, a placeholder naming nothing', () => {
    const dir = project({
      'r/RALPH.md':
        '---\nagent: cat\ncredits: false\nargs: [focus]\ncommands:\n  - name: test\n    run: echo hi\n---\n' +
        '{{ commands.tset }} {{ args.foo }} {{ args.task }} {{ args.focus }} <!-- {{ commands.gone }} -->\n'
    })
    const r = cli(dir, 'validate', 'r')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('r/RALPH.md: OK, with 3 warnings\n')
    expect(r.stderr).toBe(
      [
        "r/RALPH.md:3:1: warning: Unknown frontmatter key 'credits': did you mean 'credit'? No runtime reads it, so it changes nothing.",
        'r/RALPH.md:9:1: warning: {{ commands.tset }} names no command (did you mean commands.test?), so it renders as nothing.',
        'r/RALPH.md:9:21: warning: {{ args.foo }} names no declared arg, so it renders as nothing.',
        ''
      ].join('\n')
    )
    // run, like ralphify, runs it as it is: the same warnings first.
    const ran = cli(dir, 'run', 'r', '-n', '1', '--record-dir', recordOf(dir))
    expect(ran.code).toBe(0)
    expect(ran.stderr).toBe(r.stderr)
  })

  test("commands find each arg's value in RALPH_ARG_<NAME>: the safe way to use one in a script", () => {
    const dir = project({
      'r/RALPH.md':
        '---\nagent: cat\nargs: [focus, max-depth]\ncommands:\n  - name: env\n    run: ./env.sh\ncredit: false\n---\n{{ commands.env }}',
      'r/env.sh': '#!/bin/sh\nprintf \'%s|%s\' "$RALPH_ARG_FOCUS" "$RALPH_ARG_MAX_DEPTH"\n'
    })
    const value = `x"; touch pwned; echo "`
    const r = cli(dir, 'prompt', 'r', '--focus', value, '--max-depth', '3')
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe(`${value}|3`)
    expect(existsSync(path.join(dir, 'pwned'))).toBe(false)
  })

  test('a YAML error is one line with its position, no traceback', () => {
    const dir = project({ 'r/RALPH.md': '---\nagent: cat\ncommands: [\n---\nbody\n' })
    const r = cli(dir, 'validate', 'r')
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^r\/RALPH\.md:\d+:\d+: Invalid YAML in frontmatter: .+\n/)
    expect(r.stderr).not.toMatch(/\bat .+\.js:\d+/)
  })
})

describe('ralph-action scaffold', () => {
  /** The CLI with PATH holding only the system's programs and, when given, a folder of fake agents. */
  const onPath = (dir: string, agents: string | undefined, ...args: string[]): Ran => {
    const PATH = [agents, '/usr/local/bin', '/usr/bin', '/bin'].filter(Boolean).join(':')
    const r = spawnSync(process.execPath, [CLI, ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...gitEnv(), PATH }
    })
    return { code: r.status, stdout: r.stdout, stderr: r.stderr }
  }
  const scaffold = (dir: string, agents?: string, ...args: string[]): Ran =>
    onPath(dir, agents, 'scaffold', ...args)

  test('a bare name goes where list and run NAME find it, and is not written twice', () => {
    const dir = project({})
    const first = scaffold(dir, undefined, 'mine')
    expect(first.code).toBe(0)
    expect(first.stdout).toContain('Created .agents/ralphs/mine/RALPH.md')
    expect(readFileSync(path.join(dir, '.agents/ralphs/mine/RALPH.md'), 'utf8')).toContain('checks:')
    expect(cli(dir, 'list')).toMatchObject({ code: 0, stdout: '{"ralph":["mine"]}\n' })
    const again = scaffold(dir, undefined, 'mine')
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(
      `RALPH.md already exists at '${path.join(dir, '.agents', 'ralphs', 'mine', 'RALPH.md')}'.`
    )
  })

  test('a path goes where it says', () => {
    const dir = project({})
    expect(scaffold(dir, undefined, './here').stdout).toContain('Created here/RALPH.md')
    expect(existsSync(path.join(dir, 'here', 'RALPH.md'))).toBe(true)
  })

  test('without claude on PATH it says what to install, and validate then passes once the agent exists', () => {
    const dir = project({})
    const made = scaffold(dir, undefined, 'mine')
    expect(made.stdout).toMatch(
      /Its agent, claude, is not on PATH here: npm install -g @anthropic-ai\/claude-code@[\d.]+, or set agent: to your agent's command\./
    )
    const agents = project({ 'claude.sh': '#!/bin/sh\ncat\n', 'npm.sh': '#!/bin/sh\nexit 0\n' })
    execFileSync('mv', [path.join(agents, 'claude.sh'), path.join(agents, 'claude')])
    execFileSync('mv', [path.join(agents, 'npm.sh'), path.join(agents, 'npm')])
    const other = project({})
    expect(scaffold(other, agents, 'other').stdout).not.toContain('not on PATH')
    expect(onPath(other, agents, 'validate', 'other')).toMatchObject({ code: 0 })
    expect(onPath(other, undefined, 'validate', 'other').code).toBe(1)
  })
})

describe('ralph-action run', () => {
  const fixer = {
    // Iteration 1 leaves a wrong answer; iteration 2, seeing the failure in its prompt, fixes it.
    'agent.sh':
      '#!/bin/bash\nprompt=$(cat)\nif grep -q "want 42" <<<"$prompt"; then echo 42 > answer; echo "Fixed."; echo "<promise>COMPLETE</promise>"\nelse echo 41 > answer; echo "Tried."; fi\n',
    'r/RALPH.md': '---\nagent: ./agent.sh\n---\nMake `answer` hold 42.\n\n{{ ralph.failures }}\n'
  }

  const wants42 = ['--check', 'test "$(cat answer)" = 42 || { echo want 42; exit 1; }']

  test("--check gates the loop: the baseline's failure reaches iteration 1, which passes; commits, exits 0", () => {
    const dir = project(fixer, true)
    const record = recordOf(dir)
    const r = cli(dir, 'run', 'r', '-n', '5', '--commit', '--record-dir', record, ...wants42)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(
      'Baseline ───────\n  Running the 1 check(s) before the first agent run\n  ✗ check test "$(cat answer)" = 42 || { echo wan… ('
    )
    expect(r.stdout).toMatch(/✗ Baseline: 1 of 1 checks failing: iteration 1 gets their output \(/)
    expect(r.stdout).toContain('Stopped: all_checks_passed')
    const status = JSON.parse(readFileSync(path.join(record, 'status.json'), 'utf8'))
    expect(status.stopReason).toBe('all_checks_passed')
    expect(status.baseline.verdict).toBe('failing')
    expect(status.iterations.map((i: { verdict: string }) => i.verdict)).toEqual(['passed'])
    const log = spawnSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' }).stdout
    expect(log.trim().split('\n')).toEqual(['ralph r: iteration 1', 'start'])
    expect(readdirSync(path.join(record, 'logs'))).toEqual(['iteration-000', 'iteration-001'])
  })

  test('--no-baseline: iteration 1 works blind, iteration 2 sees the failure and passes', () => {
    const dir = project(fixer, true)
    const record = recordOf(dir)
    const r = cli(dir, 'run', 'r', '-n', '5', '--commit', '--no-baseline', '--record-dir', record, ...wants42)
    expect(r.code).toBe(0)
    expect(r.stdout).not.toContain('Baseline')
    const status = JSON.parse(readFileSync(path.join(record, 'status.json'), 'utf8'))
    expect(status.baseline).toBeUndefined()
    expect(status.iterations.map((i: { verdict: string }) => i.verdict)).toEqual(['checks_failed', 'passed'])
    const log = spawnSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' }).stdout
    expect(log.trim().split('\n')).toEqual(['ralph r: iteration 2', 'ralph r: iteration 1', 'start'])
    expect(readdirSync(path.join(record, 'logs'))).toEqual(['iteration-001', 'iteration-002'])
  })

  test('--skip-if-green on a green tree stops already_green with exit 0, and no agent runs', () => {
    const dir = project({ ...fixer, answer: '42\n' }, true)
    const record = recordOf(dir)
    const r = cli(
      dir,
      'run',
      'r',
      '-n',
      '5',
      '--skip-if-green',
      '--parallel-checks',
      '--record-dir',
      record,
      ...wants42
    )
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Running the 1 check(s) together before the first agent run')
    expect(r.stdout).toMatch(/✓ Baseline: every check passes \(/)
    expect(r.stdout).toContain(
      'Stopped: already_green — every check passed before any agent ran (skip-if-green), so no agent ran'
    )
    expect(r.stdout).not.toContain('Iteration 1')
    const status = JSON.parse(readFileSync(path.join(record, 'status.json'), 'utf8'))
    expect(status).toMatchObject({ stopReason: 'already_green', success: true, iterations: [] })
    expect(status.baseline).toMatchObject({ verdict: 'green', parallel: true })
    expect(readFileSync(path.join(dir, 'answer'), 'utf8')).toBe('42\n')
  })

  test('--skip-if-green without checks, or with --no-baseline, is a configuration error (exit 1)', () => {
    const dir = project(fixer, true)
    const bare = cli(dir, 'run', 'r', '--skip-if-green', '--record-dir', recordOf(dir))
    expect(bare.code).toBe(1)
    expect(bare.stderr).toBe(
      "Error: skip-if-green needs gates (the ralph's checks:, --check or the checks input): without them nothing can be found green.\n"
    )
    const off = cli(
      dir,
      'run',
      'r',
      '--skip-if-green',
      '--no-baseline',
      '--record-dir',
      recordOf(dir),
      ...wants42
    )
    expect(off.code).toBe(1)
    expect(off.stderr).toMatch(/^Error: skip-if-green needs the baseline/)
  })

  test('gates that never pass stop at the cap with exit 3', () => {
    const dir = project(fixer, true)
    const r = cli(dir, 'run', 'r', '-n', '1', '--record-dir', recordOf(dir), '--check', 'false')
    expect(r.code).toBe(3)
    expect(r.stdout).toContain('Stopped: max_iterations')
  })

  test('a gate-less run that reaches -n exits 0, like ralphify, even when the agent failed', () => {
    const dir = project({ 'r/RALPH.md': '---\nagent: "false"\n---\nx\n' })
    const r = cli(dir, 'run', 'r', '-n', '2', '--record-dir', recordOf(dir))
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Done: 2 iterations — 2 failed\n')
  })

  test('--stop-on-error stops with exit 3 and says why', () => {
    const dir = project({ 'r/RALPH.md': '---\nagent: "false"\n---\nx\n' })
    const r = cli(dir, 'run', 'r', '-n', '5', '-s', '--record-dir', recordOf(dir))
    expect(r.code).toBe(3)
    expect(r.stdout).toContain('Stopped: agent_error')
  })

  test('a bad option value is a usage error (exit 2) with a hint', () => {
    const dir = project({ 'r/RALPH.md': '---\nagent: cat\n---\nx\n' })
    const r = cli(dir, 'run', 'r', '--max-time', 'soon')
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      "Error: Invalid value for '--max-time': 'soon' is not a positive duration: give seconds (90) or a number with a unit (90s, 2m, 1h).\nTry 'ralph-action run --help' for help.\n"
    )
  })

  test('SIGTERM mid-agent cancels: exit 130, the agent tree is gone, the record is complete', async () => {
    const dir = project({
      'agent.sh': '#!/bin/bash\ncat >/dev/null\necho $$ > agent.pid\nsleep 30 &\necho $! > child.pid\nwait\n',
      'r/RALPH.md': '---\nagent: ./agent.sh\n---\nwork\n'
    })
    const record = recordOf(dir)
    const child = spawn(process.execPath, [CLI, 'run', 'r', '--record-dir', record], {
      cwd: dir,
      stdio: 'pipe'
    })
    let stdout = ''
    child.stdout.on('data', d => (stdout += d))
    const pidFile = path.join(dir, 'child.pid')
    const written = (): boolean => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n')
    for (let i = 0; i < 300 && !written(); i++) await new Promise(r => setTimeout(r, 100))
    const sleeper = Number(readFileSync(pidFile, 'utf8'))
    expect(alive(sleeper)).toBe(true)
    child.kill('SIGTERM')
    const code = await new Promise<number | null>(resolve => child.on('exit', resolve))
    expect(code).toBe(130)
    expect(alive(sleeper)).toBe(false)
    const status = JSON.parse(readFileSync(path.join(record, 'status.json'), 'utf8'))
    expect(status.state).toBe('finished')
    expect(status.stopReason).toBe('cancelled')
    expect(existsSync(path.join(record, 'logs/iteration-001/prompt.md'))).toBe(true)
    expect(stdout).toContain('Stopped: cancelled')
  })
})

describe('ralph-action loop', () => {
  test('runs a ralph-less task with gates in a worktree, leaving the checkout untouched', () => {
    const dir = project(
      { 'agent.sh': '#!/bin/bash\ncat > seen-prompt\necho done > out\necho "<promise>COMPLETE</promise>"\n' },
      true
    )
    const record = recordOf(dir)
    const r = cli(
      dir,
      'loop',
      'Write out.',
      '--agent',
      './agent.sh',
      '--check',
      'test -f out',
      '--worktree',
      '--record-dir',
      record
    )
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(existsSync(path.join(dir, 'out'))).toBe(false)
    const status = JSON.parse(readFileSync(path.join(record, 'status.json'), 'utf8'))
    expect(status.stopReason).toBe('all_checks_passed')
    expect(existsSync(path.join(status.worktree.dir, 'out'))).toBe(true)
    expect(readFileSync(path.join(status.worktree.dir, 'seen-prompt'), 'utf8')).toMatch(
      /^Write out\.\n\n---\n\n## Loop status/
    )
  })

  test('without --agent it is a usage error', () => {
    const dir = project({})
    const r = cli(dir, 'loop', 'task')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("Missing option '--agent'.")
  })
})

describe('ralph-action list', () => {
  test("prints the project's installed ralphs as matrix JSON", () => {
    const dir = project({
      '.agents/ralphs/b-hunter/RALPH.md': '---\nagent: cat\n---\nx\n',
      '.agents/ralphs/a-docs/RALPH.md': '---\nagent: cat\n---\nx\n',
      '.agents/ralphs/not-a-ralph/notes.md': 'x'
    })
    const r = cli(dir, 'list')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ ralph: ['a-docs', 'b-hunter'] })
  })
})

describe('help', () => {
  test.each(['run', 'loop', 'prompt', 'validate', 'scaffold', 'list'])(
    '%s --help shows usage and an example',
    name => {
      const r = cli(process.cwd(), name, '--help')
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(new RegExp(`^Usage: ralph-action ${name}`))
      expect(r.stdout).toMatch(/Example/)
    }
  )
})

describe('presets', () => {
  test('presets: false in a ralph runs a claude-named agent exactly as written', () => {
    const dir = project({
      'bin/claude': '#!/bin/sh\necho "$@" > argv.txt\ncat >/dev/null\n',
      'r/RALPH.md': '---\nagent: ./bin/claude -p\npresets: false\n---\nx\n'
    })
    chmodSync(path.join(dir, 'bin/claude'), 0o755)
    const r = cli(dir, 'run', 'r', '-n', '1', '--record-dir', recordOf(dir))
    expect(r.code).toBe(0)
    expect(readFileSync(path.join(dir, 'argv.txt'), 'utf8')).toBe('-p\n')
  })

  test('a non-boolean presets value is a one-line error naming the fix', () => {
    const dir = project({ 'r/RALPH.md': '---\nagent: cat\npresets: sometimes\n---\nx\n' })
    const r = cli(dir, 'validate', 'r')
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("r/RALPH.md:3:10: 'presets' must be true or false, got 'sometimes'.")
  })
})

describe("the agent's environment", () => {
  const files = {
    'agent.sh':
      '#!/bin/bash\ncat >/dev/null\necho "GH_TOKEN=${GH_TOKEN:-unset} GITHUB_TOKEN=${GITHUB_TOKEN:-unset}" > seen\n',
    'r/RALPH.md': '---\nagent: ./agent.sh\n---\nx\n'
  }
  const withTokens = (dir: string, ...args: string[]): Ran => {
    const r = spawnSync(
      process.execPath,
      [CLI, 'run', 'r', '-n', '1', '--record-dir', recordOf(dir), ...args],
      {
        cwd: dir,
        encoding: 'utf8',
        env: { ...gitEnv(), GH_TOKEN: 'gh-secret', GITHUB_TOKEN: 'github-secret' }
      }
    )
    return { code: r.status, stdout: r.stdout, stderr: r.stderr }
  }

  test('holds no GitHub token by default', () => {
    const dir = project(files)
    expect(withTokens(dir).code).toBe(0)
    expect(readFileSync(path.join(dir, 'seen'), 'utf8')).toBe('GH_TOKEN=unset GITHUB_TOKEN=unset\n')
  })

  test('--allow-env gives back exactly the variables named', () => {
    const dir = project(files)
    expect(withTokens(dir, '--allow-env', 'GH_TOKEN').code).toBe(0)
    expect(readFileSync(path.join(dir, 'seen'), 'utf8')).toBe('GH_TOKEN=gh-secret GITHUB_TOKEN=unset\n')
  })
})
