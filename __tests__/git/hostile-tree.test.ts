// The work tree is the agent's: a nested repository in it carries its own .git/config (filters, fsmonitor,
// textconv, diff.external, hooks), and git enters a gitlink to ask its status, as whoever runs git: the
// action. Every git command the action runs on the tree, with its hermetic environment, runs none of it;
// nested repositories, a change to .gitmodules and a change to a submodule are refused, one line each.
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import path from 'node:path'
import { commitsSince, formatPatch } from '../../src/git/branch.js'
import { gitOutput } from '../../src/git/git.js'
import { GitRepo } from '../../src/git/repo.js'
import { restoreGitDir, snapshotGitDir } from '../../src/git/snapshot.js'
import { GitWorkspace } from '../../src/git/workspace.js'
import { writeCommitTree } from '../../src/git/write-tree.js'
import { hermeticGitEnvironment } from '../../src/security/index.js'
import { onDisk, pathFromBytes, splitNul } from '../../src/text/tree-path.js'
import { tempDir, tempRepo, type TempRepo } from './temp-repo.js'

let repo: TempRepo
let marks: string
let payload: string

beforeEach(() => {
  repo = tempRepo()
  marks = tempDir('ralph-marks-')
  payload = path.join(marks, '..', `${path.basename(marks)}-payload.sh`)
  // What the agent's config would run as the action: it leaves a mark, and behaves (a filter passes through).
  writeFileSync(
    payload,
    `#!/bin/sh\ntouch '${marks}'/ran-"$1"\ncase "$1" in clean|smudge) exec cat ;; textconv) exec cat "$2" ;; esac\nexit 0\n`
  )
  chmodSync(payload, 0o755)
})
afterEach(() => {
  repo.cleanup()
  rmSync(marks, { recursive: true, force: true })
  rmSync(payload, { force: true })
})

const HOOKS = [
  'pre-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'post-checkout',
  'reference-transaction',
  'post-index-change'
]

/** A repository at `dir` (inside the work tree) whose own config and attributes run the payload for everything. */
function hostileRepo(dir: string): void {
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8' })
  mkdirSync(dir, { recursive: true })
  git('init', '--quiet')
  git('config', 'user.name', 'Agent')
  git('config', 'user.email', 'agent@example.com')
  writeFileSync(path.join(dir, 'f'), 'one\n')
  git('add', '-A')
  git('commit', '--quiet', '--no-verify', '-m', 'nested')
  // Armed after its commit: from here on, any git that looks into it as the action leaves a mark.
  const set = (key: string, value: string): string => git('config', key, value)
  set('filter.x.clean', `${payload} clean`)
  set('filter.x.smudge', `${payload} smudge`)
  set('filter.x.required', 'true')
  set('core.fsmonitor', `${payload} fsmonitor`)
  set('diff.x.textconv', `${payload} textconv`)
  set('diff.x.command', `${payload} diffcommand`)
  set('diff.external', `${payload} external`)
  const hooks = path.join(dir, '.git', 'hooks')
  for (const hook of HOOKS) {
    writeFileSync(path.join(hooks, hook), `#!/bin/sh\n${payload} hook-${hook}\n`)
    chmodSync(path.join(hooks, hook), 0o755)
  }
  writeFileSync(path.join(dir, '.gitattributes'), '* filter=x diff=x\n')
}

const ran = (): string[] => readdirSync(marks).sort()
const hermetic = (): NodeJS.ProcessEnv => hermeticGitEnvironment()

/** Paths of a commit's gitlinks, with their commits. */
function gitlinksOf(commit: string): string[] {
  return repo
    .git('ls-tree', '-r', commit)
    .split('\n')
    .filter(line => line.startsWith('160000 '))
    .map(line => line.split(/\s+/).slice(2).join(' '))
}

