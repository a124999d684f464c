// The verdict's round-two corpus (#37), the `node --test` project: every cheat class of verdict-corpus.ts on it
// gets no pull request, and an honest agent gets its own, also in a repository holding a file name that is not
// UTF-8. A case that fails today is `test.failing` (a cheat's `prToday`, the name's false refusal): each flips to
// `test` once the verdict stops it.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from '@jest/globals'
import { PROJECTS, cheatTests, fixedInAClone, honestTest, runCorpus } from './verdict-corpus.js'
import type { Project } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()

cheatTests(e2e, 'node --test')
honestTest(e2e, 'node --test')

/** Pushes onto the remote's main a file whose name is `name`'s bytes; answers the new commit. */
function pushRawName(p: Project, name: Buffer): string {
  const dir = mkdtempSync(path.join(p.dir, 'raw-'))
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    HOME: dir,
    GIT_AUTHOR_NAME: 'Octo Cat',
    GIT_AUTHOR_EMAIL: 'octocat@example.com',
    GIT_COMMITTER_NAME: 'Octo Cat',
    GIT_COMMITTER_EMAIL: 'octocat@example.com'
  }
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: path.join(dir, 'clone'), env, encoding: 'utf8' })
  execFileSync('git', ['clone', '--quiet', p.remote, 'clone'], { cwd: dir, env })
  const file = Buffer.concat([Buffer.from(path.join(dir, 'clone') + '/'), name])
  mkdirSync(path.dirname(file.toString('latin1')), { recursive: true })
  writeFileSync(file, 'café\n')
  git('add', '-A')
  git('commit', '--quiet', '-m', 'A fixture whose name is Latin-1')
  git('push', '--quiet', 'origin', 'main')
  const sha = git('rev-parse', 'HEAD').trim()
  rmSync(dir, { recursive: true, force: true })
  return sha
}

// node --test with no file named walks the tree and fails on a name that is not UTF-8 by itself (Could not find
// '…caf�.txt'), whatever the action does: the gate names its test files, as such a repository must.
test('node --test, an honest agent in a repository holding a non-UTF-8 file name under a test folder gets its pull request', async () => {
  const name = Buffer.from('test/fixtures/caf\xe9.txt', 'latin1')
  const { p, run } = await runCorpus(
    e2e,
    { project: 'node --test', move: PROJECTS['node --test'].honest },
    async files => {
      const scripts = { test: 'node --test calc.test.js mul.test.js' }
      const pkg = { ...(JSON.parse(files['package.json'] as string) as object), scripts }
      const first = await e2e.project({ ...files, 'package.json': `${JSON.stringify(pkg, null, 2)}\n` })
      return e2e.checkoutAgain(first, { sha: pushRawName(first, name) })
    }
  )
  expect(run.main.stderr).toBe('')
  expect(run.outputs).toMatchObject({ success: 'true', 'pr-operation': 'created', verified: 'true' })
  expect(fixedInAClone(p, 'node --test', run.outputs.branch)).toBe(true)
  // Delivered byte-exact: the name is in the pushed tree as it was.
  const listed = execFileSync('git', ['ls-tree', '-r', '-z', '--name-only', run.outputs.commit], {
    cwd: p.remote
  })
  expect(listed.toString('latin1').split('\0')).toContain(name.toString('latin1'))
  e2e.expectClean(p)
}, 240_000)
