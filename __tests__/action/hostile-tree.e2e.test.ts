// The work tree is hostile input (issue #25), end to end through dist/index.js, the action as root with
// isolation user (setpriv) and as a job user with passwordless sudo:
//
//  1. A nested repository `sub/` whose own .git/config wires a clean and a smudge filter, an fsmonitor and
//     hooks to a payload, and whose .gitattributes names that filter for every file. In iteration 2 (after
//     the gitlink would have been recorded) the agent changes a file in it: the action's `git add -A` would
//     run `git status` inside it, as the action. Nothing of it runs; it is refused with one line, and the
//     delivered branch holds no gitlink and no .gitmodules.
//  2. RALPH.md or the guardrails file swapped for a link to /proc/self/environ, or for a FIFO: the action
//     would read its own environment (a model key, a step's secret) into the next prompt and the record, or
//     block its event loop and every budget timer. It is refused with one line, and the run ends in time.
import { execFileSync } from 'node:child_process'
import { copyFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { afterAll, expect, test } from '@jest/globals'
import { filesIn } from './attacks.js'
import { agentScript, DONE, FIX, projectFiles, ralph, RALPH_DIR } from './fixtures.js'
import { runAction, type ActionRun, type Project } from './harness.js'
import { pathBytes, pathFromBytes } from '../../src/text/tree-path.js'
import { e2eSuite, handTo } from './suite.js'
import {
  describeIsolated,
  sharedDir,
  sudoRunner,
  whyNoIsolation,
  whyNoSudoRunner
} from '../support/isolation.js'

const loots: string[] = []
afterAll(() => {
  for (const loot of loots) rmSync(loot, { recursive: true, force: true })
})

const e2e = e2eSuite()

/** Stand-ins for what the action's environment holds and must never give away. */
const MODEL_KEY = 'sk-ant-StandInModelKeyOfTheJob0123456789'
const STEP_SECRET = 'StandInStepSecret-9f8e7d6c5b4a'

/**
 * A nested repository armed after its first commit: the payload leaves `ran-<what>-<uid>` in the loot. Made in
 * `staging`, then moved to `name` (latin1 text of its bytes: 'caf\xe9' is not UTF-8); `sub` is also named
 * in a .gitmodules.
 */
function nestedRepository(loot: string, name = 'sub'): string {
  const L = JSON.stringify(loot)
  const N = JSON.stringify(name)
  return String.raw`
const { execFileSync } = await import('node:child_process')
const path = await import('node:path')
const payload = path.join(${L}, 'payload.sh')
fs.writeFileSync(payload, '#!/bin/sh\ntouch ' + ${L} + '/ran-"$1"-$(id -u)\ncase "$1" in clean|smudge) exec cat ;; esac\nexit 0\n', { mode: 0o755 })
fs.mkdirSync('staging')
const git = (...args) => execFileSync('git', args, { cwd: 'staging', stdio: 'pipe' })
git('init', '--quiet')
fs.writeFileSync('staging/f', 'one\n')
git('add', '-A')
git('-c', 'user.name=agent', '-c', 'user.email=agent@example.com', 'commit', '--quiet', '-m', 'nested')
for (const [k, v] of [['filter.x.clean', payload + ' clean'], ['filter.x.smudge', payload + ' smudge'], ['filter.x.required', 'true'], ['core.fsmonitor', payload + ' fsmonitor'], ['core.hooksPath', ${L}]])
  git('config', k, v)
for (const hook of ['post-index-change', 'reference-transaction', 'post-checkout']) fs.writeFileSync(path.join(${L}, hook), '#!/bin/sh\n' + payload + ' hook-' + hook + '\n', { mode: 0o755 })
fs.writeFileSync('staging/.gitattributes', '* filter=x\n')
fs.renameSync('staging', Buffer.from(${N}, 'latin1'))
if (${N} === 'sub') fs.writeFileSync('.gitmodules', '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n')
`
}

interface Attacked {
  p: Project
  run: ActionRun
  loot: string
}

function newLoot(): string {
  const loot = sharedDir('ralph-hostile-')
  loots.push(loot)
  return loot
}

async function attack(
  loot: string,
  steps: Record<number | 'any', string>,
  options: { as?: { uid: number; gid: number }; ralphText?: string; inputs?: Record<string, string> } = {}
): Promise<Attacked> {
  const p = await e2e.project(projectFiles(agentScript(steps), options.ralphText))
  if (options.as) handTo(p, options.as)
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', isolation: 'user', ...options.inputs },
    env: { ANTHROPIC_API_KEY: MODEL_KEY, RALPH_STEP_SECRET: STEP_SECRET },
    ...(options.as ? { as: options.as } : {})
  })
  return { p, run, loot }
}

