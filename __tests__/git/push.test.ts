// Pushing the loop's branch to a real git server over HTTP (git http-backend), with GitHub's auth rules and
// GitHub's rejection texts reproduced server-side.
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import {
  classifyPushFailure,
  formatPatch,
  prepareBranch,
  pushBranch,
  PUSH_FAILURE,
  type PreparedBranch
} from '../../src/git/index.js'
import { tempDir } from '../git/temp-repo.js'
import { checkout, type Checkout } from './checkout.js'
import { startGitServer, WRITE_TOKEN, type GitServer } from '../support/git-server.js'

const BASE64 = Buffer.from(`x-access-token:${WRITE_TOKEN}`).toString('base64')
const noEnv = {} as NodeJS.ProcessEnv

let server: GitServer
const cleanups: Array<() => void | Promise<void>> = []

beforeEach(async () => {
  server = await startGitServer()
  server.commitOnRemote('main', { 'README.md': 'hello\n' }, 'start')
})
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await server.close()
})

/** A checkout (no persisted credential unless asked), the loop's branch prepared, one commit made. */
async function loopBranch(
  options: {
    branch?: string
    depth?: number
    continueExisting?: boolean
    files?: Record<string, string>
  } = {}
): Promise<{ work: Checkout; prepared: PreparedBranch; sha: string }> {
  const work = await checkout(server, { depth: options.depth ?? 1 })
  cleanups.push(() => work.cleanup())
  const prepared = await prepareBranch(work.dir, {
    branch: options.branch ?? 'ralph/fix',
    continueExisting: options.continueExisting ?? false,
    env: noEnv
  })
  const sha = work.commit('ralph fix: iteration 1', options.files ?? { 'fix.txt': 'fixed\n' })
  return { work, prepared, sha }
}

function push(
  work: Checkout,
  prepared: PreparedBranch,
  extra: Partial<Parameters<typeof pushBranch>[1]> = {}
) {
  const logs: string[] = []
  return pushBranch(work.dir, {
    branch: prepared.branch,
    token: WRITE_TOKEN,
    serverUrl: server.url,
    repository: server.repository,
    leaseSha: prepared.remoteSha,
    log: l => logs.push(l),
    ...extra
  }).then(result => ({ ...result, logs }))
}

