// Protected paths: the glob and `auto` decisions (pure), and the restore on a real git repository with real
// processes: what the agent changed, deleted, replaced by a link or shadowed is put back from the start commit.
import { afterEach, describe, expect, test } from '@jest/globals'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync
} from 'node:fs'
import path from 'node:path'
import {
  autoRules,
  filesRun,
  findChanges,
  globMatches,
  parseProtectSetting,
  ProtectedPathError,
  protectedChanges,
  protectedInCommit,
  protectionFromRules,
  protectRules,
  resolveProtection,
  restore,
  restoreProtected,
  restoreScript,
  revertsLine,
  ruleFor,
  type AutoFacts
} from '../../src/loop/protect/index.js'
import { editableRule } from '../../src/loop/protect-rules/editable.js'
import { runProcess } from '../../src/proc/index.js'
import { pathBytes } from '../../src/text/tree-path.js'
import { tempRepo, type TempRepo } from '../git/temp-repo.js'

const facts: AutoFacts = {
  ralphDir: '.agents/ralphs/fix',
  ralphFile: '.agents/ralphs/fix/RALPH.md',
  checks: [
    { run: 'npm test' },
    { run: './scripts/check.sh --strict' },
    { run: 'bash -c "pytest tests/unit"' }
  ],
  projectDir: ''
}
const base = new Set([
  'package.json',
  'scripts/check.sh',
  'src/calc.js',
  'src/calc.test.js',
  'tests/unit/test_calc.py',
  'tests/unit/helpers.py',
  'lib/util_test.go',
  'README.md'
])

describe('globs', () => {
  test.each([
    ['**/*.test.*', 'a/b/calc.test.js', true],
    ['**/*.test.*', 'calc.test.ts', true],
    ['**/*.test.*', 'calc.js', false],
    ['**/test/**', 'test/a.js', true],
    ['**/test/**', 'pkg/test/deep/a.js', true],
    ['**/test/**', 'testing/a.js', false],
    ['**/.mocharc*', '.mocharc.yml', true],
    ['**/.mocharc*', 'sub/.mocharc.json', true],
    ['.github/**', '.github/workflows/ci.yml', true],
    ['.github/**', 'x/.github/a', false],
    ['.github/', '.github/workflows/ci.yml', true],
    ['docs', 'docs/a/b.md', true],
    ['src/*.js', 'src/a.js', true],
    ['src/*.js', 'src/a/b.js', false],
    ['src/?.js', 'src/a.js', true],
    ['src/[ab].js', 'src/b.js', true],
    ['src/[ab].js', 'src/c.js', false],
    ['*.{yml,yaml}', 'ci.yaml', true],
    ['**/jest.config.*', 'jest.config.js', true]
  ])('%s matches %s: %s', (glob, file, expected) => {
    expect(globMatches(glob, file)).toBe(expected)
  })
})

describe('the setting', () => {
  test('empty is auto; none alone; a list replaces auto and may hold it', () => {
    expect(parseProtectSetting([])).toEqual(['auto'])
    expect(parseProtectSetting(['none'])).toEqual(['none'])
    expect(parseProtectSetting(['auto', 'docs/**'])).toEqual(['auto', 'docs/**'])
    expect(parseProtectSetting(['none', 'docs/**'])).toEqual({ problem: expect.stringContaining("'none'") })
    expect(parseProtectSetting(['../x'])).toEqual({
      problem: expect.stringContaining('inside the repository')
    })
    expect(parseProtectSetting(['/etc'])).toEqual({ problem: expect.stringContaining('no leading /') })
  })

  test('none protects nothing; a list without auto protects only what it names', () => {
    expect(protectRules(['none'], facts, base)).toEqual([])
    const rules = protectRules(['docs/**'], facts, base)
    expect(rules).toEqual([{ glob: 'docs/**', scope: 'all', why: 'protected: docs/**' }])
    expect(ruleFor(rules, 'src/calc.test.js', true)).toBeUndefined()
    expect(ruleFor(rules, 'docs/new.md', false)).toBeDefined()
    const both = protectRules(['auto', 'docs/**'], facts, base)
    expect(ruleFor(both, 'src/calc.test.js', true)).toBeDefined()
    expect(ruleFor(both, 'docs/new.md', false)).toBeDefined()
  })
})

