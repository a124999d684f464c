import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { GitWorkspace, createWorktree } from '../../src/git/index.js'
import { tempDir, tempRepo, type TempRepo } from './temp-repo.js'

let repo: TempRepo
let workspace: GitWorkspace

beforeEach(async () => {
  repo = tempRepo()
  workspace = await GitWorkspace.open(repo.dir)
})
afterEach(async () => {
  await workspace.dispose()
  repo.cleanup()
})

test('the tree hash is stable while nothing changes', async () => {
  expect(await workspace.treeHash()).toBe(await workspace.treeHash())
})

test('the tree hash sees untracked, modified and deleted files without touching the staging area', async () => {
  const start = await workspace.treeHash()
  repo.write('new.txt', 'untracked\n')
  const withUntracked = await workspace.treeHash()
  expect(withUntracked).not.toBe(start)
  repo.write('README.md', 'changed\n')
  const withModified = await workspace.treeHash()
  expect(withModified).not.toBe(withUntracked)
  rmSync(path.join(repo.dir, 'new.txt'))
  expect(await workspace.treeHash()).not.toBe(withModified)
  // The user's index still knows nothing of the change.
  expect(repo.git('status', '--porcelain')).toBe(' M README.md\n')
})

test('the tree hash ignores files matched by .gitignore', async () => {
  repo.write('.gitignore', 'out/\n')
  const before = await workspace.treeHash()
  repo.write('out/build.txt', 'artifact\n')
  expect(await workspace.treeHash()).toBe(before)
})

test('the diff since the start shows a stat and the patch, new files included', async () => {
  const start = await workspace.treeHash()
  repo.write('src/new.ts', 'export const x = 1\n')
  const diff = await workspace.diffSinceStart(start)
  expect(diff.stat).toContain('src/new.ts')
  expect(diff.stat).toContain('1 file changed')
  expect(diff.patch).toContain('+export const x = 1')
  expect(diff.patchTruncated).toBe(false)
})

test('the diff keeps only the first 5000 characters of a large patch', async () => {
  const start = await workspace.treeHash()
  repo.write('big.txt', 'line of text\n'.repeat(5000))
  const diff = await workspace.diffSinceStart(start)
  expect(diff.patch.length).toBe(5000)
  expect(diff.patchTruncated).toBe(true)
})

test('the diff since the start of an unchanged tree is empty', async () => {
  const start = await workspace.treeHash()
  expect(await workspace.diffSinceStart(start)).toEqual({ stat: '', patch: '', patchTruncated: false })
})

test('commitAll commits everything and answers the new commit', async () => {
  const before = await workspace.headSha()
  repo.write('a.txt', 'a\n')
  const sha = await workspace.commitAll('loop: iteration 1')
  expect(sha).toMatch(/^[0-9a-f]{40}$/)
  expect(sha).not.toBe(before)
  expect(repo.git('log', '-1', '--format=%s')).toBe('loop: iteration 1\n')
  expect(repo.git('status', '--porcelain')).toBe('')
})

test('commitAll with nothing changed makes no commit', async () => {
  const before = await workspace.headSha()
  expect(await workspace.commitAll('nothing')).toBeUndefined()
  expect(await workspace.headSha()).toBe(before)
})

test('commitAll works in a repository with no identity and no commits', async () => {
  const bare = tempRepo({ commit: false })
  bare.git('config', '--unset', 'user.name')
  bare.git('config', '--unset', 'user.email')
  const env = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME }
  process.env.HOME = bare.dir
  process.env.XDG_CONFIG_HOME = bare.dir
  try {
    const ws = await GitWorkspace.open(bare.dir)
    expect(await ws.headSha()).toBeUndefined()
    bare.write('first.txt', '1\n')
    expect(await ws.commitAll('first')).toMatch(/^[0-9a-f]{40}$/)
    expect(bare.git('log', '-1', '--format=%an <%ae>')).toBe(
      'ralph-action <ralph-action@users.noreply.github.com>\n'
    )
    await ws.dispose()
  } finally {
    process.env.HOME = env.HOME
    if (env.XDG_CONFIG_HOME === undefined) delete process.env.XDG_CONFIG_HOME
    else process.env.XDG_CONFIG_HOME = env.XDG_CONFIG_HOME
    bare.cleanup()
  }
})

test('commitAll leaves the repository as git commit does: index staged, reflog named', async () => {
  repo.write('a.txt', 'a\n')
  repo.write('README.md', 'changed\n')
  const tree = await workspace.treeHash()
  const sha = await workspace.commitAll('ralph r: iteration 1', tree)
  expect(repo.git('rev-parse', 'HEAD').trim()).toBe(sha)
  expect(repo.git('rev-parse', 'HEAD^{tree}').trim()).toBe(tree)
  expect(repo.git('log', '-1', '--format=%s%n%an <%ae>')).toBe(
    'ralph r: iteration 1\nTest <test@example.com>\n'
  )
  expect(repo.git('status', '--porcelain')).toBe('')
  expect(repo.git('diff', '--cached', '--name-only')).toBe('')
  expect(repo.git('reflog', '-1', '--format=%gs')).toBe('commit: ralph r: iteration 1\n')
  expect(existsSync(path.join(repo.dir, '.git', 'index.lock'))).toBe(false)
  // Unchanged since: no commit.
  expect(await workspace.commitAll('ralph r: iteration 2', await workspace.treeHash())).toBeUndefined()
})