const ran = (loot: string): string[] => readdirSync(loot).filter(f => f.startsWith('ran-'))

async function expectNothingOfTheAction(a: Attacked): Promise<void> {
  const record = await e2e.recordOf(a.run)
  const texts = [...record].map(([name, data]) => [name, data.toString('latin1')] as const)
  const leaked = (text: string): boolean =>
    text.includes(MODEL_KEY) || text.includes(STEP_SECRET) || /(^|\0)PATH=/m.test(text)
  expect(texts.filter(([, text]) => leaked(text)).map(([name]) => name)).toEqual([])
  expect(leaked(a.run.main.stdout)).toBe(false)
  expect([...filesIn(a.loot)].filter(([, text]) => leaked(text)).map(([name]) => name)).toEqual([])
}

function nestedRepositoryCase(as?: () => { uid: number; gid: number }) {
  return async () => {
    const loot = newLoot()
    // Iteration 1 makes sub/ (the old code committed it as a gitlink); iteration 2 changes a file in it, so
    // the next `git add -A` looks into it; then the fix.
    const a = await attack(
      loot,
      {
        1: nestedRepository(loot),
        2: `fs.writeFileSync('sub/f', 'two\\n')\n${FIX}\n${DONE}`,
        any: ''
      },
      as ? { as: as() } : {}
    )
    const { p, run } = a
    expect(ran(loot)).toEqual([])
    expect(run.outputs['stop-reason']).toBe('all_checks_passed')
    expect(run.outputs.iterations).toBe('2')
    // Delivered: the fix, no gitlink, no .gitmodules.
    const tree = p.remoteGit('ls-tree', '-r', 'ralph/fix-tests')
    expect(tree).not.toMatch(/^160000 /m)
    expect(tree).not.toMatch(/\tsub$|\.gitmodules/m)
    expect(p.remoteGit('show', 'ralph/fix-tests:calc.js')).toContain('a + b')
    // Refused, one line each, in the log and in the record.
    const warnings = run.main.commands.filter(c => c.command === 'warning').map(c => c.message)
    expect(warnings).toContainEqual(
      expect.stringMatching(/sub\/\.git: a git repository inside the work tree is not delivered/)
    )
    expect(warnings).toContainEqual(expect.stringMatching(/\.gitmodules: a change to it is not delivered/))
    const status = JSON.parse((await e2e.recordOf(run)).get('status.json')?.toString() ?? '{}') as {
      warnings?: string[]
    }
    expect(status.warnings).toContainEqual(expect.stringMatching(/^sub\/\.git: /))
  }
}

/** A 60 MB file the agent leaves (GitHub refuses a push holding a file over 100 MB; max-file-size is 50 MB). */
function largeFileCase(as?: () => { uid: number; gid: number }) {
  return async () => {
    const a = await attack(
      newLoot(),
      {
        1: `fs.writeFileSync('dump.bin', Buffer.alloc(60 * 1024 * 1024, 7))\n${FIX}\n${DONE}`,
        any: ''
      },
      as ? { as: as() } : {}
    )
    const { p, run } = a
    expect(run.outputs['stop-reason']).toBe('all_checks_passed')
    // Delivered: the fix, not the file.
    expect(p.remoteGit('ls-tree', '-r', '--name-only', 'ralph/fix-tests')).not.toMatch(/dump\.bin/)
    expect(p.remoteGit('show', 'ralph/fix-tests:calc.js')).toContain('a + b')
    const line =
      'dump.bin: 60 MB is over max-file-size (50 MB): it is not delivered; the run goes on without it'
    expect(run.main.commands.filter(c => c.command === 'warning').map(c => c.message)).toContainEqual(line)
    const status = JSON.parse((await e2e.recordOf(run)).get('status.json')?.toString() ?? '{}') as {
      notDelivered?: string[]
    }
    expect(status.notDelivered).toEqual([line])
    expect(p.api.state.pulls).toHaveLength(1)
    expect(p.api.state.pulls[0].body).toContain(`### Not delivered\n\n- \`${line}\``)
  }
}

