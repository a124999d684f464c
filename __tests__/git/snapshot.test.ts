// .git's config, info/ and hooks/ put back byte for byte after the loop: what an agent of the job's own user
// (isolation none) plants there does not outlive it, however it was planted.
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { restoreGitDir, snapshotGitDir } from '../../src/git/index.js'
import { tempDir, tempRepo, type TempRepo } from './temp-repo.js'

let repo: TempRepo
beforeEach(() => {
  repo = tempRepo()
})
afterEach(() => repo.cleanup())

/** Every file under .git's config, info/ and hooks/, with its mode and content. */
function gitDirState(): Record<string, string> {
  const git = path.join(repo.dir, '.git')
  const state: Record<string, string> = {}
  const walk = (dir: string): void => {
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      const full = path.join(dir, name)
      const s = lstatSync(full)
      if (s.isDirectory()) walk(full)
      else
        state[path.relative(git, full)] =
          `${(s.mode & 0o7777).toString(8)} ${s.isSymbolicLink() ? 'link' : readFileSync(full, 'utf8')}`
    }
  }
  state.config = readFileSync(path.join(git, 'config'), 'utf8')
  walk(path.join(git, 'info'))
  walk(path.join(git, 'hooks'))
  return state
}

test('planted keys, attributes, hooks, a hooks folder turned symlink and a removed file all go back as they were', async () => {
  const git = path.join(repo.dir, '.git')
  repo.git('config', 'core.hooksPath', '.git/hooks')
  const before = gitDirState()
  const snapshot = await snapshotGitDir(repo.dir)

  repo.git('config', 'core.fsmonitor', '/tmp/evil fsmonitor')
  repo.git('config', 'filter.pwn.smudge', '/tmp/evil smudge')
  repo.git('config', 'remote.origin.url', 'ext::/tmp/evil %S')
  repo.git('config', '--unset', 'core.hooksPath')
  writeFileSync(path.join(git, 'info', 'attributes'), '* filter=pwn\n')
  writeFileSync(path.join(git, 'info', 'exclude'), 'everything\n')
  writeFileSync(path.join(git, 'config.worktree'), '[core]\n\tsshCommand = /tmp/evil\n')
  const sample = readdirSync(path.join(git, 'hooks'))[0]
  rmSync(path.join(git, 'hooks', sample))
  const elsewhere = tempDir('ralph-elsewhere-')
  writeFileSync(path.join(elsewhere, 'post-checkout'), '#!/bin/sh\n/tmp/evil\n')
  rmSync(path.join(git, 'hooks'), { recursive: true })
  symlinkSync(elsewhere, path.join(git, 'hooks'))

  const changed = await restoreGitDir(snapshot)
  expect(gitDirState()).toEqual(before)
  expect(changed).toEqual(
    expect.arrayContaining([
      path.join(git, 'config'),
      path.join(git, 'config.worktree'),
      path.join(git, 'info', 'attributes'),
      path.join(git, 'info', 'exclude'),
      path.join(git, 'hooks')
    ])
  )
  expect(lstatSync(path.join(git, 'hooks')).isDirectory()).toBe(true)
  // What the symlink pointed at is not touched.
  expect(readFileSync(path.join(elsewhere, 'post-checkout'), 'utf8')).toContain('evil')
  // Nothing changed: nothing to say.
  expect(await restoreGitDir(snapshot)).toEqual([])
  rmSync(elsewhere, { recursive: true, force: true })
})

test('a hook planted under a name that is not UTF-8 goes too, and a saved one comes back by its bytes (#35)', async () => {
  const hooks = path.join(repo.dir, '.git', 'hooks')
  const named = (name: string): Buffer =>
    Buffer.concat([Buffer.from(`${hooks}/`), Buffer.from(name, 'latin1')])
  writeFileSync(named('kept-caf\xe9'), 'saved\n')
  const snapshot = await snapshotGitDir(repo.dir)
  writeFileSync(named('planted-caf\xe9'), '#!/bin/sh\n')
  // A UTF-8 decoder reads this one the same as the saved one (kept-caf\ufffd): it is another file.
  writeFileSync(named('kept-caf\xe8'), 'planted\n')
  rmSync(named('kept-caf\xe9'))
  await restoreGitDir(snapshot)
  const names = readdirSync(hooks, { encoding: 'buffer' }).map(n => n.toString('latin1'))
  expect(names.filter(n => n.includes('caf'))).toEqual(['kept-caf\xe9'])
  expect(readFileSync(named('kept-caf\xe9'), 'utf8')).toBe('saved\n')
})
