// The git server's auth rules as a job token meets them: a read-only token fetches but its push is refused
// with GitHub's 403 text before anything lands, and every push attempt is recorded by token.
import { execFile } from 'node:child_process'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterEach, expect, test } from '@jest/globals'
import { tempDir } from '../git/temp-repo.js'
import { basicHeaderOf, startGitServer, WRITE_TOKEN, type GitServer } from './git-server.js'

const execFileAsync = promisify(execFile)
const READ_TOKEN = 'ghs_readOnlyJobToken'
let server: GitServer | undefined
let work: string | undefined

afterEach(async () => {
  await server?.close()
  if (work) rmSync(work, { recursive: true, force: true })
  server = work = undefined
})

/** git as a job runs it, with `token` as checkout's persisted credential; asynchronous (the server is in-process). */
async function git(
  cwd: string,
  token: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
  const header = ['-c', `http.extraheader=AUTHORIZATION: ${basicHeaderOf(token)}`]
  try {
    const { stdout, stderr } = await execFileAsync('git', [...header, ...args], {
      cwd,
      env,
      encoding: 'utf8'
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

test('a read-only token fetches, but its push is refused 403 as GitHub refuses it, and the attempt is recorded', async () => {
  server = await startGitServer()
  server.commitOnRemote('main', { 'README.md': 'hello\n' }, 'start')
  server.tokens.set(READ_TOKEN, 'read')
  work = tempDir('ralph-git-server-test-')
  const clone = path.join(work, 'clone')
  expect((await git(work, READ_TOKEN, 'clone', '--quiet', server.cloneUrl, clone)).code).toBe(0)
  await git(
    clone,
    READ_TOKEN,
    '-c',
    'user.name=a',
    '-c',
    'user.email=a@b',
    'commit',
    '--allow-empty',
    '-qm',
    'x'
  )
  expect(server.pushAttemptsBy(READ_TOKEN)).toEqual([])

  const denied = await git(clone, READ_TOKEN, 'push', 'origin', 'HEAD:refs/heads/ralph/x')
  expect(denied.code).not.toBe(0)
  expect(denied.stderr).toContain('remote: Permission to acme/widgets.git denied to github-actions[bot].')
  expect(denied.stderr).toContain('The requested URL returned error: 403')
  expect(server.git('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
  expect(server.pushAttemptsBy(READ_TOKEN).map(r => [r.method, r.path, r.status])).toEqual([
    ['GET', '/acme/widgets/info/refs?service=git-receive-pack', 403]
  ])

  // The same push with a write token lands, and is its own token's attempt, not the read-only one's.
  const pushed = await git(clone, WRITE_TOKEN, 'push', 'origin', 'HEAD:refs/heads/ralph/x')
  expect(pushed.code).toBe(0)
  expect(server.git('for-each-ref', '--format=%(refname)', 'refs/heads/ralph/').trim()).toBe(
    'refs/heads/ralph/x'
  )
  expect(server.pushAttemptsBy(WRITE_TOKEN).map(r => r.status)).toEqual([200, 200])
  expect(server.pushAttemptsBy(READ_TOKEN)).toHaveLength(1)
})