test('commitAll after the agent committed itself makes no empty commit, then commits on top', async () => {
  repo.write('a.txt', 'a\n')
  await workspace.commitAll('ralph r: iteration 1', await workspace.treeHash())
  repo.write('b.txt', 'b\n')
  repo.git('add', '-A')
  repo.git('commit', '--quiet', '-m', 'the agent commits')
  const agents = repo.git('rev-parse', 'HEAD').trim()
  expect(await workspace.commitAll('ralph r: iteration 2', await workspace.treeHash())).toBeUndefined()
  expect(repo.git('rev-parse', 'HEAD').trim()).toBe(agents)
  repo.write('c.txt', 'c\n')
  const sha = await workspace.commitAll('ralph r: iteration 3', await workspace.treeHash())
  expect(repo.git('rev-parse', 'HEAD^').trim()).toBe(agents)
  expect(repo.git('rev-parse', 'HEAD').trim()).toBe(sha)
  expect(repo.git('status', '--porcelain')).toBe('')
})

test('commitAll skips pre-commit and commit-msg hooks, runs those git commit --no-verify runs', async () => {
  const hooks = path.join(repo.dir, '.git', 'hooks')
  const hook = (name: string, script: string): void => {
    writeFileSync(path.join(hooks, name), `#!/bin/sh\n${script}\n`)
    chmodSync(path.join(hooks, name), 0o755)
  }
  hook('pre-commit', 'exit 1')
  hook('commit-msg', 'exit 1')
  hook('post-commit', 'echo ran > "$(git rev-parse --show-toplevel)/../post-commit-ran"')
  repo.write('a.txt', 'a\n')
  expect(await workspace.commitAll('ralph r: iteration 1', await workspace.treeHash())).toMatch(
    /^[0-9a-f]{40}$/
  )
  const marker = path.join(repo.dir, '..', 'post-commit-ran')
  expect(existsSync(marker)).toBe(true)
  rmSync(marker)
  expect(repo.git('status', '--porcelain')).toBe('')
})

test('commitAll signs when git is told to (a signing program that fails fails the commit)', async () => {
  repo.git('config', 'commit.gpgsign', 'true')
  repo.git('config', 'gpg.program', 'false')
  const ws = await GitWorkspace.open(repo.dir)
  repo.write('a.txt', 'a\n')
  await expect(ws.commitAll('ralph r: iteration 1', await ws.treeHash())).rejects.toThrow(/git commit/)
  await ws.dispose()
})

test('commitAll with the index locked by another git fails as git would, and moves nothing', async () => {
  const head = repo.git('rev-parse', 'HEAD')
  writeFileSync(path.join(repo.dir, '.git', 'index.lock'), '')
  repo.write('a.txt', 'a\n')
  await expect(workspace.commitAll('ralph r: iteration 1', await workspace.treeHash())).rejects.toThrow(
    /index\.lock/
  )
  expect(repo.git('rev-parse', 'HEAD')).toBe(head)
  rmSync(path.join(repo.dir, '.git', 'index.lock'))
})

test('commitAll finishes a merge in progress the way git commit does (two parents)', async () => {
  repo.git('checkout', '--quiet', '-b', 'side')
  repo.write('side.txt', 'side\n')
  repo.git('add', '-A')
  repo.git('commit', '--quiet', '-m', 'side')
  repo.git('checkout', '--quiet', 'main')
  repo.write('main.txt', 'main\n')
  repo.git('add', '-A')
  repo.git('commit', '--quiet', '-m', 'main')
  repo.git('merge', '--quiet', '--no-commit', 'side')
  const sha = await workspace.commitAll('ralph r: iteration 1', await workspace.treeHash())
  expect(
    repo
      .git('rev-list', '--parents', '-n', '1', sha as string)
      .trim()
      .split(' ')
  ).toHaveLength(3)
  expect(existsSync(path.join(repo.dir, '.git', 'MERGE_HEAD'))).toBe(false)
})

test('a folder outside any repository is not a repo', async () => {
  const dir = tempDir()
  const ws = await GitWorkspace.open(dir)
  expect(await ws.isRepo()).toBe(false)
  expect(ws.root).toBe(dir)
  rmSync(dir, { recursive: true, force: true })
})

test('createWorktree makes an isolated checkout on its own branch, outside the repository', async () => {
  const tree = await createWorktree(repo.dir, { branch: 'ralph/test-1' })
  expect(existsSync(path.join(tree.dir, 'README.md'))).toBe(true)
  expect(path.relative(repo.dir, tree.dir).startsWith('..')).toBe(true)
  const ws = await GitWorkspace.open(tree.dir)
  expect(ws.root).toBe(tree.dir)
  await ws.dispose()
  expect(repo.git('branch', '--list', 'ralph/test-1')).toContain('ralph/test-1')
  repo.git('worktree', 'remove', '--force', tree.dir)
  rmSync(path.dirname(tree.dir), { recursive: true, force: true })
})
