// Every git command that reaches the remote is tried again when it fails in transit; one GitHub refuses is not.
// What is transient, as a table of git's own words; then against the real git server with a fault schedule:
// the fetches and ls-remotes of prepareBranch, and the push (a reset, a 502, a stall, and a push that landed
// but whose answer was lost: the retry finds the branch up to date, on the action's own branch with its lease
// and on a person's branch alike).
import { afterEach, beforeEach, expect, test } from '@jest/globals'
import {
  inTransit,
  prepareBranch,
  pushWithRetry,
  PUSH_FAILURE,
  type PushResult
} from '../../src/git/index.js'
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

const URL_LINE = "fatal: unable to access 'https://github.com/acme/widgets/':"

// git 2.39's words, as it printed them against the fault-injecting git server.
test.each([
  ['a reset connection', true, `${URL_LINE} Recv failure: Connection reset by peer`],
  ['an empty reply', true, `${URL_LINE} Empty reply from server`],
  [
    'a 502 on the ref listing',
    true,
    `remote: Server Error\n${URL_LINE} The requested URL returned error: 502`
  ],
  [
    'a 503 on the ref listing',
    true,
    `remote: Service Unavailable\n${URL_LINE} The requested URL returned error: 503`
  ],
  ['a 429', true, `remote: Too Many Requests\n${URL_LINE} The requested URL returned error: 429`],
  [
    'a 502 on the pack request',
    true,
    'error: RPC failed; HTTP 502 curl 22 The requested URL returned error: 502\nfatal: expected flush after ref listing'
  ],
  [
    "GitHub's secondary rate limit (a 403 that asks to wait)",
    true,
    `remote: You have exceeded a secondary rate limit. Please wait a few minutes before you try again.\n${URL_LINE} The requested URL returned error: 403`
  ],
  [
    'a stall cut off',
    true,
    'error: RPC failed; curl 28 Operation too slow. Less than 1 bytes/sec transferred the last 2 seconds'
  ],
  ['a 401', false, `remote: Invalid username or token.\n${URL_LINE} The requested URL returned error: 401`],
  [
    'no credential to answer a 401',
    false,
    "fatal: could not read Username for 'https://github.com': terminal prompts disabled"
  ],
  [
    'a 403',
    false,
    `remote: Permission to acme/widgets.git denied to github-actions[bot].\n${URL_LINE} The requested URL returned error: 403`
  ],
  [
    'a 403 on the pack request (no words to tell a rate limit by)',
    false,
    'error: RPC failed; HTTP 403 curl 22 The requested URL returned error: 403\nfatal: the remote end hung up unexpectedly'
  ],
  ['a 404', false, `remote: Repository not found.\n${URL_LINE} The requested URL returned error: 404`],
  [
    'a refused lease',
    false,
    ' ! [rejected]        ralph/fix -> ralph/fix (stale info)\nerror: failed to push some refs'
  ],
  ['a missing ref', false, "fatal: couldn't find remote ref refs/heads/nope"]
])('%s: in transit %s', (_what, transient, said) => {
  expect(inTransit(said) !== undefined).toBe(transient)
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

// --- the fetches and ls-remotes of prepareBranch ---

/** The requests that read the remote (ls-remote, fetch): GETs of the ref listing, POSTs of ls-refs and fetch. */
const reads = (method: 'GET' | 'POST') =>
  server.requests.filter(r => r.service === 'upload-pack' && r.method === method)

/** prepareBranch in a fresh checkout, with `faults` planned on the reads that follow the checkout's own. */
async function prepareWith(
  faults: Array<[route: string, call: number, kind: FaultKind]>,
  options: { branch?: string; continueExisting?: boolean } = {}
) {
  const work = await checkout(server, { token: WRITE_TOKEN })
  cleanups.push(() => work.cleanup())
  server.faults.clear()
  server.requests.length = 0
  for (const [route, call, kind] of faults) server.faults.add(route, call, kind)
  const logs: string[] = []
  const prepared = await prepareBranch(work.dir, {
    branch: options.branch ?? 'ralph/fix',
    ...(options.continueExisting ? { continueExisting: true } : {}),
    env: {} as NodeJS.ProcessEnv,
    retry: { attempts: 3, waitMs: () => 10 },
    stallSeconds: 2,
    log: l => logs.push(l)
  })
  return { prepared, logs, retries: logs.filter(l => /did not get through/.test(l)) }
}

const RETRIED = /^git (fetch|ls-remote) did not get through \(.+\); trying again in 10 ms \(try 2 of 3\)\.$/

// The ref listing (GET): call 1 is the base's fetch, call 2 the ls-remote of the loop's branch.
test.each<[FaultKind, number]>(
  (['reset', 'empty-reply', '502', '503', '429', 'secondary-rate-limit'] as FaultKind[]).flatMap(kind => [
    [kind, 1],
    [kind, 2]
  ])
)('a %s on ref listing %i: tried again once, and the branch is prepared', async (kind, call) => {
  const { prepared, retries } = await prepareWith([['upload-pack-refs', call, kind]])
  expect(server.faults.injected).toEqual([{ route: 'upload-pack-refs', call, kind }])
  expect(prepared.baseSha).toBe(server.git('rev-parse', 'refs/heads/main').trim())
  expect(retries).toEqual([expect.stringMatching(RETRIED)])
  expect(retries[0]).toMatch(call === 1 ? /^git fetch / : /^git ls-remote /)
})

// The POSTs (ls-refs, then the pack): a status is tried again by us; a reset or an empty reply curl resends itself.
test.each<[FaultKind, number, number]>([
  ['502', 1, 1],
  ['503', 2, 1],
  ['reset', 1, 0],
  ['empty-reply', 2, 0]
])(
  'a %s on upload-pack request %i: the branch is prepared (%i retries of ours)',
  async (kind, call, ours) => {
    const { prepared, retries } = await prepareWith([['upload-pack', call, kind]])
    expect(server.faults.injected).toEqual([{ route: 'upload-pack', call, kind }])
    expect(prepared.baseSha).toBe(server.git('rev-parse', 'refs/heads/main').trim())
    expect(retries).toHaveLength(ours)
  }
)

test("every read of a continued branch in a shallow clone fails once (the base's fetch, ls-remote, the branch's fetch, the deepening): each is tried again", async () => {
  server.git('branch', 'ralph/fix', 'main')
  const tip = server.commitOnRemote('ralph/fix', { 'fix.txt': 'one\n' }, 'fix 1')
  server.commitOnRemote('main', { 'other.txt': 'moved\n' }, 'main moved on')
  // Fault-free first, to count the reads; then each fails once (its retry takes the next call).
  const clean = await prepareWith([], { branch: 'ralph/fix', continueExisting: true })
  const count = reads('GET').length
  expect(clean.prepared.continued).toBe(true)
  expect(count).toBeGreaterThanOrEqual(4)
  const faults = Array.from(
    { length: count },
    (_, i) => ['upload-pack-refs', 2 * i + 1, '502'] as [string, number, FaultKind]
  )
  const { prepared, retries } = await prepareWith(faults, { branch: 'ralph/fix', continueExisting: true })
  expect(server.faults.unused()).toEqual([])
  expect(retries).toHaveLength(count)
  expect(prepared).toMatchObject({ continued: true, remoteSha: tip, startSha: tip })
})

test('a read that fails in transit every time: tried 3 times, then one line saying what git said', async () => {
  const failing = prepareWith(
    [1, 2, 3].map(call => ['upload-pack-refs', call, 'reset'] as [string, number, FaultKind])
  )
  await expect(failing).rejects.toThrow(
    /^Could not fetch the base branch 'main' from 'origin': fatal: unable to access '.+': Recv failure: Connection reset by peer$/
  )
  expect(reads('GET')).toHaveLength(3)
})

test('a token the remote refuses (401) fails at once, in one line with the fix: no retry', async () => {
  const work = await checkout(server, { token: WRITE_TOKEN })
  cleanups.push(() => work.cleanup())
  server.requests.length = 0
  server.private = true
  server.tokens.delete(WRITE_TOKEN)
  const logs: string[] = []
  const error = await prepareBranch(work.dir, {
    branch: 'ralph/fix',
    env: {} as NodeJS.ProcessEnv,
    retry: { attempts: 3, waitMs: () => 10 },
    log: l => logs.push(l)
  }).catch((e: Error) => e)
  expect((error as Error).message).toMatch(
    /^Could not fetch the base branch 'main' from 'origin': .*(could not read Username|Authentication failed).* \(the remote refused the token: /
  )
  expect((error as Error).message).not.toContain('\n')
  expect(reads('GET').map(r => r.status)).toEqual([401])
  expect(logs.filter(l => /did not get through/.test(l))).toEqual([])
})