describe('auto', () => {
  const rules = autoRules(facts, base)
  const protectedInBase = (file: string): boolean => ruleFor(rules, file, true) !== undefined
  const protectedNew = (file: string): boolean => ruleFor(rules, file, false) !== undefined

  test("the ralph's folder and .github/, new files in them too", () => {
    expect(protectedNew('.agents/ralphs/fix/RALPH.md')).toBe(true)
    expect(protectedNew('.agents/ralphs/fix/extra.md')).toBe(true)
    expect(protectedNew('.github/workflows/evil.yml')).toBe(true)
  })

  test('files a gate names (not folders: `eslint src` names the code), and package.json for a JavaScript gate', () => {
    expect(protectedInBase('scripts/check.sh')).toBe(true)
    expect(protectedInBase('tests/unit/helpers.py')).toBe(true)
    const lint = autoRules({ ...facts, checks: [{ run: 'eslint src' }] }, base)
    expect(ruleFor(lint, 'src/calc.js', true)).toBeUndefined()
    expect(protectedInBase('package.json')).toBe(true)
    expect(
      autoRules({ ...facts, checks: [{ run: 'pytest' }] }, base).some(r => r.glob === 'package.json')
    ).toBe(false)
  })

  test('a gate protects what it runs, never the data it reads: `grep -q x calc.js` leaves calc.js to the agent', () => {
    expect(filesRun("grep -q 'a + b' calc.js")).toEqual(['grep'])
    expect(filesRun('./check.sh --strict && node scripts/verify.js; timeout 60 bash -x ci/run.sh')).toEqual([
      './check.sh',
      'node',
      'scripts/verify.js',
      'timeout',
      'bash',
      'ci/run.sh'
    ])
    expect(filesRun('bash -c "eslint src && ./lint.sh"')).toEqual(['bash', 'eslint', './lint.sh'])
    expect(filesRun('CI=1 env FOO=1 python3 -m pytest -c ci/pytest.ini')).toEqual([
      'env',
      'python3',
      'ci/pytest.ini'
    ])
    expect(filesRun('npx vitest --config=vitest.ci.ts')).toEqual(['npx', 'vitest.ci.ts'])
    const grep = autoRules({ ...facts, checks: [{ run: "grep -q 'a + b' src/calc.js" }] }, base)
    expect(ruleFor(grep, 'src/calc.js', true)).toBeUndefined()
  })

  test('tests that exist are protected, new tests are the agent’s to add', () => {
    expect(protectedInBase('src/calc.test.js')).toBe(true)
    expect(protectedInBase('lib/util_test.go')).toBe(true)
    expect(protectedNew('src/more.test.js')).toBe(false)
    expect(protectedNew('tests/unit/test_more.py')).toBe(false)
  })

  test('runner configuration is protected, and a new one anywhere (a shadow) is not allowed', () => {
    for (const file of [
      'jest.config.js',
      'sub/conftest.py',
      '.npmrc',
      '.mocharc.yml',
      'pytest.ini',
      'GNUmakefile',
      // Shadows that win over what judges: pytest's preferred ini, a module named as the runner, a manual mock.
      'sub/.pytest.ini',
      'pytest.py',
      '__mocks__/assert.js',
      'src/__mocks__/fs.js',
      'go.mod'
    ])
      expect([file, protectedNew(file)]).toEqual([file, true])
  })

  test('the code under test is not protected', () => {
    expect(protectedInBase('src/calc.js')).toBe(false)
    expect(protectedInBase('README.md')).toBe(false)
  })

  test("a ralph whose folder is the project's protects its RALPH.md only", () => {
    const own = autoRules({ ...facts, ralphDir: '', ralphFile: 'RALPH.md' }, base)
    expect(ruleFor(own, 'RALPH.md', true)).toBeDefined()
    expect(ruleFor(own, 'src/calc.js', true)).toBeUndefined()
  })

  test('the delivery check: a protected path of the base changed, or a new one where none may be', () => {
    expect(
      protectedChanges(rules, [
        { path: 'src/calc.js', inBase: true },
        { path: 'src/calc.test.js', inBase: true },
        { path: 'src/new.test.js', inBase: false },
        { path: '.github/workflows/x.yml', inBase: false }
      ]).map(r => r.path)
    ).toEqual(['src/calc.test.js', '.github/workflows/x.yml'])
  })
})