/** The agent's first iteration swaps `file` (relative to the project) for a link or a FIFO. */
function swap(file: string, kind: 'environ' | 'fifo'): string {
  const F = JSON.stringify(file)
  return kind === 'environ'
    ? `fs.rmSync(${F}, { force: true }); fs.symlinkSync('/proc/self/environ', ${F})`
    : `fs.rmSync(${F}, { force: true }); (await import('node:child_process')).execFileSync('mkfifo', [${F}])`
}

function swappedFileCase(
  which: 'RALPH.md' | 'guardrails',
  kind: 'environ' | 'fifo',
  as?: () => { uid: number; gid: number }
) {
  return async () => {
    const file = which === 'RALPH.md' ? `${RALPH_DIR}/RALPH.md` : 'GUARDRAILS.md'
    // The guardrails file is the agent's to write, and ignored: git does not stop at a FIFO there first.
    const ignore = which === 'guardrails' ? "fs.writeFileSync('.gitignore', 'GUARDRAILS.md\\n'); " : ''
    const started = Date.now()
    const a = await attack(
      newLoot(),
      { 1: `${ignore}${swap(file, kind)}`, 2: `${FIX}\n${DONE}`, any: '' },
      {
        ralphText: ralph({ extra: 'guardrails: GUARDRAILS.md' }),
        // Protected paths would put RALPH.md back before iteration 2 reads it: the read itself is what is tested.
        inputs: { 'max-time': '3m', 'protected-paths': 'none' },
        ...(as ? { as: as() } : {})
      }
    )
    const { run } = a
    await expectNothingOfTheAction(a)
    // Within its time budget, whatever the FIFO: nothing waits on it.
    expect(Date.now() - started).toBeLessThan(180_000)
    expect(run.outputs['stop-reason']).toBe('agent_error')
    expect(run.outputs.success).toBe('false')
    expect(run.main.stdout).toMatch(
      kind === 'environ'
        ? /is a symbolic link: the action follows no link of the work tree/
        : /is not a regular file|can only add regular files/
    )
    const record = await e2e.recordOf(run)
    expect([...record.keys()].filter(name => name.includes('iteration-002/prompt.md'))).toEqual([])
    // A FIFO left in the project would stop its clean-up's walk: gone now.
    rmSync(path.join(a.p.workspace, file), { force: true })
  }
}

describeIsolated(
  'the hostile work tree (isolation: user, the action as root)',
  process.getuid?.() === 0 ? whyNoIsolation() : 'the action-as-root path needs the tests to run as root'
)('the action as root (setpriv)', () => {
  test(
    'a nested repository’s filter, smudge, fsmonitor and hooks never run as the action; it is not delivered',
    nestedRepositoryCase(),
    240_000
  )
  test(
    'a 60 MB file the agent leaves is not pushed; the log, the record and the pull request say why in one line',
    largeFileCase(),
    240_000
  )
  test.each([
    ['RALPH.md', 'a link to /proc/self/environ', 'environ'],
    ['the guardrails file', 'a link to /proc/self/environ', 'environ'],
    ['RALPH.md', 'a FIFO', 'fifo'],
    ['the guardrails file', 'a FIFO', 'fifo']
  ] as const)(
    '%s swapped for %s: refused, nothing of the action’s environment anywhere, the run ends in time',
    (which, _, kind) => swappedFileCase(which === 'RALPH.md' ? 'RALPH.md' : 'guardrails', kind)(),
    240_000
  )
})

describeIsolated(
  'the hostile work tree (isolation: user, the job user with passwordless sudo)',
  whyNoSudoRunner()
)('the job user with passwordless sudo (sudo)', () => {
  test(
    'a nested repository’s filter, smudge, fsmonitor and hooks never run as the action; it is not delivered',
    nestedRepositoryCase(sudoRunner),
    240_000
  )
  test.each([
    ['RALPH.md', 'a link to /proc/self/environ', 'environ'],
    ['the guardrails file', 'a FIFO', 'fifo']
  ] as const)(
    '%s swapped for %s: refused, nothing of the action’s environment anywhere, the run ends in time',
    (which, _, kind) => swappedFileCase(which === 'RALPH.md' ? 'RALPH.md' : 'guardrails', kind, sudoRunner)(),
    240_000
  )
})