test('a nested repository recorded as a gitlink, then one made by the agent: no git command of the action runs their config', async () => {
  // The start: a gitlink `sub` (as the issue's first commit recorded it), a .gitmodules, attributes naming x.
  hostileRepo(path.join(repo.dir, 'sub'))
  repo.write('.gitmodules', '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n')
  repo.write('.gitattributes', '* filter=x diff=x\n')
  repo.git('add', '-A')
  repo.git('commit', '--quiet', '-m', 'with a gitlink')
  const startCommit = repo.git('rev-parse', 'HEAD').trim()
  const subAtStart = repo.git('rev-parse', 'HEAD:sub').trim()
  // The action's own hook would run too, if hooks ran: a commit hook also sends commits down git's own path.
  writeFileSync(
    path.join(repo.dir, '.git', 'hooks', 'post-commit'),
    `#!/bin/sh\n${payload} top-post-commit\n`
  )
  chmodSync(path.join(repo.dir, '.git', 'hooks', 'post-commit'), 0o755)
  rmSync(marks, { recursive: true, force: true })
  mkdirSync(marks)

  const ws = await GitWorkspace.open(repo.dir, { env: hermetic() })
  const startTree = await ws.treeHash()

  // The agent's iteration: the gitlink's work tree dirty and moved, new nested repositories (one under a
  // plain folder, one a .git file pointing elsewhere), .gitmodules rewritten, and an ordinary change.
  writeFileSync(path.join(repo.dir, 'sub', 'f'), 'two\n')
  execFileSync('git', ['commit', '--quiet', '--no-verify', '-am', 'moved'], {
    cwd: path.join(repo.dir, 'sub')
  })
  writeFileSync(path.join(repo.dir, 'sub', 'f'), 'three\n')
  hostileRepo(path.join(repo.dir, 'fresh'))
  hostileRepo(path.join(repo.dir, 'plain', 'deeper', 'nested'))
  mkdirSync(path.join(repo.dir, 'pointer'))
  writeFileSync(path.join(repo.dir, 'pointer', '.git'), `gitdir: ${path.join(repo.dir, 'fresh', '.git')}\n`)
  writeFileSync(path.join(repo.dir, 'plain', 'ok.txt'), 'plain\n')
  repo.write('.gitmodules', '[submodule "evil"]\n\tpath = fresh\n\turl = ext::sh -c touch% /tmp/pwned\n')
  repo.write('work.txt', 'the agent’s work\n')
  rmSync(marks, { recursive: true, force: true })
  mkdirSync(marks)

  // Every git command the action runs on the tree: hash, diff, commit (fast path), commit (git's own path),
  // the delivery's comparisons and patch, the checkout back, the .git snapshot and its restore.
  const tree = await ws.treeHash()
  const diff = await ws.diffSinceStart(startTree, tree)
  const first = await ws.commitAll('iteration 1', tree)
  repo.write('work.txt', 'more work\n')
  writeFileSync(path.join(repo.dir, 'sub', 'f'), 'four\n')
  // A commit hook present: commitAll leaves its fast path for `git add -A` and `git commit` on the real index.
  const second = await ws.commitAll('iteration 2')
  const git = new GitRepo(repo.dir)
  expect(await git.hasDiff(startCommit, 'HEAD')).toBe(true)
  const changed = await git.changedPaths(startCommit, 'HEAD')
  expect(await commitsSince(repo.dir, startCommit)).toBe(2)
  // The patch kept when a push is refused.
  expect(await formatPatch(repo.dir, startCommit)).toContain('work.txt')
  await git.exec(['checkout', '--quiet', '--detach', startCommit])
  await git.exec(['checkout', '--quiet', 'main'])
  await restoreGitDir(await snapshotGitDir(repo.dir))
  await ws.dispose()

  expect(ran()).toEqual([])
  expect(first).toBeDefined()
  expect(second).toBeDefined()
  // Delivered: the work, not the nested repositories, not the new .gitmodules, the gitlink as it started.
  expect(changed.sort()).toEqual(['plain/ok.txt', 'work.txt'])
  expect(diff.stat).not.toMatch(/fresh|nested|pointer|gitmodules|sub/)
  expect(gitlinksOf('HEAD')).toEqual([`${subAtStart} sub`])
  expect(repo.git('rev-parse', 'HEAD:sub').trim()).toBe(subAtStart)
  expect(repo.git('show', 'HEAD:.gitmodules')).toContain('[submodule "sub"]')
  // Refused, one line each.
  expect([...ws.refused()].sort()).toEqual([
    '.gitmodules: a change to it is not delivered (submodules are never entered); the run goes on with the one it started with',
    'fresh/.git: a git repository inside the work tree is not delivered (git would run its filters and hooks as the action); the run goes on without fresh/',
    'plain/deeper/nested/.git: a git repository inside the work tree is not delivered (git would run its filters and hooks as the action); the run goes on without plain/deeper/nested/',
    'pointer/.git: a git repository inside the work tree is not delivered (git would run its filters and hooks as the action); the run goes on without pointer/',
    'sub: a change to a submodule (a gitlink) is not delivered; the run goes on with the commit it started with'
  ])
})