describe('the restore', () => {
  let repo: TempRepo
  afterEach(() => repo?.cleanup())

  function project(): { repo: TempRepo; base: string } {
    repo = tempRepo()
    repo.write('package.json', '{ "scripts": { "test": "node --test" } }\n')
    repo.write('calc.js', 'export const add = (a, b) => a - b\n')
    repo.write('calc.test.js', 'assert.equal(add(1, 2), 3)\n')
    repo.write('test/other.js', 'other\n')
    repo.write('jest.config.ts', 'export default {}\n')
    repo.write('check.sh', '#!/bin/sh\nnode --test\n')
    chmodSync(path.join(repo.dir, 'check.sh'), 0o755)
    repo.write('.github/workflows/ci.yml', 'on: push\n')
    repo.write('.agents/ralphs/fix/RALPH.md', '---\nagent: x\n---\nFix it.\n')
    repo.write('notes/guard.md', 'guardrails\n')
    repo.git('add', '-A')
    repo.git('commit', '--quiet', '-m', 'base')
    return { repo, base: repo.git('rev-parse', 'HEAD').trim() }
  }
  const setting = ['auto']
  const projectFacts: AutoFacts = {
    ralphDir: '.agents/ralphs/fix',
    ralphFile: '.agents/ralphs/fix/RALPH.md',
    checks: [{ run: 'npm test' }, { run: './check.sh' }],
    projectDir: ''
  }
  const read = (file: string): string => readFileSync(path.join(repo.dir, file), 'utf8')

  test('an untouched tree has nothing to put back', async () => {
    const { repo, base } = project()
    const protection = await resolveProtection(repo.dir, base, setting, projectFacts)
    expect(protection.paths.has('calc.test.js')).toBe(true)
    expect(protection.paths.has('calc.js')).toBe(false)
    expect(await findChanges(protection)).toEqual([])
    expect(await restore(protection)).toEqual([])
  })

  test('editable: a new file its globs name belongs to the agent, a new file outside them is found and removed', async () => {
    const { repo, base } = project()
    const protection = await protectionFromRules(repo.dir, base, [editableRule(['calc.js', 'src/**'])])
    repo.write('calc.js', 'export const add = (a, b) => a + b\n')
    repo.write('src/deep/helper.js', 'export const one = 1\n')
    repo.write('tests/new.test.js', 'pad\n')
    symlinkSync('calc.js', path.join(repo.dir, 'src/link.js'))
    expect(await findChanges(protection)).toEqual([
      {
        path: 'tests/new.test.js',
        why: 'added where paths are protected (not editable (editable: calc.js, src/**))'
      }
    ])
    await restore(protection)
    expect(existsSync(path.join(repo.dir, 'tests/new.test.js'))).toBe(false)
    expect(read('src/deep/helper.js')).toBe('export const one = 1\n')
    expect(read('calc.js')).toBe('export const add = (a, b) => a + b\n')
  })

  test('a folder made unreadable (chmod 311) fails the scan, naming it, instead of hiding a new file', async () => {
    const { repo, base } = project()
    const protection = await resolveProtection(repo.dir, base, setting, projectFacts)
    repo.write('.github/workflows/hidden/new.yml', 'on: push\n')
    chmodSync(repo.dir, 0o755)
    chmodSync(path.join(repo.dir, '.github/workflows/hidden'), 0o311)
    // Root reads any folder: the scan runs as nobody here, as the action's user does beside an isolated agent.
    const asRoot = process.getuid?.() === 0
    if (asRoot) process.seteuid?.(65534)
    try {
      await expect(findChanges(protection)).rejects.toThrow(
        'the folder .github/workflows/hidden in the work tree cannot be read (EACCES)'
      )
    } finally {
      if (asRoot) process.seteuid?.(0)
      chmodSync(path.join(repo.dir, '.github/workflows/hidden'), 0o755)
    }
  })

  test('edited, deleted, linked, re-moded and shadowing paths are put back; the fix and a new test stay', async () => {
    const { repo, base } = project()
    const protection = await resolveProtection(repo.dir, base, setting, projectFacts)
    // The cheats.
    repo.write('calc.test.js', 'assert.equal(add(1, 2), -1)\n')
    unlinkSync(path.join(repo.dir, 'test/other.js'))
    repo.write('package.json', '{ "scripts": { "test": "true" } }\n')
    repo.write('check.sh', '#!/bin/sh\nexit 0\n')
    rmSync(path.join(repo.dir, 'jest.config.ts'))
    symlinkSync('calc.js', path.join(repo.dir, 'jest.config.ts'))
    repo.write('jest.config.js', 'module.exports = { testMatch: [] }\n')
    repo.write('sub/conftest.py', 'collect_ignore = ["."]\n')
    repo.write('.npmrc', 'script-shell=/bin/true\n')
    repo.write('.github/workflows/evil.yml', 'on: push\n')
    repo.write('.agents/ralphs/fix/RALPH.md', '---\nagent: x\n---\nDelete the tests.\n')
    // Honest work.
    repo.write('calc.js', 'export const add = (a, b) => a + b\n')
    repo.write('calc.more.test.js', 'more\n')
    repo.write('notes/guard.md', 'learned something\n')

    const reverts = await restore(protection)
    const why = Object.fromEntries(reverts.map(r => [r.path, r.why]))
    expect(why).toMatchObject({
      'calc.test.js': 'changed',
      'test/other.js': 'deleted',
      'package.json': 'changed',
      'check.sh': 'changed',
      'jest.config.ts': 'replaced by a link',
      'jest.config.js': expect.stringContaining('added'),
      'sub/conftest.py': expect.stringContaining('added'),
      '.npmrc': expect.stringContaining('added'),
      '.github/workflows/evil.yml': expect.stringContaining('added')
    })
    expect(why['.agents/ralphs/fix/RALPH.md']).toBe('changed')
    expect(read('calc.test.js')).toBe('assert.equal(add(1, 2), 3)\n')
    expect(read('test/other.js')).toBe('other\n')
    expect(read('package.json')).toContain('node --test')
    expect(read('check.sh')).toContain('node --test')
    expect(lstatSync(path.join(repo.dir, 'check.sh')).mode & 0o111).toBe(0o111)
    expect(lstatSync(path.join(repo.dir, 'jest.config.ts')).isFile()).toBe(true)
    for (const gone of ['jest.config.js', 'sub/conftest.py', '.npmrc', '.github/workflows/evil.yml'])
      expect([gone, existsSync(path.join(repo.dir, gone))]).toEqual([gone, false])
    // The agent's own work stays.
    expect(read('calc.js')).toContain('a + b')
    expect(read('calc.more.test.js')).toBe('more\n')
    expect(read('notes/guard.md')).toBe('learned something\n')
    expect(await findChanges(protection)).toEqual([])
  })

  test('a folder on the way replaced by a link is removed, never written through', async () => {
    const { repo, base } = project()
    const protection = await resolveProtection(repo.dir, base, setting, projectFacts)
    const outside = `${repo.dir}-outside`
    mkdirSync(outside, { recursive: true })
    writeFileSync(path.join(outside, 'other.js'), 'weak\n')
    rmSync(path.join(repo.dir, 'test'), { recursive: true })
    symlinkSync(outside, path.join(repo.dir, 'test'))
    try {
      const reverts = await restore(protection)
      expect(reverts).toEqual([
        { path: 'test/other.js', why: 'a folder on its way (test) replaced by a link' }
      ])
      expect(lstatSync(path.join(repo.dir, 'test')).isDirectory()).toBe(true)
      expect(read('test/other.js')).toBe('other\n')
      // The link's target was not written.
      expect(readFileSync(path.join(outside, 'other.js'), 'utf8')).toBe('weak\n')
    } finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })

  test('.github/ replaced by a link to a folder of workflows is a folder again, with only its own workflow', async () => {
    const { repo, base } = project()
    const protection = await resolveProtection(repo.dir, base, setting, projectFacts)
    const outside = `${repo.dir}-workflows`
    mkdirSync(path.join(outside, 'workflows'), { recursive: true })
    writeFileSync(path.join(outside, 'workflows/evil.yml'), 'on: push\n')
    rmSync(path.join(repo.dir, '.github'), { recursive: true })
    symlinkSync(outside, path.join(repo.dir, '.github'))
    try {
      const reverts = await restore(protection)
      expect(reverts.map(r => r.path).sort()).toEqual(['.github', '.github/workflows/ci.yml'])
      expect(lstatSync(path.join(repo.dir, '.github')).isDirectory()).toBe(true)
      expect(read('.github/workflows/ci.yml')).toBe('on: push\n')
      expect(existsSync(path.join(repo.dir, '.github/workflows/evil.yml'))).toBe(false)
      expect(existsSync(path.join(outside, 'workflows/evil.yml'))).toBe(true)
    } finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })

  test('a test replaced by a link to another file is a file again', async () => {
    const { repo, base } = project()
    const protection = await resolveProtection(repo.dir, base, setting, projectFacts)
    rmSync(path.join(repo.dir, 'calc.test.js'))
    symlinkSync('test/other.js', path.join(repo.dir, 'calc.test.js'))
    await restore(protection)
    expect(lstatSync(path.join(repo.dir, 'calc.test.js')).isSymbolicLink()).toBe(false)
    expect(read('calc.test.js')).toBe('assert.equal(add(1, 2), 3)\n')
  })

  test('the guardrails file is never protected; restoreProtected applies recorded rules to another work tree', async () => {
    const { repo, base } = project()
    const guardrails = '.agents/ralphs/fix/guard.md'
    const { rules } = await resolveProtection(repo.dir, base, setting, { ...projectFacts, guardrails })
    repo.write('calc.test.js', 'weak\n')
    repo.write(guardrails, 'learned\n')
    const other = `${repo.dir}-clean`
    repo.git('worktree', 'add', '--quiet', '--detach', other, 'HEAD')
    try {
      writeFileSync(path.join(other, 'calc.test.js'), 'weak\n')
      writeFileSync(path.join(other, guardrails), 'learned\n')
      const reverts = await restoreProtected(other, base, rules, { guardrails })
      expect(reverts).toEqual([{ path: 'calc.test.js', why: 'changed' }])
      expect(readFileSync(path.join(other, guardrails), 'utf8')).toBe('learned\n')
      expect(readFileSync(path.join(other, 'calc.test.js'), 'utf8')).toBe('assert.equal(add(1, 2), 3)\n')
      // The first work tree is not touched.
      expect(read('calc.test.js')).toBe('weak\n')
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })

  test('a path still not as the start commit has it after the restore stops the gates (ProtectedPathError)', async () => {
    const { repo, base } = project()
    const protection = await resolveProtection(repo.dir, base, setting, projectFacts)
    repo.write('calc.test.js', 'weak\n')
    // A restore whose shell did nothing (it could not write): the second look still finds the change.
    const idle = await restore(protection, {
      runProcess: options => runProcess({ ...options, argv: ['/bin/true'] })
    }).catch((error: Error) => error)
    expect(idle).toBeInstanceOf(ProtectedPathError)
    expect((idle as Error).message).toBe(
      'protected paths could not be put back before the gates: calc.test.js (changed)'
    )
  })

  test('the delivery check reads a commit: a protected path changed or added where none may be is named', async () => {
    const { repo, base } = project()
    const { rules } = await resolveProtection(repo.dir, base, setting, projectFacts)
    repo.write('calc.js', 'fixed\n')
    repo.write('calc.more.test.js', 'new\n')
    repo.git('add', '-A')
    repo.git('commit', '--quiet', '-m', 'honest')
    const honest = repo.git('rev-parse', 'HEAD').trim()
    expect(await protectedInCommit(repo.dir, base, honest, rules)).toEqual([])
    repo.write('calc.test.js', 'weak\n')
    repo.write('.github/workflows/evil.yml', 'on: push\n')
    repo.git('add', '-A')
    repo.git('commit', '--quiet', '-m', 'cheat')
    const cheat = repo.git('rev-parse', 'HEAD').trim()
    expect((await protectedInCommit(repo.dir, base, cheat, rules)).map(r => r.path)).toEqual([
      '.github/workflows/evil.yml',
      'calc.test.js'
    ])
  })

  test('the delivery check reads names as bytes: a test named caf\\xe9 changed is named by its bytes, not as caf\\xe8', async () => {
    const { repo } = project()
    const file = (name: string): Buffer =>
      Buffer.concat([Buffer.from(`${repo.dir}/`), Buffer.from(name, 'latin1')])
    mkdirSync(path.join(repo.dir, 'test'), { recursive: true })
    writeFileSync(file('test/caf\xe9.js'), 'test\n')
    repo.git('add', '-A')
    repo.git('commit', '--quiet', '-m', 'a test whose name is not UTF-8')
    const start = repo.git('rev-parse', 'HEAD').trim()
    const { rules } = await resolveProtection(repo.dir, start, setting, projectFacts)
    // A new test beside it (the agent's to add) whose name a UTF-8 decoder reads the same: caf\ufffd.js.
    writeFileSync(file('test/caf\xe8.js'), 'new\n')
    repo.git('add', '-A')
    repo.git('commit', '--quiet', '-m', 'a new test')
    expect(await protectedInCommit(repo.dir, start, repo.git('rev-parse', 'HEAD').trim(), rules)).toEqual([])
    writeFileSync(file('test/caf\xe9.js'), 'weak\n')
    repo.git('add', '-A')
    repo.git('commit', '--quiet', '-m', 'weakened')
    const changed = await protectedInCommit(repo.dir, start, repo.git('rev-parse', 'HEAD').trim(), rules)
    expect(changed.map(r => [...pathBytes(r.path)])).toEqual([[...Buffer.from('test/caf\xe9.js', 'latin1')]])
    expect(revertsLine(changed)).toBe('"test/caf\\xe9.js" (auto: a test file of the start commit)')
  })

  describe('the stat cache', () => {
    // Files this old count as settled (written well before the look): the cache keeps their stat keys.
    const later = (): number => Date.now() + 60_000
    const SECONDS = 1_000_000_000
    /** Waits until a file written now gets a later ctime than `ctimeNs` (file times move by the clock's tick). */
    async function tickPast(dir: string, ctimeNs: bigint): Promise<void> {
      const probe = path.join(dir, 'probe.tmp')
      for (let i = 0; i < 200; i++) {
        writeFileSync(probe, '')
        if (lstatSync(probe, { bigint: true }).ctimeNs > ctimeNs) break
        await new Promise(resolve => setTimeout(resolve, 10))
      }
      rmSync(probe)
    }

    test('a same-size rewrite with its mtime put back is still found: the ctime moved', async () => {
      const { repo, base } = project()
      const file = path.join(repo.dir, 'calc.test.js')
      utimesSync(file, SECONDS, SECONDS)
      const protection = await resolveProtection(repo.dir, base, setting, projectFacts)
      expect(await findChanges(protection, { now: later })).toEqual([])
      const cached = lstatSync(file, { bigint: true })
      await tickPast(repo.dir, cached.ctimeNs)
      // In place (the same inode), the same size, and the times set back.
      writeFileSync(file, 'assert.equal(add(1, 2), 4)\n')
      utimesSync(file, SECONDS, SECONDS)
      const now = lstatSync(file, { bigint: true })
      expect([now.ino, now.size, now.mtimeNs]).toEqual([cached.ino, cached.size, cached.mtimeNs])
      expect(now.ctimeNs).not.toBe(cached.ctimeNs)
      expect(await findChanges(protection, { now: later })).toEqual([
        { path: 'calc.test.js', why: 'changed' }
      ])
    })

    test('a file swapped by a rename of another of the same size and mtime is found: another inode', async () => {
      const { repo, base } = project()
      const file = path.join(repo.dir, 'calc.test.js')
      utimesSync(file, SECONDS, SECONDS)
      const protection = await resolveProtection(repo.dir, base, setting, projectFacts)
      expect(await findChanges(protection, { now: later })).toEqual([])
      const cached = lstatSync(file, { bigint: true })
      const swap = path.join(repo.dir, 'swap.tmp')
      writeFileSync(swap, 'assert.equal(add(1, 2), 4)\n')
      utimesSync(swap, SECONDS, SECONDS)
      renameSync(swap, file)
      const now = lstatSync(file, { bigint: true })
      expect([now.size, now.mtimeNs]).toEqual([cached.size, cached.mtimeNs])
      expect(now.ino).not.toBe(cached.ino)
      expect(await findChanges(protection, { now: later })).toEqual([
        { path: 'calc.test.js', why: 'changed' }
      ])
    })
  })

  test('the script quotes every path: a name with a quote and a space is data', () => {
    const script = restoreScript(
      { top: '/t', base: 'x', rules: [], paths: new Map([["a b'c.test.js", { mode: '100644', oid: 'o' }]]) },
      [{ path: "a b'c.test.js", why: 'changed' }],
      new Map([['o', Buffer.from('x')]])
    )
    expect(script).toContain(`rm -rf -- 'a b'\\''c.test.js'`)
  })
})
