// A push that fails in transit is tried again; one GitHub refuses is not. Against the real git server with a
// fault schedule: a reset, a 502, a stall, and a push that landed but whose answer was lost (the retry finds
// the branch up to date, on the action's own branch with its lease and on a person's branch alike).
import { afterEach, beforeEach, expect, test } from '@jest/globals'
import { prepareBranch, pushWithRetry, PUSH_FAILURE, type PushResult } from '../../src/git/index.js'
import type { FaultKind } from '../support/faults.js'
import { checkout } from './checkout.js'
import { startGitServer, WRITE_TOKEN, type GitServer } from '../support/git-server.js'

let server: GitServer
const cleanups: Array<() => void> = []

beforeEach(async () => {
  server = await startGitServer()
  server.commitOnRemote('main', { 'README.md': 'hello\n' }, 'start')
})
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
  await server.close()
})

const pushes = () => server.requests.filter(r => r.service === 'receive-pack' && r.method === 'POST')

/** The loop's branch (or a person's, already on the remote) with one new commit, pushed with retries. */
async function pushOnce(branch = 'ralph/fix'): Promise<PushResult & { logs: string[]; sha: string }> {
  const work = await checkout(server)
  cleanups.push(() => work.cleanup())
  const prepared = await prepareBranch(work.dir, {
    branch,
    continueExisting: !branch.startsWith('ralph/'),
    env: {} as NodeJS.ProcessEnv
  })
  const sha = work.commit('ralph fix: iteration 1', { 'fix.txt': 'fixed\n' })
  const logs: string[] = []
  const result = await pushWithRetry(
    work.dir,
    {
      branch: prepared.branch,
      token: WRITE_TOKEN,
      serverUrl: server.url,
      repository: server.repository,
      leaseSha: prepared.remoteSha,
      stallSeconds: 2,
      log: l => logs.push(l)
    },
    { attempts: 3, waitMs: () => 10 }
  )
  return { ...result, logs, sha }
}

test.each<[FaultKind, string]>([
  ['reset', 'receive-pack-refs'],
  ['502', 'receive-pack-refs'],
  ['502', 'receive-pack'],
  ['stall', 'receive-pack'],
  ['drop-response', 'receive-pack-refs']
])('a %s on %s: the push is tried again and lands', async (kind, route) => {
  server.faults.add(route, 1, kind)
  const result = await pushOnce()
  expect(server.faults.injected).toEqual([{ route, call: 1, kind }])
  expect(result.pushed).toBe(true)
  expect(server.git('rev-parse', 'refs/heads/ralph/fix').trim()).toBe(result.sha)
  expect(result.logs.join('\n')).toMatch(
    /The push did not get through \(.+\); trying again in 10 ms \(push 2 of 3\)/
  )
})

test('a reset of the pack upload: curl sends it again by itself, and the push lands', async () => {
  server.faults.add('receive-pack', 1, 'reset')
  const result = await pushOnce()
  expect(result.pushed).toBe(true)
  expect(server.git('rev-parse', 'refs/heads/ralph/fix').trim()).toBe(result.sha)
  expect(pushes().map(r => r.fault ?? r.status)).toEqual(['reset', 200])
})

test('the push landed but its answer was lost: pushed once more, the branch is up to date, a success', async () => {
  server.faults.add('receive-pack', 1, 'drop-response')
  const result = await pushOnce()
  expect(result.pushed).toBe(true)
  expect(server.git('rev-parse', 'refs/heads/ralph/fix').trim()).toBe(result.sha)
  // curl's own resend is refused (the ref already moved); the push made to tell which finds it up to date.
  expect(result.logs).toEqual([
    expect.stringMatching(/^The push of 'ralph\/fix' to acme\/widgets failed: .*failed to update ref/s),
    'Pushing once more, to tell a refusal from an earlier try that landed unanswered.',
    expect.stringMatching(/^'ralph\/fix' on acme\/widgets is already at [0-9a-f]{7}\.$/)
  ])
})

test("a person's branch (fast-forward only): a push that landed unanswered is up to date on the retry", async () => {
  server.git('branch', 'feature', 'main')
  server.commitOnRemote('feature', { 'feature.txt': 'theirs\n' }, 'their work')
  server.faults.add('receive-pack', 1, 'drop-response')
  const result = await pushOnce('feature')
  expect(result.pushed).toBe(true)
  expect(result.forced).toBe(false)
  expect(server.git('rev-parse', 'refs/heads/feature').trim()).toBe(result.sha)
  expect(pushes().length).toBeGreaterThanOrEqual(2)
  expect(result.logs.at(-1)).toMatch(/is already at [0-9a-f]{7}/)
})

test('failing in transit every time: three pushes, then the failure as git said it', async () => {
  for (let call = 1; call <= 3; call++) server.faults.add('receive-pack-refs', call, 'reset')
  const result = await pushOnce()
  expect(result.pushed).toBe(false)
  expect(result.error?.kind).toBe(PUSH_FAILURE.unknown)
  expect(result.error?.message).toMatch(/^The push of 'ralph\/fix' to acme\/widgets failed: /)
  expect(server.requests.filter(r => r.service === 'receive-pack' && r.method === 'GET')).toHaveLength(3)
  expect(pushes()).toEqual([])
})

test('a push GitHub refuses is not tried again, and keeps its message', async () => {
  server.rejectPushes({
    reason: 'protected branch hook declined',
    remoteLines: ['remote: error: GH006: Protected branch update failed for refs/heads/ralph/fix.']
  })
  const result = await pushOnce()
  expect(result.error?.kind).toBe(PUSH_FAILURE.protectedBranch)
  expect(result.error?.message).toMatch(/the branch is protected/)
  expect(pushes()).toHaveLength(1)
  expect(result.logs.join('\n')).not.toMatch(/trying again/)
})

test('a token GitHub refuses (403) is not tried again', async () => {
  server.tokens.set(WRITE_TOKEN, 'read')
  const result = await pushOnce()
  expect(result.error?.kind).toBe(PUSH_FAILURE.permissionDenied)
  expect(server.requests.filter(r => r.service === 'receive-pack')).toHaveLength(1)
})