/** A temp folder removed after the test. */
function scratch(prefix: string): string {
  const dir = tempDir(prefix)
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function remoteSha(branch: string): string {
  return server.git('rev-parse', `refs/heads/${branch}`).trim()
}

test('the token reaches the server as a basic auth header for this push only: never in .git/config, argv or a URL', async () => {
  const { work, prepared, sha } = await loopBranch()
  // Every git command line the action runs, through a git first on PATH (the action's git is hermetic: a
  // GIT_TRACE of the job's does not reach it).
  const shims = scratch('ralph-trace-')
  const trace = path.join(shims, 'trace.log')
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
  writeFileSync(
    path.join(shims, 'git'),
    `#!/bin/sh\necho "trace: exec: git $*" >> ${trace}\nexec ${realGit} "$@"\n`,
    {
      mode: 0o755
    }
  )
  const savedPath = process.env.PATH
  process.env.PATH = `${shims}:${savedPath}`
  let result
  try {
    result = await push(work, prepared)
  } finally {
    process.env.PATH = savedPath
  }
  expect(result).toMatchObject({ pushed: true, sha, forced: false })
  expect(result.error).toBeUndefined()
  expect(remoteSha('ralph/fix')).toBe(sha)
  // What reached the server: the header, on the push requests.
  const pushes = server.requests.filter(r => r.service === 'receive-pack')
  expect(pushes.length).toBeGreaterThan(0)
  expect(pushes.every(r => r.token === WRITE_TOKEN && r.authorization === `basic ${BASE64}`)).toBe(true)
  // Where it never was: the trace of every git command line, the config, the output, the remote's URL.
  const traced = readFileSync(trace, 'utf8')
  expect(traced).toMatch(/trace: (built-in|exec|run_command): .*push/)
  expect(traced).not.toContain(WRITE_TOKEN)
  expect(traced).not.toContain(BASE64)
  expect(readFileSync(path.join(work.dir, '.git', 'config'), 'utf8')).not.toMatch(
    /extraheader|x-access-token/
  )
  expect(result.output).not.toContain(WRITE_TOKEN)
  expect(work.git('remote', 'get-url', 'origin').trim()).toBe(server.cloneUrl)
  // The remote-tracking ref follows the push.
  expect(work.git('rev-parse', 'refs/remotes/origin/ralph/fix').trim()).toBe(sha)
  expect(result.logs.join('\n')).toMatch(/Pushed [0-9a-f]{7} to 'ralph\/fix' on acme\/widgets/)
})

test('a shallow clone (fetch-depth 1) pushes', async () => {
  for (let i = 0; i < 3; i++) server.commitOnRemote('main', { [`f${i}`]: `${i}\n` }, `c${i}`)
  const { work, prepared, sha } = await loopBranch({ depth: 1 })
  expect(work.git('rev-parse', '--is-shallow-repository').trim()).toBe('true')
  const result = await push(work, prepared)
  expect(result).toMatchObject({ pushed: true, sha })
  expect(remoteSha('ralph/fix')).toBe(sha)
})

test('what the agent left in .git/config, .git/hooks or ~/.gitconfig cannot redirect the push or run code', async () => {
  const evilRequests: string[] = []
  const evil = createServer((req, res) => {
    evilRequests.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`)
    res.writeHead(404).end()
  })
  await new Promise<void>(resolve => evil.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => new Promise<void>(resolve => evil.close(() => resolve())))
  const evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`

  const { work, prepared, sha } = await loopBranch()
  const marker = path.join(scratch('ralph-marker-'), 'hook-ran')
  const hooks = path.join(work.dir, '.git', 'hooks')
  mkdirSync(hooks, { recursive: true })
  for (const hook of ['pre-push', 'reference-transaction', 'post-update']) {
    writeFileSync(path.join(hooks, hook), `#!/bin/sh\necho "$0" >> ${marker}\nenv >> ${marker}\n`)
    chmodSync(path.join(hooks, hook), 0o755)
  }
  work.git('remote', 'set-url', 'origin', `${evilUrl}/stolen`)
  work.git('config', `url.${evilUrl}/.insteadOf`, `${server.url}/`)
  work.git('config', 'http.proxy', evilUrl)
  work.git('config', 'core.fsmonitor', `echo fsmonitor >> ${marker}`)
  const globalConfig = path.join(scratch('ralph-home-'), '.gitconfig')
  writeFileSync(
    globalConfig,
    `[url "${evilUrl}/"]\n\tinsteadOf = ${server.url}/\n[core]\n\thooksPath = ${hooks}\n`
  )
  process.env.GIT_CONFIG_GLOBAL = globalConfig
  let result
  try {
    result = await push(work, prepared)
  } finally {
    delete process.env.GIT_CONFIG_GLOBAL
  }
  expect(result).toMatchObject({ pushed: true, sha })
  expect(remoteSha('ralph/fix')).toBe(sha)
  expect(evilRequests).toEqual([])
  expect(existsSync(marker)).toBe(false)
})

test("~/.gitconfig's trace2 target and a same-length ext:: rewrite (written by an agent of the job's user) play no part in the push", async () => {
  const { work, prepared, sha } = await loopBranch()
  const home = scratch('ralph-home-')
  const loot = scratch('ralph-loot-')
  const ext = path.join(loot, 'ext.sh')
  writeFileSync(ext, `#!/bin/sh\nenv > ${loot}/ext-ran.txt\nexit 1\n`, { mode: 0o755 })
  const url = `${server.url}/${server.repository}`
  // Git keeps the first rewrite of maximal length and reads global config before -c / GIT_CONFIG_*: this one
  // would win against any guard of the same length given on the command line.
  writeFileSync(
    path.join(home, '.gitconfig'),
    [
      '[trace2]',
      `\teventTarget = ${loot}/trace2.json`,
      '\tconfigParams = http.*',
      '[protocol "ext"]',
      '\tallow = always',
      `[url "ext::${ext} %S"]`,
      `\tinsteadOf = ${url}`,
      `\tpushInsteadOf = ${url}`,
      ''
    ].join('\n')
  )
  const saved = process.env.HOME
  process.env.HOME = home
  try {
    const result = await push(work, prepared)
    expect(existsSync(path.join(loot, 'ext-ran.txt'))).toBe(false)
    expect(existsSync(path.join(loot, 'trace2.json'))).toBe(false)
    expect(result).toMatchObject({ pushed: true, sha })
    expect(remoteSha('ralph/fix')).toBe(sha)
    // Any git that reads the job's HOME obeys it: the config is real.
    execFileSync('git', ['config', '--global', '--get', 'trace2.eventTarget'], { env: { ...process.env } })
    expect(existsSync(path.join(loot, 'trace2.json'))).toBe(true)
  } finally {
    process.env.HOME = saved
  }
})

describe('force only with a lease, only onto a branch the action owns', () => {
  test('a ralph/ branch from an earlier run is replaced when it is still where the run found it', async () => {
    const old = server.commitOnRemote('ralph/fix', { 'old.txt': 'old\n' }, 'an earlier attempt')
    const { work, prepared, sha } = await loopBranch()
    expect(prepared.remoteSha).toBe(old)
    const result = await push(work, prepared)
    expect(result).toMatchObject({ pushed: true, sha, forced: true })
    expect(remoteSha('ralph/fix')).toBe(sha)
  })

  test('a ralph/ branch someone pushed to during the run is not overwritten (stale lease)', async () => {
    server.commitOnRemote('ralph/fix', { 'old.txt': 'old\n' }, 'an earlier attempt')
    const { work, prepared } = await loopBranch()
    const theirs = server.commitOnRemote(
      'ralph/fix',
      { 'theirs.txt': 'human\n' },
      'a human fixed it meanwhile'
    )
    const result = await push(work, prepared)
    expect(result.pushed).toBe(false)
    expect(result.error?.kind).toBe(PUSH_FAILURE.staleLease)
    expect(result.error?.message).toMatch(/changed on acme\/widgets while the loop ran/)
    expect(remoteSha('ralph/fix')).toBe(theirs)
  })

  test('a branch the run meant to create, created by someone else meanwhile, is not overwritten', async () => {
    const { work, prepared } = await loopBranch({ branch: 'feature/new' })
    expect(prepared.remoteSha).toBeNull()
    const theirs = server.commitOnRemote('feature/new', { 'theirs.txt': 'x\n' }, 'someone else')
    const result = await push(work, prepared)
    expect(result.error?.kind).toBe(PUSH_FAILURE.staleLease)
    expect(remoteSha('feature/new')).toBe(theirs)
  })

  test('a branch the action does not own is only fast-forwarded: new commits on it make a non-fast-forward', async () => {
    server.git('branch', 'feature/pr', 'main')
    server.commitOnRemote('feature/pr', { 'pr.txt': 'pr\n' }, 'the PR author')
    const { work, prepared, sha } = await loopBranch({ branch: 'feature/pr', continueExisting: true })
    expect(prepared.continued).toBe(true)
    const ok = await push(work, prepared)
    expect(ok).toMatchObject({ pushed: true, sha, forced: false })
    expect(ok.logs.join('\n')).toMatch(/not a branch the action owns: pushing without force/)

    const next = work.commit('ralph fix: iteration 2', { 'fix2.txt': '2\n' })
    const theirs = server.commitOnRemote('feature/pr', { 'author.txt': 'more\n' }, 'the author again')
    const refused = await push(work, { ...prepared, remoteSha: sha })
    expect(refused.pushed).toBe(false)
    expect(refused.sha).toBe(next)
    expect(refused.error?.kind).toBe(PUSH_FAILURE.nonFastForward)
    expect(refused.error?.message).toMatch(/force-pushes only onto branches it owns/)
    expect(remoteSha('feature/pr')).toBe(theirs)
  })
})

test("a workflow-file change is refused with GitHub's exact words; the patch is there to fall back on", async () => {
  server.rejectPushes({
    reason:
      'refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission',
    onlyIfTouching: '.github/workflows'
  })
  const { work, prepared, sha } = await loopBranch()
  // A change elsewhere goes through the same hook.
  expect(await push(work, prepared)).toMatchObject({ pushed: true, sha })

  work.commit('ralph fix: iteration 2', { '.github/workflows/ci.yml': 'on: push\n' })
  const result = await push(work, { ...prepared, remoteSha: sha })
  expect(result.pushed).toBe(false)
  expect(result.output).toContain(
    '[remote rejected] (refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission)'
  )
  expect(result.error).toMatchObject({
    kind: PUSH_FAILURE.workflowsPermission,
    workflowFile: '.github/workflows/ci.yml'
  })
  expect(result.error?.message).toMatch(/GITHUB_TOKEN can never have it/)
  expect(result.error?.message).toMatch(/Workflows: read and write/)
  expect(remoteSha('ralph/fix')).toBe(sha)
  const patch = await formatPatch(work.dir, prepared.baseSha)
  expect(patch).toContain('diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml')
})

test('a protected branch (GH006) is named as such', async () => {
  server.rejectPushes({
    reason: 'protected branch hook declined',
    remoteLines: [
      'error: GH006: Protected branch update failed for refs/heads/ralph/fix.',
      'error: Changes must be made through a pull request.'
    ]
  })
  const { work, prepared } = await loopBranch()
  const result = await push(work, prepared)
  expect(result.error?.kind).toBe(PUSH_FAILURE.protectedBranch)
  expect(result.error?.detail).toMatch(/remote: error: GH006: Protected branch update failed/)
  expect(result.error?.message).toMatch(/the branch is protected/)
})

test('a token without write access, and an unknown token, fail with what to do', async () => {
  server.tokens.set('ghs_readOnly', 'read')
  const { work, prepared } = await loopBranch()
  const denied = await push(work, prepared, { token: 'ghs_readOnly' })
  expect(denied.output).toContain('remote: Permission to acme/widgets.git denied to github-actions[bot].')
  expect(denied.error?.kind).toBe(PUSH_FAILURE.permissionDenied)
  expect(denied.error?.message).toMatch(/permissions: contents: write/)

  const unknown = await push(work, prepared, { token: 'ghs_revoked' })
  expect(unknown.error?.kind).toBe(PUSH_FAILURE.authFailed)
  expect(unknown.output).not.toContain('ghs_revoked')
  expect(server.git('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
})

describe('a dry run asks the server as the push would, and sends nothing', () => {
  test('a write token: it would go through; no pack is sent, no ref made, the remote-tracking ref untouched', async () => {
    const { work, prepared, sha } = await loopBranch()
    const result = await push(work, prepared, { dryRun: true })
    expect(result).toMatchObject({ pushed: false, sha })
    expect(result.error).toBeUndefined()
    expect(result.logs).toEqual(["'ralph/fix' on acme/widgets can be pushed (a dry run: nothing was sent)."])
    expect(server.git('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
    expect(work.git('for-each-ref', 'refs/remotes/origin/ralph/').trim()).toBe('')
    // Only the ref advertisement, with the token: the pack itself (the POST) never left.
    expect(server.pushAttemptsBy(WRITE_TOKEN).map(r => [r.method, r.status])).toEqual([['GET', 200]])
  })

  test('a token without write access is refused as the push would be; an unknown token too', async () => {
    server.tokens.set('ghs_readOnly', 'read')
    const { work, prepared } = await loopBranch()
    const denied = await push(work, prepared, { token: 'ghs_readOnly', dryRun: true })
    expect(denied.error?.kind).toBe(PUSH_FAILURE.permissionDenied)
    expect(denied.error?.message).toMatch(/permissions: contents: write/)
    const unknown = await push(work, prepared, { token: 'ghs_revoked', dryRun: true })
    expect(unknown.error?.kind).toBe(PUSH_FAILURE.authFailed)
    expect(server.git('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
  })

  test('with the lease: a branch someone else made meanwhile is a stale lease, and stays theirs', async () => {
    const { work, prepared } = await loopBranch()
    const theirs = server.commitOnRemote('ralph/fix', { 'theirs.txt': 'x\n' }, 'someone else')
    const result = await push(work, prepared, { dryRun: true })
    expect(result.error?.kind).toBe(PUSH_FAILURE.staleLease)
    expect(remoteSha('ralph/fix')).toBe(theirs)
  })
})

test("GitHub's other rejection texts are classified", () => {
  const context = { branch: 'ralph/x', repository: 'acme/widgets' }
  const pat = classifyPushFailure(
    ' ! [remote rejected] ralph/x -> ralph/x (refusing to allow a Personal Access Token to create or update workflow `.github/workflows/release.yml` without `workflow` scope)',
    context
  )
  expect(pat).toMatchObject({
    kind: PUSH_FAILURE.workflowsPermission,
    workflowFile: '.github/workflows/release.yml'
  })
  expect(pat.message).toMatch(/`workflow` scope/)
  const oauth = classifyPushFailure(
    '! [remote rejected] x -> x (refusing to allow an OAuth App to create or update workflow `.github/workflows/a.yml` without `workflow` scope)',
    context
  )
  expect(oauth.kind).toBe(PUSH_FAILURE.workflowsPermission)
  expect(
    classifyPushFailure(
      'remote: error: GH013: Repository rule violations found for refs/heads/main.\n ! [remote rejected] main -> main (push declined due to repository rule violations)',
      context
    ).kind
  ).toBe(PUSH_FAILURE.protectedBranch)
  expect(
    classifyPushFailure("fatal: Authentication failed for 'https://github.com/acme/widgets/'", context).kind
  ).toBe(PUSH_FAILURE.authFailed)
  expect(classifyPushFailure('remote: Write access to repository not granted.', context).kind).toBe(
    PUSH_FAILURE.permissionDenied
  )
  expect(classifyPushFailure('fatal: something else entirely', context)).toMatchObject({
    kind: PUSH_FAILURE.unknown,
    message: expect.stringContaining('something else entirely')
  })
})
