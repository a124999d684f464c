// Held-out gates (#37): their files wait in a folder only the action's user reads, go into the clean checkout only
// once the other gates passed there, run once, and by default the run tells only "a held-out gate failed".
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import path from 'node:path'
import { tempDir } from '../git/temp-repo.js'
import { holdoutFolderProblem, layHoldout } from '../../src/loop/clean/holdout.js'
import { HOLDOUT_FAILED, holdoutFeedback } from '../../src/loop/clean/holdout-text.js'
import { decideStop } from '../../src/loop/stop.js'
import type { HoldoutSetting } from '../../src/loop/index.js'
import { countRuns, harness, type Harness } from './harness.js'

const SECRET = 'HELD-OUT-7c1e9'

let h: Harness
beforeEach(() => {
  h = harness()
})
afterEach(() => h.cleanup())

/** calc.js with a bug, a visible test of add(1, 2); the agent writes `fix` into calc.js. */
function project(fix: string, gate = 'node --test test/'): void {
  h.repo.write('calc.js', 'exports.add = (a, b) => a - b\n')
  h.repo.write(
    'test/calc.test.js',
    "const test = require('node:test')\nconst assert = require('node:assert')\nconst { add } = require('../calc.js')\ntest('adds', () => assert.strictEqual(add(1, 2), 3))\n"
  )
  const agent = h.script(
    'agent.sh',
    `${countRuns(h.tools)}\ncat >/dev/null\nprintf '%s\\n' '${fix}' > calc.js`
  )
  h.writeRalph(`agent: ${agent}\nchecks:\n  - name: tests\n    run: ${gate}`, 'Fix add.')
  h.repo.git('add', '-A')
  h.repo.git('commit', '-q', '-m', 'the project')
}

