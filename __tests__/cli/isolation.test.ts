// `ralph-action run … --isolation user`, the built CLI as a person runs it: the agent, the ralph's commands and
// the checks run as their own user (as root with setpriv, or through passwordless sudo), the work tree is the
// person's again afterwards; where neither is possible it says so in one line and runs nothing.
import { execFileSync, spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from '@jest/globals'
import {
  TEST_AGENT_USER,
  cliForAnyUser,
  describeIsolated,
  sudoRunner,
  whyNoIsolation,
  whyNoSudoRunner
} from '../support/isolation.js'

const CLI = path.resolve('dist/cli/index.js')
const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const RALPH = `---
agent: ./agent.sh
commands:
  - name: who
    run: ./who.sh command
checks:
  - name: who
    run: ./who.sh check
---
Work. {{ commands.who }}
`

/** A git project whose agent, command and check write who they ran as into the work tree. */
function project(owner?: { uid: number; gid: number }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-cli-iso-'))
  dirs.push(dir)
  const write = (name: string, content: string, mode = 0o644): void => {
    writeFileSync(path.join(dir, name), content)
    chmodSync(path.join(dir, name), mode)
  }
  write('RALPH.md', RALPH)
  // It reports its cost through $RALPH_COST_FILE, a file the loop made: its own user can write it.
  write(
    'agent.sh',
    '#!/bin/sh\ncat >/dev/null\n./who.sh agent\necho \'{"usd": 0.25}\' > "$RALPH_COST_FILE"\necho "<promise>COMPLETE</promise>"\n',
    0o755
  )
  write('who.sh', '#!/bin/sh\necho "$1 $(id -u) $HOME" >> who.txt\n', 0o755)
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@l',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@l'
  }
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['commit', '-qm', 'start']
  ])
    execFileSync('git', args, { cwd: dir, env })
  if (owner) execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, dir])
  return dir
}

function run(dir: string, as?: { uid: number; gid: number }, ...extra: string[]) {
  const record = mkdtempSync(path.join(tmpdir(), 'ralph-cli-iso-record-'))
  dirs.push(record)
  if (as) chmodSync(record, 0o777)
  lastRecord = path.join(record, 'r')
  return spawnSync(
    process.execPath,
    [
      as ? cliForAnyUser() : CLI,
      ...['run', '.', '-n', '2', '--commit', '--record-dir', lastRecord, '--isolation', 'user', ...extra]
    ],
    {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, LANG: 'C.UTF-8', HOME: as ? '/tmp' : process.env.HOME },
      ...as
    }
  )
}

let lastRecord = ''

function expectRanAsTheAgent(dir: string, owner: number): void {
  const status = JSON.parse(readFileSync(path.join(lastRecord, 'status.json'), 'utf8'))
  expect(status.cost).toMatchObject({ totalUsd: 0.25, source: 'reported' })
  const lines = readFileSync(path.join(dir, 'who.txt'), 'utf8').trim().split('\n')
  // The baseline runs the check once before the first iteration, as the agent's user too.
  expect(lines.map(l => l.split(' ')[0])).toEqual(['check', 'command', 'agent', 'check'])
  const uids = new Set(lines.map(l => Number(l.split(' ')[1])))
  expect(uids.size).toBe(1)
  const [uid] = [...uids]
  expect(uid).not.toBe(owner)
  expect(uid).not.toBe(0)
  // The agent and its commands share the agent's HOME; each gate gets an empty one of its own (what the agent
  // wrote in its HOME, a ~/.npmrc, never steers a gate).
  const homes = lines.map(l => l.split(' ')[2])
  expect(homes.filter((_, i) => !lines[i].startsWith('check'))).toEqual([
    `/var/lib/ralph-action/${TEST_AGENT_USER}`,
    `/var/lib/ralph-action/${TEST_AGENT_USER}`
  ])
  const gateHomes = homes.filter((_, i) => lines[i].startsWith('check'))
  expect(gateHomes).toHaveLength(2)
  for (const home of gateHomes) expect(home).toMatch(/\/ralph-gate-home\.\w{6}$/)
  expect(new Set(gateHomes).size).toBe(2)
  for (const home of gateHomes) expect(existsSync(home)).toBe(false)
  // Given back: the file the agent's user wrote is the person's now, and committed.
  expect(statSync(path.join(dir, 'who.txt')).uid).toBe(owner)
  expect(
    execFileSync('git', ['-c', 'safe.directory=*', 'log', '--format=%s', '-1'], {
      cwd: dir,
      encoding: 'utf8'
    })
  ).toContain('iteration 1')
}