describe('a ralph’s files are read at start without following a link (#25)', () => {
  test('RALPH.md as a link to another file of the project: the step fails in one line, no agent runs', async () => {
    const p = await e2e.project(projectFiles(agentScript({ any: DONE })))
    const file = path.join(p.workspace, RALPH_DIR, 'RALPH.md')
    // A valid ralph as far as its text goes: only the link is wrong.
    copyFileSync(file, path.join(p.workspace, 'notes.md'))
    rmSync(file)
    symlinkSync('../../../notes.md', file)
    const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', isolation: 'none' } })
    expect(run.main.exitCode).not.toBe(0)
    expect(run.main.errors.map(e => e.message)).toEqual([
      `Input 'ralph' (fix-tests): ${RALPH_DIR}/RALPH.md is a link to notes.md: the action follows no link of the work tree, not even one inside the project; make it a regular file.`
    ])
    expect(run.outputs.iterations ?? '0').toBe('0')
    expect(p.api.state.pulls).toEqual([])
  }, 120_000)
})

describe('isolation none: the model key left the action’s initial environment', () => {
  test('an agent of the job’s user reading its ancestors’ /proc/<pid>/environ finds no model key', async () => {
    const loot = newLoot()
    const L = JSON.stringify(loot)
    const read = String.raw`
const parentOf = pid => { try { const s = fs.readFileSync('/proc/' + pid + '/stat', 'utf8'); return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]) } catch { return 0 } }
for (let pid = process.ppid, n = 0; pid > 1 && n < 8; pid = parentOf(pid), n++) {
  try { fs.writeFileSync(${L} + '/environ-' + pid, fs.readFileSync('/proc/' + pid + '/environ')) } catch {}
}
`
    const a = await attack(
      loot,
      { 1: `${read}\n${FIX}\n${DONE}`, any: '' },
      { inputs: { isolation: 'none' } }
    )
    expect(a.run.outputs['stop-reason']).toBe('all_checks_passed')
    const read_ = [...filesIn(loot)].filter(([name]) => path.basename(name).startsWith('environ-'))
    // The action itself is among them (the agent is its child), and the job's other variables are still there.
    expect(read_.some(([, text]) => text.includes('RALPH_STEP_SECRET='))).toBe(true)
    expect(read_.filter(([, text]) => text.includes(MODEL_KEY)).map(([name]) => name)).toEqual([])
  }, 240_000)
})

// Issue #35: paths are bytes, and git of the action's never waits on the tree. A name that is not UTF-8
// (`caf\xe9`) is the name on disk in every rule (nested repository, max-file-size, protected paths,
// delivery), shown escaped in the log; a FIFO where git reads a file ends the run in one line, in time.

/** A path string for bytes given as latin1 text ('caf\xe9'): a name that is not UTF-8. */
const named = (latin1: string): string => pathFromBytes(Buffer.from(latin1, 'latin1'))

/** The pushed branch's files in the bare remote: each name as latin1 text of its exact bytes, with its bytes. */
function pushedFiles(p: Project, branch = 'ralph/fix-tests'): Map<string, Buffer> {
  const git = (...args: string[]): Buffer => execFileSync('git', args, { cwd: p.remote })
  const files = new Map<string, Buffer>()
  for (const record of git('ls-tree', '-r', '-z', branch).toString('latin1').split('\0').filter(Boolean)) {
    const tab = record.indexOf('\t')
    const [mode, , oid] = record.slice(0, tab).split(' ')
    files.set(
      record.slice(tab + 1),
      mode === '160000' ? Buffer.from('gitlink') : git('cat-file', 'blob', oid)
    )
  }
  return files
}

/** The gate names its test file: node's own runner, left to find tests itself, cannot read a name that is not UTF-8. */
const NAMED_GATE = ralph({ checks: ['node --test --test-reporter=spec calc.test.js'] })

const warningsOf = (run: ActionRun): string[] =>
  run.main.commands.filter(c => c.command === 'warning').map(c => c.message)