test('a nested repository made in iteration 1 never becomes a gitlink, so iteration 2 enters nothing', async () => {
  const ws = await GitWorkspace.open(repo.dir, { env: hermetic() })
  await ws.treeHash()
  // Iteration 1: the issue's attack, as the agent leaves it.
  hostileRepo(path.join(repo.dir, 'sub'))
  const first = await ws.commitAll('iteration 1')
  expect(first).toBeUndefined()
  expect(gitlinksOf('HEAD')).toEqual([])
  // Iteration 2: the next `git add -A` would have run `git status` inside sub/, and its clean filter.
  writeFileSync(path.join(repo.dir, 'sub', 'f'), 'changed\n')
  repo.write('work.txt', 'work\n')
  const second = await ws.commitAll('iteration 2')
  expect(second).toBeDefined()
  expect(gitlinksOf('HEAD')).toEqual([])
  expect(repo.git('ls-tree', '-r', '--name-only', 'HEAD').split('\n').filter(Boolean).sort()).toEqual([
    'README.md',
    'work.txt'
  ])
  expect(ran()).toEqual([])
  expect(ws.refused()).toEqual([
    'sub/.git: a git repository inside the work tree is not delivered (git would run its filters and hooks as the action); the run goes on without sub/'
  ])
  await ws.dispose()
})