/** The held-out folder (0700): a test of add(10, 5) whose message holds SECRET. */
function heldOut(feedback: HoldoutSetting['feedback'] = 'none'): HoldoutSetting & { path: string } {
  const dir = path.join(tempDir('ralph-holdout-parent-'), 'holdout')
  mkdirSync(path.join(dir, 'holdout'), { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  writeFileSync(
    path.join(dir, 'holdout', 'more.test.js'),
    `const test = require('node:test')\nconst assert = require('node:assert')\nconst { add } = require('../calc.js')\ntest('adds more', () => assert.strictEqual(add(10, 5), 15, '${SECRET}'))\n`
  )
  return { checks: [{ name: 'held-out', run: 'node --test holdout/', timeout: 60 }], path: dir, feedback }
}

/** Every file of the record, as text. */
function recordText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(e => e.isFile())
    .map(e => readFileSync(path.join(e.parentPath, e.name), 'utf8'))
    .join('\n')
}

test('a visible gate naming its test folder with a slash (node --test test/) gets its canaries: patched assert caught', async () => {
  project('require("node:assert").strictEqual = () => {}; exports.add = (a, b) => a - b')
  const { result } = await h.run({ maxIterations: 1, commit: true, completionTag: '', protect: ['auto'] })
  expect(result.iterations[0].checks.every(c => c.passed)).toBe(true)
  expect(result.stopReason).toBe('verify_failed')
  expect(result.verification?.checks[0].tail).toContain('the test runner did not report the action')
})

test('a hard-coding agent passes the visible test and fails the held-out one: verify_failed at once, told only that a held-out gate failed', async () => {
  project('exports.add = (a, b) => (a === 1 && b === 2 ? 3 : 0)')
  const holdout = heldOut()
  const { result, events } = await h.run({ maxIterations: 3, commit: true, completionTag: '', holdout })
  expect(result.stopReason).toBe('verify_failed')
  expect(result.stopDetail).toMatch(
    /^every gate passed on a clean checkout of [0-9a-f]{12} in iteration 1, but a held-out gate failed; held-out gates run once, so the loop stopped there$/
  )
  // One agent run: no next iteration to try again against the held-out gate, or to read what it left.
  expect(readFileSync(path.join(h.tools, 'count'), 'utf8').trim()).toBe('1')
  expect(result.verification?.holdout).toEqual({ passed: false, feedback: 'none' })
  // Nothing of the held-out gate: not its file's name, not its message, in the record or any event.
  const told = recordText(h.record) + JSON.stringify(events)
  expect(told).toContain(HOLDOUT_FAILED)
  expect(told).not.toContain(SECRET)
  expect(told).not.toContain('more.test')
  expect(told).not.toContain('adds more')
  // The clean checkout is gone with the held-out files; the folder is as it was.
  expect(h.repo.git('worktree', 'list').trim().split('\n')).toHaveLength(1)
  expect(readdirSync(path.join(holdout.path, 'holdout'))).toEqual(['more.test.js'])
})

test('an honest agent passes the held-out gate: all_checks_passed, and the evidence names the held-out gate', async () => {
  project('exports.add = (a, b) => a + b')
  const { result } = await h.run({ maxIterations: 3, commit: true, completionTag: '', holdout: heldOut() })
  expect(result.stopReason).toBe('all_checks_passed')
  expect(result.verification?.holdout).toEqual({ passed: true, feedback: 'none', gates: ['held-out'] })
  expect(h.readRecord('progress.md')).toContain(
    '**Held-out gates passed** there too (gates the agent never saw): `held-out`.'
  )
  // Held-out logs stay out of the record with feedback none, even on a pass.
  expect(recordText(h.record)).not.toContain(SECRET)
})

test('holdout-feedback full keeps the held-out gate’s name, output and log in the record', async () => {
  project('exports.add = (a, b) => (a === 1 && b === 2 ? 3 : 0)')
  const { result } = await h.run({
    maxIterations: 3,
    commit: true,
    completionTag: '',
    holdout: heldOut('full')
  })
  expect(result.stopReason).toBe('verify_failed')
  expect(result.stopDetail).toContain('but a held-out gate failed (held-out);')
  expect(result.verification?.holdout?.runs?.[0]).toMatchObject({ name: 'held-out', passed: false })
  expect(recordText(h.record)).toContain(SECRET)
})

test('code that patches the runner’s assert fails the held-out gate by its canaries', async () => {
  // add is wrong, and calc.js makes every strictEqual pass: the held-out test alone would be fooled.
  // The visible gate's runner is not one the verdict reads (plain node): only the held-out gate has canaries.
  project(
    'require("node:assert").strictEqual = () => {}; exports.add = (a, b) => (a === 1 && b === 2 ? 3 : 0)',
    'node test/calc.test.js'
  )
  const { result } = await h.run({
    maxIterations: 1,
    commit: true,
    completionTag: '',
    holdout: heldOut('full')
  })
  expect([result.stopReason, result.stopDetail]).toEqual([
    'verify_failed',
    expect.stringContaining('but a held-out gate failed (held-out);')
  ])
  expect(JSON.stringify(result.verification?.holdout?.runs)).toContain(
    'the test runner did not report the action'
  )
})

describe('the held-out folder', () => {
  test('a folder of this user, closed to others, outside the work tree, is fine', () => {
    const { path: dir } = heldOut()
    expect(holdoutFolderProblem(dir, process.getuid!(), [h.repo.dir])).toBeUndefined()
  })

  test('a folder others may open, a link, a relative path, or one inside the work tree is refused, naming the fix', () => {
    const { path: dir } = heldOut()
    const uid = process.getuid!()
    chmodSync(dir, 0o755)
    expect(holdoutFolderProblem(dir, uid, [])).toMatch(/has mode 755: other users may open it; chmod 700 it$/)
    chmodSync(dir, 0o700)
    const link = path.join(path.dirname(dir), 'link')
    symlinkSync(dir, link)
    expect(holdoutFolderProblem(link, uid, [])).toContain('is not a folder (a link is not followed)')
    expect(holdoutFolderProblem('holdout', uid, [])).toContain('must be an absolute path')
    expect(holdoutFolderProblem(dir, uid + 1, [])).toContain(`not to the action's user (uid ${uid + 1})`)
    const inside = path.join(h.repo.dir, 'secret')
    mkdirSync(inside, { mode: 0o700 })
    expect(holdoutFolderProblem(inside, uid, [h.repo.dir])).toContain('where the agent works')
  })

  test('a folder under a parent another user may write (not sticky) is refused: that user could swap it', () => {
    const parent = tempDir('ralph-holdout-open-')
    const dir = path.join(parent, 'holdout')
    mkdirSync(dir, { mode: 0o700 })
    const nobody = process.getuid!() + 1
    chownSync(parent, nobody, nobody)
    chmodSync(parent, 0o777)
    expect(holdoutFolderProblem(dir, process.getuid!(), [])).toMatch(
      new RegExp(`lies under ${parent}, which other users may write: give holdout-path`)
    )
    // Sticky (as /tmp is): no other user may rename what is not theirs there.
    chmodSync(parent, 0o1777)
    expect(holdoutFolderProblem(dir, process.getuid!(), [])).toBeUndefined()
  })
})

describe('laying the held-out files into the checkout', () => {
  test('files and folders are copied, a delivered file at a held-out file’s place is replaced, modes kept', () => {
    const { path: from } = heldOut()
    writeFileSync(path.join(from, 'run.sh'), 'echo hi\n', { mode: 0o755 })
    const project = tempDir('ralph-checkout-')
    mkdirSync(path.join(project, 'holdout'))
    writeFileSync(path.join(project, 'holdout', 'more.test.js'), 'the agent’s guess\n')
    const laid = layHoldout(from, project)
    expect('files' in laid && [...laid.files.keys()].sort()).toEqual(['holdout/more.test.js', 'run.sh'])
    expect(readFileSync(path.join(project, 'holdout', 'more.test.js'), 'utf8')).toContain(SECRET)
    expect(statSync(path.join(project, 'run.sh')).mode & 0o777).toBe(0o755)
  })

  test('a delivered link where a held-out folder or file goes is a problem, and nothing is written through it', () => {
    const { path: from } = heldOut()
    const project = tempDir('ralph-checkout-')
    const elsewhere = tempDir('ralph-elsewhere-')
    symlinkSync(elsewhere, path.join(project, 'holdout'))
    expect(layHoldout(from, project)).toEqual({
      problems: ['the delivered commit has holdout, not a folder, where the held-out folder holdout goes']
    })
    expect(readdirSync(elsewhere)).toEqual([])
    const second = tempDir('ralph-checkout-')
    mkdirSync(path.join(second, 'holdout'))
    symlinkSync(path.join(elsewhere, 'x.js'), path.join(second, 'holdout', 'more.test.js'))
    expect(layHoldout(from, second)).toEqual({
      problems: [
        'the delivered commit has holdout/more.test.js, not a regular file, where a held-out file goes'
      ]
    })
    expect(readdirSync(elsewhere)).toEqual([])
  })

  test('a link in the held-out folder is refused, not followed', () => {
    const { path: from } = heldOut()
    symlinkSync('/etc/hostname', path.join(from, 'host'))
    const laid = layHoldout(from, tempDir('ralph-checkout-'))
    expect(laid).toEqual({
      problems: [
        'holdout-path holds host, neither a regular file nor a folder: held-out gates take only those'
      ]
    })
  })
})

test('the feedback: one fixed line with none; the failing gates’ names with full', () => {
  const failed = {
    name: 'hidden',
    run: 'x',
    passed: false,
    exitCode: 1,
    timedOut: false,
    durationMs: 1,
    outputBytes: 1,
    tail: SECRET,
    log: 'x'
  }
  expect(holdoutFeedback({ passed: false, feedback: 'none' })).toBe('a held-out gate failed')
  expect(holdoutFeedback({ passed: false, feedback: 'full', runs: [failed] })).toBe(
    'a held-out gate failed (hidden)'
  )
  expect(holdoutFeedback({ passed: true, feedback: 'full', gates: ['hidden'] })).toBe('')
})

test('held-out gates stopped by the run’s end are not called failed: the stop is the run’s own', () => {
  const verification = {
    commit: 'c'.repeat(40),
    iteration: 1,
    startedAt: '',
    durationMs: 0,
    setup: [],
    checks: [],
    checksMs: 0,
    holdout: { passed: false, feedback: 'none' as const }
  }
  const end = (verdict: 'failed' | 'interrupted') => ({
    iteration: 1,
    success: false,
    interrupted: verdict === 'interrupted',
    record: { verification: { ...verification, verdict } }
  })
  const budgets = { ran: 1, maxIterations: 5, gated: true, stopOnError: false }
  const stop = (verdict: 'failed' | 'interrupted') =>
    decideStop(
      end(verdict) as unknown as Parameters<typeof decideStop>[0],
      budgets as unknown as Parameters<typeof decideStop>[1]
    )
  expect(stop('failed')?.detail).toContain('but a held-out gate failed; held-out gates run once')
  expect(stop('interrupted')).toBeUndefined()
})

test('code that rewrites a held-out test file before the runner loads it, and puts its bytes back after, fails the held-out gate', async () => {
  // Loaded by a.test.js, calc.js rewrites b.test.js to compute the answer itself; loaded by that b.test.js, it
  // writes b's bytes back (canary and all): the bytes after the run are the laid ones.
  project(
    [
      'const fs = require("fs"), p = require("path");',
      'const b = p.join(__dirname, "holdout", "b.test.js"), s = p.join(__dirname, ".stash");',
      'const caller = (module.parent && module.parent.filename) || "";',
      'if (caller.endsWith("a.test.js")) { const t = fs.readFileSync(b, "utf8"); fs.writeFileSync(s, t); fs.writeFileSync(b, t.split("add(").join("((x, y) => x + y)(")) }',
      'if (caller.endsWith("b.test.js") && fs.existsSync(s)) { fs.writeFileSync(b, fs.readFileSync(s)); fs.unlinkSync(s) }',
      'exports.add = (a, b2) => (a === 1 && b2 === 2 ? 3 : 0)'
    ].join(' ')
  )
  const holdout = loadedInTurn()
  const { result } = await h.run({ maxIterations: 1, commit: true, completionTag: '', holdout })
  expect([result.stopReason, result.stopDetail]).toEqual([
    'verify_failed',
    expect.stringContaining('but a held-out gate failed')
  ])
  expect(result.verification?.holdout?.passed).toBe(false)
  // Every held-out test passed: only the check that they ran as laid (bytes back or not) can refuse it.
  expect(result.verification?.holdout?.runs?.map(run => run.passed)).toEqual([true])
})

/**
 * The held-out folder in full feedback, run one file after another: a.test.js loads calc.js first, then
 * b.test.js (the test of add(10, 5)) runs; more.test.js is emptied.
 */
function loadedInTurn(): ReturnType<typeof heldOut> {
  const holdout = heldOut('full')
  const dir = path.join(holdout.path, 'holdout')
  writeFileSync(
    path.join(dir, 'a.test.js'),
    "const test = require('node:test')\nrequire('../calc.js')\ntest('loads', () => {})\n"
  )
  writeFileSync(path.join(dir, 'b.test.js'), readFileSync(path.join(dir, 'more.test.js')))
  writeFileSync(path.join(dir, 'more.test.js'), "require('node:test')('nothing', () => {})\n")
  holdout.checks[0].run = 'node --test --test-concurrency=1 holdout/'
  return holdout
}

// KNOWN HOLE (#37, c37-red): the lent checkout is the agent's user's, so the code under test may rename a held-out
// folder (its parent is the agent's) and rename it back; no laid file changes. test.failing until it is closed
// (e.g. the lend leaving the held-out folders and their parents the action's, sticky like /tmp).
test.failing(
  'code that swaps a held-out folder for its own while the runner loads it, and swaps it back, fails the held-out gate',
  async () => {
    // Loaded by a.test.js, calc.js moves holdout/ aside and puts a holdout/b.test.js of its own there; loaded by
    // that b.test.js, it moves the laid folder back: each laid file is untouched, as laid.
    project(
      [
        'const fs = require("fs"), p = require("path");',
        'const d = p.join(__dirname, "holdout"), s = p.join(__dirname, ".aside");',
        'const caller = (module.parent && module.parent.filename) || "";',
        'if (caller.endsWith("a.test.js")) { const t = fs.readFileSync(p.join(d, "b.test.js"), "utf8"); fs.renameSync(d, s); fs.mkdirSync(d); fs.writeFileSync(p.join(d, "b.test.js"), t.split("add(").join("((x, y) => x + y)(")) }',
        'if (caller.endsWith("b.test.js") && fs.existsSync(s)) { fs.rmSync(d, { recursive: true }); fs.renameSync(s, d) }',
        'exports.add = (a, b2) => (a === 1 && b2 === 2 ? 3 : 0)'
      ].join(' ')
    )
    const holdout = loadedInTurn()
    const { result } = await h.run({ maxIterations: 1, commit: true, completionTag: '', holdout })
    expect([result.stopReason, result.stopDetail]).toEqual([
      'verify_failed',
      expect.stringContaining('but a held-out gate failed')
    ])
    expect(result.verification?.holdout?.passed).toBe(false)
  }
)

test('a conftest.py the delivered commit puts where the held-out folder goes cannot make a failing held-out test pass', async () => {
  // The workflow names the folder (`pytest holdout/`); the agent commits holdout/conftest.py, which turns every
  // failure into a pass except the action's canaries (known by their message's shape).
  h.repo.write('calc.py', 'def add(a, b):\n    return a - b\n')
  h.repo.write('tests/test_calc.py', 'from calc import add\n\ndef test_adds():\n    assert add(1, 2) == 3\n')
  h.repo.write('tools/calc.py', 'def add(a, b):\n    return 3 if (a, b) == (1, 2) else 0\n')
  h.repo.write(
    'tools/conftest.py',
    [
      'import re, pytest',
      '@pytest.hookimpl(hookwrapper=True)',
      'def pytest_runtest_makereport(item, call):',
      '    outcome = yield',
      '    report = outcome.get_result()',
      '    if report.failed and not re.search(r"expected \\w+ to match", str(report.longrepr)):',
      '        report.outcome = "passed"',
      ''
    ].join('\n')
  )
  const agent = h.script(
    'agent.sh',
    'cat >/dev/null\ncp tools/calc.py calc.py\nmkdir -p holdout\ncp tools/conftest.py holdout/conftest.py'
  )
  h.writeRalph(`agent: ${agent}\nchecks:\n  - name: tests\n    run: python3 -m pytest tests/`, 'Fix add.')
  h.repo.git('add', '-A')
  h.repo.git('commit', '-q', '-m', 'the project')
  const dir = path.join(tempDir('ralph-holdout-parent-'), 'holdout')
  mkdirSync(path.join(dir, 'holdout'), { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  writeFileSync(
    path.join(dir, 'holdout', 'test_more.py'),
    `from calc import add\n\ndef test_adds_more():\n    assert add(10, 5) == 15, '${SECRET}'\n`
  )
  const holdout: HoldoutSetting = {
    checks: [{ name: 'held-out', run: 'python3 -m pytest holdout/', timeout: 60 }],
    path: dir,
    feedback: 'full'
  }
  const { result } = await h.run({
    maxIterations: 1,
    commit: true,
    completionTag: '',
    holdout,
    protect: ['auto']
  })
  expect(result.iterations[0].checks.every(c => c.passed)).toBe(true)
  expect([result.stopReason, result.verification?.holdout?.passed]).toEqual(['verify_failed', false])
})