describeIsolated(
  'the CLI isolation (as root)',
  process.getuid?.() === 0 ? whyNoIsolation() : 'needs the tests to run as root'
)('--isolation user, as root', () => {
  test('the agent, the command and the check run as the agent user; the work tree comes back', () => {
    const dir = project()
    const r = run(dir, undefined, '--agent-user', TEST_AGENT_USER)
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expectRanAsTheAgent(dir, 0)
  }, 60_000)

  test('what the agent writes in its HOME never steers a gate: a ~/.npmrc with script-shell=/bin/true', () => {
    const dir = project()
    writeFileSync(
      path.join(dir, 'RALPH.md'),
      '---\nagent: ./agent.sh\nchecks:\n  - name: tests\n    run: npm test --silent\n---\nWork.\n'
    )
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ scripts: { test: 'exit 1' } }))
    writeFileSync(
      path.join(dir, 'agent.sh'),
      '#!/bin/sh\ncat >/dev/null\necho "script-shell=/bin/true" > "$HOME/.npmrc"\necho "<promise>COMPLETE</promise>"\n'
    )
    execFileSync('git', ['add', '-A'], { cwd: dir })
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@l', 'commit', '-qm', 'npm'], { cwd: dir })
    const r = run(dir, undefined, '--agent-user', TEST_AGENT_USER)
    expect(r.stderr).not.toMatch(/\n\s+at /)
    const status = JSON.parse(readFileSync(path.join(lastRecord, 'status.json'), 'utf8'))
    expect(status.iterations.map((it: { checks: { passed: boolean }[] }) => it.checks[0].passed)).toEqual([
      false,
      false
    ])
    expect(status.success).toBe(false)
  }, 60_000)
})

describeIsolated('the CLI isolation through sudo', whyNoSudoRunner())(
  '--isolation user, with passwordless sudo',
  () => {
    test('the same through sudo, for a person who is not root', () => {
      const runner = sudoRunner()
      const dir = project(runner)
      const r = run(dir, runner, '--agent-user', TEST_AGENT_USER)
      expect(r.stderr).toBe('')
      expect(r.status).toBe(0)
      expectRanAsTheAgent(dir, runner.uid)
    }, 60_000)
  }
)

describeIsolated(
  'the CLI isolation refusal',
  process.getuid?.() === 0 ? undefined : 'running the CLI as nobody needs root'
)('--isolation user where it is impossible', () => {
  test('one line saying why, exit 1, nothing run', () => {
    const nobody = { uid: 65534, gid: 65534 }
    const dir = project(nobody)
    mkdirSync(path.join(dir, 'unused'), { recursive: true })
    const r = run(dir, nobody)
    expect(r.status).toBe(1)
    // Where sudo is installed nobody may not use it; where it is not, the reason is that it is missing.
    const sudoInstalled =
      spawnSync('sh', ['-c', 'command -v sudo'], {
        stdio: 'ignore',
        env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' }
      }).status === 0
    const why = sudoInstalled ? 'without passwordless sudo' : 'sudo is not installed'
    expect(r.stderr.trim()).toBe(
      `Error: '--isolation user' is not possible here: ralph-action runs as nobody (uid 65534), not as root, and ${why}.`
    )
    expect(() => readFileSync(path.join(dir, 'who.txt'))).toThrow()
  }, 60_000)
})

test('--isolation takes user or none', () => {
  const r = spawnSync(process.execPath, [CLI, 'run', '.', '--isolation', 'sandbox'], {
    cwd: tmpdir(),
    encoding: 'utf8'
  })
  expect(r.status).toBe(2)
  expect(r.stderr).toContain("'--isolation' must be user or none, got 'sandbox'.")
})