test('a file over max-file-size is left out of every tree and commit, named once with its size; the rest goes on', async () => {
  repo.write('grown.bin', 'small at the start\n')
  repo.git('add', '-A')
  repo.git('commit', '--quiet', '-m', 'a small file')
  const ws = await GitWorkspace.open(repo.dir, { env: hermetic(), maxFileBytes: 1024 * 1024 })
  await ws.treeHash()
  // The agent's iteration: a new file and a tracked one over 1 MB, an ordinary change, a file just at the limit.
  writeFileSync(path.join(repo.dir, 'huge.bin'), Buffer.alloc(3 * 1024 * 1024 + 5, 1))
  writeFileSync(path.join(repo.dir, 'grown.bin'), Buffer.alloc(2 * 1024 * 1024, 2))
  writeFileSync(path.join(repo.dir, 'at-limit.bin'), Buffer.alloc(1024 * 1024, 3))
  repo.write('work.txt', 'work\n')
  const first = await ws.commitAll('iteration 1')
  // Iteration 2: the large file grows again (not named twice); git's own path (a commit hook) leaves it out too.
  writeFileSync(path.join(repo.dir, 'huge.bin'), Buffer.alloc(4 * 1024 * 1024, 1))
  writeFileSync(path.join(repo.dir, '.git', 'hooks', 'post-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 })
  repo.write('work.txt', 'more work\n')
  const second = await ws.commitAll('iteration 2')
  await ws.dispose()

  expect(first).toBeDefined()
  expect(second).toBeDefined()
  expect(repo.git('ls-tree', '-r', '--name-only', 'HEAD').split('\n').filter(Boolean).sort()).toEqual([
    'README.md',
    'at-limit.bin',
    'grown.bin',
    'work.txt'
  ])
  expect(repo.git('show', 'HEAD:grown.bin')).toBe('small at the start\n')
  expect(repo.git('show', 'HEAD:work.txt')).toBe('more work\n')
  expect([...ws.refused()].sort()).toEqual([
    'grown.bin: 2.0 MB is over max-file-size (1.0 MB): it is not delivered; the run goes on without this change to it',
    'huge.bin: 3.0 MB is over max-file-size (1.0 MB): it is not delivered; the run goes on without it'
  ])
})

// Issue #35: paths are bytes. A name that is not UTF-8 (`caf\xe9`) must be the name on disk in every rule that
// names a path of the tree, never a `caf�` that is not there; and a FIFO where git reads a file must hold
// nothing of the action's.

/** A path string of bytes (`raw('caf', 0xe9)`): what the action holds for a name that is not UTF-8. */
const raw = (...parts: (string | number)[]): string =>
  pathFromBytes(
    Buffer.concat(parts.map(p => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.of(p))))
  )
/** `rel` in the repository, as the file system's bytes. */
const at = (rel: string): Buffer => onDisk(repo.dir, rel)
/** A commit's files (and links), by their exact bytes. */
const filesOf = (commit: string): string[] =>
  splitNul(execFileSync('git', ['ls-tree', '-r', '-z', '--name-only', commit], { cwd: repo.dir })).sort()

test('a nested repository whose name is not UTF-8, made in iteration 1 and changed in 2: nothing of it runs, its ASCII twin is delivered', async () => {
  const cafe = raw('caf', 0xe9)
  const ws = await GitWorkspace.open(repo.dir, { env: hermetic(), maxFileBytes: 1024 })
  await ws.treeHash()
  hostileRepo(path.join(repo.dir, 'staging'))
  renameSync(path.join(repo.dir, 'staging'), at(cafe))
  mkdirSync(path.join(repo.dir, 'cafe'))
  repo.write('cafe/f', 'the twin\n')
  expect(await ws.commitAll('iteration 1')).toBeDefined()
  // Iteration 2, by git's own path too (a commit hook): the next `git add -A` would look into caf\xe9/.
  writeFileSync(at(`${cafe}/f`), 'changed\n')
  writeFileSync(path.join(repo.dir, '.git', 'hooks', 'post-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 })
  repo.write('work.txt', 'work\n')
  expect(await ws.commitAll('iteration 2')).toBeDefined()
  await ws.dispose()

  expect(ran()).toEqual([])
  expect(gitlinksOf('HEAD')).toEqual([])
  expect(filesOf('HEAD')).toEqual(['README.md', 'cafe/f', 'work.txt'])
  expect(ws.refused()).toEqual([
    '"caf\\xe9/.git": a git repository inside the work tree is not delivered (git would run its filters and hooks as the action); the run goes on without "caf\\xe9/"'
  ])
})

test('a file over max-file-size whose name is not UTF-8 is refused as its ASCII twin is; a byte-twin under it is delivered', async () => {
  const ws = await GitWorkspace.open(repo.dir, { env: hermetic(), maxFileBytes: 1024 })
  await ws.treeHash()
  writeFileSync(at(raw('big', 0xff, '.bin')), Buffer.alloc(4096, 1))
  writeFileSync(at('big.bin'), Buffer.alloc(4096, 2))
  writeFileSync(at(raw('big', 0xfe, '.bin')), Buffer.alloc(100, 3))
  expect(await ws.commitAll('iteration 1')).toBeDefined()
  await ws.dispose()
  expect(filesOf('HEAD')).toEqual(['README.md', raw('big', 0xfe, '.bin')])
  expect([...ws.refused()].sort()).toEqual([
    '"big\\xff.bin": 4096 bytes is over max-file-size (1024 bytes): it is not delivered; the run goes on without it',
    'big.bin: 4096 bytes is over max-file-size (1024 bytes): it is not delivered; the run goes on without it'
  ])
})

test('honest names that are not UTF-8 are committed and written out byte for byte, two that differ only there included', async () => {
  const ws = await GitWorkspace.open(repo.dir, { env: hermetic() })
  await ws.treeHash()
  const names = [raw('t', 0xe9, '.txt'), raw('t', 0xe8, '.txt'), raw('d', 0xff, '/x'), 'tests/café.txt']
  mkdirSync(at(raw('d', 0xff)))
  mkdirSync(at('tests'))
  names.forEach((name, i) => writeFileSync(at(name), `file ${i}\n`))
  symlinkSync(Buffer.from([0x74, 0xe9, 0x2e, 0x74, 0x78, 0x74]), at(raw('link', 0xe9)))
  const commit = await ws.commitAll('iteration 1')
  await ws.dispose()
  expect(commit).toBeDefined()
  expect(filesOf('HEAD')).toEqual(['README.md', ...names, raw('link', 0xe9)].sort())
  expect(ws.refused()).toEqual([])
  // The clean checkout's way: written from the object store, each name and link target as its bytes.
  const dest = tempDir('ralph-written-')
  try {
    await writeCommitTree(repo.dir, 'HEAD', dest, hermetic())
    names.forEach((name, i) => expect(readFileSync(onDisk(dest, name), 'utf8')).toBe(`file ${i}\n`))
    expect([...readlinkSync(onDisk(dest, raw('link', 0xe9)), { encoding: 'buffer' })]).toEqual([
      0x74, 0xe9, 0x2e, 0x74, 0x78, 0x74
    ])
    const top = readdirSync(dest, { encoding: 'buffer' }).map(pathFromBytes).sort()
    expect(top).toEqual(
      [
        'README.md',
        raw('d', 0xff),
        raw('link', 0xe9),
        raw('t', 0xe8, '.txt'),
        raw('t', 0xe9, '.txt'),
        'tests'
      ].sort()
    )
  } finally {
    rmSync(dest, { recursive: true, force: true })
  }
})

describe('a FIFO where git reads a file holds nothing of the action’s', () => {
  test.each(['.gitignore', '.gitattributes', 'sub/.gitignore', 'sub/.gitattributes'])(
    '%s as a FIFO: the tree is refused at once, in one line naming it; no git waits on it',
    async file => {
      const ws = await GitWorkspace.open(repo.dir, { env: hermetic() })
      await ws.treeHash()
      mkdirSync(path.join(repo.dir, 'sub'), { recursive: true })
      repo.write('sub/x', 'x\n')
      execFileSync('mkfifo', [path.join(repo.dir, file)])
      await expect(ws.commitAll('iteration 1')).rejects.toThrow(
        `${file} is a FIFO, where git reads a file: the action opens no special file of the work tree (git would wait on it), so the work cannot be committed; make it a regular file or remove it`
      )
      await ws.dispose()
    },
    30_000
  )

  test('a nested repository whose HEAD is a FIFO (git opens it to tell a repository) is kept out, not waited on', async () => {
    const ws = await GitWorkspace.open(repo.dir, { env: hermetic() })
    await ws.treeHash()
    for (const dir of ['objects', 'refs'])
      mkdirSync(path.join(repo.dir, 'n', '.git', dir), { recursive: true })
    execFileSync('mkfifo', [path.join(repo.dir, 'n', '.git', 'HEAD')])
    repo.write('n/f', 'inside\n')
    repo.write('work.txt', 'work\n')
    expect(await ws.commitAll('iteration 1')).toBeDefined()
    await ws.dispose()
    expect(filesOf('HEAD')).toEqual(['README.md', 'work.txt'])
    expect(ws.refused()).toEqual([
      'n/.git: a git repository inside the work tree is not delivered (git would run its filters and hooks as the action); the run goes on without n/'
    ])
  }, 30_000)

  test('a submodule whose checkout’s HEAD becomes a FIFO is not entered: its change is named, the rest delivered', async () => {
    hostileRepo(path.join(repo.dir, 'sub'))
    repo.git('add', '-A')
    repo.git('commit', '--quiet', '-m', 'with a gitlink')
    const ws = await GitWorkspace.open(repo.dir, { env: hermetic() })
    await ws.treeHash()
    // Moved first (a commit in it), then its HEAD a FIFO: the action reads neither through git.
    execFileSync('git', ['commit', '--quiet', '--allow-empty', '--no-verify', '-m', 'moved'], {
      cwd: path.join(repo.dir, 'sub')
    })
    // That commit, the test's own git, ran the submodule's hooks: only what the action does counts from here.
    rmSync(marks, { recursive: true, force: true })
    mkdirSync(marks)
    const moved = await ws.commitAll('iteration 1')
    rmSync(path.join(repo.dir, 'sub', '.git', 'HEAD'))
    execFileSync('mkfifo', [path.join(repo.dir, 'sub', '.git', 'HEAD')])
    repo.write('work.txt', 'work\n')
    expect(await ws.commitAll('iteration 2')).toBeDefined()
    await ws.dispose()
    expect(moved).toBeUndefined()
    expect(ran()).toEqual([])
    expect(filesOf('HEAD')).toEqual(['README.md', 'sub', 'work.txt'])
    expect(ws.refused()).toEqual([
      'sub: a change to a submodule (a gitlink) is not delivered; the run goes on with the commit it started with'
    ])
  }, 30_000)

  test('a tracked file made a FIFO is not delivered (its start stays), named once; the run goes on', async () => {
    const ws = await GitWorkspace.open(repo.dir, { env: hermetic() })
    await ws.treeHash()
    rmSync(path.join(repo.dir, 'README.md'))
    execFileSync('mkfifo', [path.join(repo.dir, 'README.md')])
    repo.write('work.txt', 'work\n')
    expect(await ws.commitAll('iteration 1')).toBeDefined()
    repo.write('work.txt', 'more\n')
    expect(await ws.commitAll('iteration 2')).toBeDefined()
    await ws.dispose()
    expect(repo.git('show', 'HEAD:README.md')).toBe('hello\n')
    expect(ws.refused()).toEqual([
      'README.md: a FIFO is not a file git keeps: it is not delivered; the run goes on without this change to it'
    ])
  }, 30_000)

  test('git of the action that waits anyway is stopped: by its time bound, or a grace after the run’s time is over', async () => {
    execFileSync('mkfifo', [path.join(repo.dir, '.gitignore')])
    const listing = ['ls-files', '--others', '--exclude-standard']
    const bounded = await gitOutput(listing, { cwd: repo.dir, env: hermetic(), timeoutMs: 300 })
    expect(bounded.exitCode).toBe(124)
    expect(bounded.stderr).toMatch(/^git was stopped: it ran for over 0 s \(a git that reads the work tree/)
    const over = new AbortController()
    const stopped = gitOutput(listing, {
      cwd: repo.dir,
      env: hermetic(),
      signal: over.signal,
      stopGraceMs: 300
    })
    over.abort()
    expect((await stopped).exitCode).toBe(124)
    expect((await stopped).stderr).toContain("it was still running when the run's time was over")
    // A git that ends within the grace is not stopped.
    const quick = new AbortController()
    quick.abort()
    const fine = await gitOutput(['rev-parse', 'HEAD'], {
      cwd: repo.dir,
      signal: quick.signal,
      stopGraceMs: 5000
    })
    expect(fine.exitCode).toBe(0)
  }, 30_000)
})

test('a folder too deep for the action to look into is not delivered, and one line names it', async () => {
  const ws = await GitWorkspace.open(repo.dir, { env: hermetic() })
  await ws.treeHash()
  // 2,500 levels: past PATH_MAX (4,096 bytes) for the action and for git alike (rm -rf, which walks by fd, cleans up).
  const sh = (script: string): string =>
    execFileSync('sh', ['-c', script], { cwd: repo.dir, encoding: 'utf8' })
  try {
    const depth = sh(
      'p=$(printf "a/%.0s" $(seq 500)) && mkdir deep && cd deep && for i in 1 2 3 4 5; do mkdir -p $p && cd -P $p || exit 1; done && echo deep > file.txt && pwd | wc -c'
    )
    expect(Number(depth.trim())).toBeGreaterThan(5000)
    repo.write('work.txt', 'work\n')
    expect(await ws.commitAll('iteration 1')).toBeDefined()
    await ws.dispose()
    expect(filesOf('HEAD')).toEqual(['README.md', 'work.txt'])
    const lines = ws.refused()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^deep\/a\/a\/a\/.+….+\/a\/a\/: its path \(4,0\d\d bytes with the work tree's\) is too long for the action to look into, so it is not delivered; the run goes on without it$/
    )
    expect(lines[0].length).toBeLessThan(400)
  } finally {
    sh('rm -rf deep')
  }
}, 60_000)

test('a folder git ignores is not looked into, as git does not: what it holds stops nothing and is not named', async () => {
  repo.write('.gitignore', 'node_modules/\n')
  repo.git('add', '-A')
  repo.git('commit', '--quiet', '-m', 'ignore node_modules')
  const ws = await GitWorkspace.open(repo.dir, { env: hermetic() })
  await ws.treeHash()
  // What a package manager may leave: a dependency cloned with its .git; and what git would never read there.
  mkdirSync(path.join(repo.dir, 'node_modules', 'dep', '.git', 'refs'), { recursive: true })
  execFileSync('mkfifo', [path.join(repo.dir, 'node_modules', 'dep', '.gitignore')])
  repo.write('work.txt', 'work\n')
  expect(await ws.commitAll('iteration 1')).toBeDefined()
  await ws.dispose()
  expect(filesOf('HEAD')).toEqual(['.gitignore', 'README.md', 'work.txt'])
  expect(ws.refused()).toEqual([])
}, 30_000)

test('a folder git ignores but that holds tracked files is looked into, as git reads those: a FIFO there stops the commit', async () => {
  repo.write('build/kept.txt', 'tracked\n')
  repo.git('add', '-A')
  repo.write('.gitignore', 'build/\n')
  repo.git('add', '-A')
  repo.git('commit', '--quiet', '-m', 'a tracked file in an ignored folder')
  const ws = await GitWorkspace.open(repo.dir, { env: hermetic() })
  await ws.treeHash()
  // git compares build/kept.txt when its stat changes, and reads build/.gitattributes to do it.
  repo.write('build/kept.txt', 'changed\n')
  execFileSync('mkfifo', [path.join(repo.dir, 'build', '.gitattributes')])
  await expect(ws.commitAll('iteration 1')).rejects.toThrow(
    'build/.gitattributes is a FIFO, where git reads a file'
  )
  await ws.dispose()
}, 30_000)
