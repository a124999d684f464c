// The work tree is the agent's: a nested repository in it carries its own .git/config (filters, fsmonitor,
// textconv, diff.external, hooks), and git enters a gitlink to ask its status, as whoever runs git: the
// action. Every git command the action runs on the tree, with its hermetic environment, runs none of it;
// nested repositories, a change to .gitmodules and a change to a submodule are refused, one line each.
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { commitsSince, formatPatch } from '../../src/git/branch.js'
import { GitRepo } from '../../src/git/repo.js'
import { restoreGitDir, snapshotGitDir } from '../../src/git/snapshot.js'
import { GitWorkspace } from '../../src/git/workspace.js'
import { hermeticGitEnvironment } from '../../src/security/index.js'
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
  // The start: a gitlink `sub` (as the first commit recorded it), a .gitmodules, attributes naming x.
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
  // Iteration 1: the attack, as the agent leaves it.
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