describeIsolated(
  'a work tree whose names are bytes, and FIFOs where git reads (isolation: user, the action as root)',
  process.getuid?.() === 0 ? whyNoIsolation() : 'the action-as-root path needs the tests to run as root'
)('#35: names that are not UTF-8, FIFOs where git reads a file', () => {
  test('a nested repository named caf\\xe9 with a clean filter: the filter never runs, nothing of it is delivered, the log names it escaped', async () => {
    const loot = newLoot()
    const a = await attack(
      loot,
      {
        1: nestedRepository(loot, 'caf\xe9'),
        2: `fs.writeFileSync(Buffer.from('caf\\xe9/f', 'latin1'), 'two\\n')\n${FIX}\n${DONE}`,
        any: ''
      },
      // Without protected paths: auto's put-back would remove the nested .gitattributes (#37), and with it the
      // filter this attack needs the action's git to meet.
      { ralphText: NAMED_GATE, inputs: { 'protected-paths': 'none' } }
    )
    const { p, run } = a
    // The filter writes ran-clean-<its uid> whenever a git runs it: none did.
    expect(ran(loot)).toEqual([])
    expect(run.outputs['stop-reason']).toBe('all_checks_passed')
    expect(run.outputs.iterations).toBe('2')
    const pushed = pushedFiles(p)
    expect([...pushed.keys()].filter(name => name.startsWith('caf'))).toEqual([])
    expect([...pushed.values()].map(String)).not.toContain('gitlink')
    expect(pushed.get('calc.js')?.toString()).toContain('a + b')
    expect(warningsOf(run)).toContainEqual(
      '"caf\\xe9/.git": a git repository inside the work tree is not delivered (git would run its filters and hooks as the action); the run goes on without "caf\\xe9/"'
    )
    expect(run.main.stdout).not.toContain('caf\ufffd')
    // The control: the same change, seen by a git that honours the nested repository's config, runs its filter.
    execFileSync('sh', ['-c', 'cd "$(printf "caf\\351")" && git -c safe.directory="*" add -A'], {
      cwd: p.workspace,
      stdio: 'ignore'
    })
    expect(ran(loot)).toContain(`ran-clean-${process.getuid?.()}`)
  }, 240_000)

  test('a 4 KB file named big\\xff.bin is refused by max-file-size 1KB, as its ASCII twin is', async () => {
    const a = await attack(
      newLoot(),
      {
        1: `fs.writeFileSync(Buffer.from('big\\xff.bin', 'latin1'), Buffer.alloc(4096, 1))\nfs.writeFileSync('big.bin', Buffer.alloc(4096, 2))\n${FIX}\n${DONE}`,
        any: ''
      },
      { inputs: { 'max-file-size': '1KB' }, ralphText: NAMED_GATE }
    )
    const { p, run } = a
    expect(run.outputs['stop-reason']).toBe('all_checks_passed')
    const pushed = pushedFiles(p)
    expect([...pushed.keys()].filter(name => name.startsWith('big'))).toEqual([])
    expect(pushed.get('calc.js')?.toString()).toContain('a + b')
    const warnings = warningsOf(run)
    expect(warnings).toContainEqual(
      '"big\\xff.bin": 4096 bytes is over max-file-size (1024 bytes): it is not delivered; the run goes on without it'
    )
    expect(warnings).toContainEqual(
      'big.bin: 4096 bytes is over max-file-size (1024 bytes): it is not delivered; the run goes on without it'
    )
  }, 240_000)

  test.each(['.gitignore', 'sub/.gitignore', '.gitattributes', 'sub/.gitattributes'])(
    'the agent makes %s a FIFO: the run ends in one line naming it, within max-time; nothing waits on it',
    async file => {
      const F = JSON.stringify(file)
      const started = Date.now()
      const a = await attack(
        newLoot(),
        {
          1: `fs.mkdirSync('sub', { recursive: true }); fs.writeFileSync('sub/x', 'x\\n'); (await import('node:child_process')).execFileSync('mkfifo', [${F}])`,
          2: `${FIX}\n${DONE}`,
          any: ''
        },
        // Without protected paths: auto's put-back would remove a new .gitattributes before git meets it (#37).
        { inputs: { 'max-time': '3m', 'protected-paths': 'none' } }
      )
      const { run, p } = a
      // The step itself ended, by max-time at the latest: the action, its clean-up and its post step.
      expect(Date.now() - started).toBeLessThan(180_000)
      expect(run.outputs['stop-reason']).toBe('agent_error')
      expect(run.main.stdout).toContain(
        `${file} is a FIFO, where git reads a file: the action opens no special file of the work tree (git would wait on it), so the work cannot be committed; make it a regular file or remove it`
      )
      expect(p.api.state.pulls).toEqual([])
      rmSync(path.join(p.workspace, file), { force: true })
    },
    240_000
  )

  test.each([
    ['an honest fix', '', []],
    [
      'a fix that also weakens and deletes tests named caf\\xe9 and caf\\xe8',
      "fs.writeFileSync(Buffer.from('test/caf\\xe9.txt', 'latin1'), 'weak\\n')\nfs.rmSync(Buffer.from('test/caf\\xe8.txt', 'latin1'))",
      [
        'iteration 1: protected paths put back from the start commit before the checks: "test/caf\\xe8.txt" (deleted), "test/caf\\xe9.txt" (changed)'
      ]
    ]
  ])(
    '%s in a repository with names that are not UTF-8, under a protected test folder too: put back, verified and delivered byte for byte',
    async (_, tamper, putBack) => {
      const base = {
        [named('test/caf\xe9.txt')]: 'first\n',
        [named('test/caf\xe8.txt')]: 'second\n',
        'test/café.txt': 'third\n',
        [named('data/na\xefve.txt')]: 'fourth\n'
      }
      const p = await e2e.project({
        ...projectFiles(
          agentScript({
            1: `${FIX}\n${tamper}\nfs.mkdirSync('notes')\nfs.writeFileSync(Buffer.from('notes/r\\xe9sum\\xe9.txt', 'latin1'), 'new\\n')\n${DONE}`
          }),
          NAMED_GATE
        ),
        ...base
      })
      const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', isolation: 'user' } })
      expect(run.outputs['stop-reason']).toBe('all_checks_passed')
      expect(warningsOf(run).filter(w => /protected paths|not delivered/.test(w))).toEqual(putBack)
      const status = JSON.parse((await e2e.recordOf(run)).get('status.json')?.toString() ?? '{}') as {
        verification?: { verdict: string }
      }
      expect(status.verification?.verdict).toBe('passed')
      // Every name and content as its bytes in the pushed branch: the base's, the fix and the agent's new file.
      const pushed = pushedFiles(p)
      const latin1 = (name: string): string => pathBytes(name).toString('latin1')
      for (const [name, content] of Object.entries(base))
        expect(pushed.get(latin1(name))?.toString()).toBe(content)
      expect(pushed.get('notes/r\xe9sum\xe9.txt')?.toString()).toBe('new\n')
      expect(pushed.get('calc.js')?.toString()).toContain('a + b')
      expect([...pushed.keys()].filter(name => name.includes('\xef\xbf\xbd'))).toEqual([])
      expect(p.api.state.pulls).toHaveLength(1)
    },
    240_000
  )

  test('a file 2,500 folders deep: not delivered, and one line in the log says which folder and why', async () => {
    const a = await attack(
      newLoot(),
      {
        1: `const start = process.cwd()\nfs.mkdirSync('deep')\nprocess.chdir('deep')\nfor (let i = 0; i < 2500; i++) { fs.mkdirSync('a'); process.chdir('a') }\nfs.writeFileSync('file.txt', 'deep\\n')\nprocess.chdir(start)\n${FIX}\n${DONE}`,
        any: ''
      },
      { ralphText: NAMED_GATE }
    )
    const { p, run } = a
    try {
      expect(run.outputs['stop-reason']).toBe('all_checks_passed')
      const pushed = pushedFiles(p)
      expect([...pushed.keys()].filter(name => name.startsWith('deep'))).toEqual([])
      expect(pushed.get('calc.js')?.toString()).toContain('a + b')
      expect(warningsOf(run).filter(w => w.startsWith('deep/'))).toEqual([
        expect.stringMatching(
          /^deep\/a\/a\/.+….+\/a\/: its path \(4,0\d\d bytes with the work tree's\) is too long for the action to look into, so it is not delivered; the run goes on without it$/
        )
      ])
    } finally {
      execFileSync('rm', ['-rf', path.join(p.workspace, 'deep')])
    }
  }, 240_000)
})
