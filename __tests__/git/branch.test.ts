// The loop's branch, made in work trees as actions/checkout leaves them (shallow, detached, behind a base that
// moved on), against a real git server over HTTP.
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import {
  changedWorkflowFiles,
  commitsSince,
  configureIdentity,
  formatPatch,
  GITHUB_ACTIONS_IDENTITY,
  hasDiff,
  prepareBranch
} from '../../src/git/index.js'
import { tempDir } from '../git/temp-repo.js'
import { checkout, type Checkout } from './checkout.js'
import { startGitServer, WRITE_TOKEN, type GitServer } from '../support/git-server.js'

let server: GitServer
const checkouts: Checkout[] = []
const scratchDirs: string[] = []
let seeded: string

beforeEach(async () => {
  server = await startGitServer()
  seeded = server.commitOnRemote(
    'main',
    { 'README.md': 'hello\n', 'src/app.ts': 'export const x = 1\n' },
    'start'
  )
})
afterEach(async () => {
  for (const c of checkouts.splice(0)) c.cleanup()
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  await server.close()
})

async function checkoutOf(options: Parameters<typeof checkout>[1] = {}): Promise<Checkout> {
  const c = await checkout(server, { token: WRITE_TOKEN, ...options })
  checkouts.push(c)
  return c
}

const noEnv = {} as NodeJS.ProcessEnv

test('a fresh branch starts from the latest base, even when the base moved on after the checkout', async () => {
  const work = await checkoutOf({ depth: 0 })
  const moved = server.commitOnRemote('main', { 'CHANGELOG.md': 'new\n' }, 'moved on')
  const lines: string[] = []
  const prepared = await prepareBranch(work.dir, { branch: 'ralph/fix', env: noEnv, log: l => lines.push(l) })
  expect(prepared).toEqual({
    branch: 'ralph/fix',
    base: 'main',
    baseSource: 'checkout',
    baseSha: moved,
    startSha: moved,
    continued: false,
    remoteSha: null,
    shallow: false,
    previous: { branch: 'main', sha: seeded }
  })
  expect(work.git('symbolic-ref', '--short', 'HEAD').trim()).toBe('ralph/fix')
  expect(work.git('rev-parse', 'HEAD').trim()).toBe(moved)
  expect(readFileSync(path.join(work.dir, 'CHANGELOG.md'), 'utf8')).toBe('new\n')
  // No upstream is configured: the branch is the action's, pushed by URL.
  expect(() => work.git('config', 'branch.ralph/fix.remote')).toThrow()
  expect(lines.join('\n')).toMatch(/'main' moved on since the checkout/)
})

test('a shallow clone (fetch-depth 1) starts from the moved-on base and stays shallow', async () => {
  for (let i = 0; i < 3; i++) server.commitOnRemote('main', { [`f${i}.txt`]: `${i}\n` }, `c${i}`)
  const work = await checkoutOf({ depth: 1 })
  const tip = server.commitOnRemote('main', { 'late.txt': 'late\n' }, 'late')
  const prepared = await prepareBranch(work.dir, { branch: 'ralph/fix', env: noEnv })
  expect(prepared.startSha).toBe(tip)
  expect(prepared.shallow).toBe(true)
  expect(work.git('rev-parse', '--is-shallow-repository').trim()).toBe('true')
  // Only the tips came over, not the history.
  expect(Number(work.git('rev-list', '--count', '--all').trim())).toBeLessThanOrEqual(2)
})

describe('a detached HEAD (a SHA checked out)', () => {
  test('takes the base from GITHUB_REF when it names a branch', async () => {
    server.commitOnRemote('release', { 'r.txt': 'r\n' }, 'release')
    const work = await checkoutOf({ sha: seeded })
    const prepared = await prepareBranch(work.dir, {
      branch: 'ralph/fix',
      env: { GITHUB_REF: 'refs/heads/release' }
    })
    expect(prepared).toMatchObject({
      base: 'release',
      baseSource: 'github-ref',
      previous: { branch: undefined }
    })
    expect(prepared.startSha).toBe(server.git('rev-parse', 'refs/heads/release').trim())
  })

  test("takes a pull request's base from GITHUB_BASE_REF (GITHUB_REF is refs/pull/N/merge)", async () => {
    const work = await checkoutOf({ sha: seeded })
    const prepared = await prepareBranch(work.dir, {
      branch: 'ralph/fix',
      env: { GITHUB_REF: 'refs/pull/7/merge', GITHUB_BASE_REF: 'main' }
    })
    expect(prepared).toMatchObject({ base: 'main', baseSource: 'pull-request', startSha: seeded })
  })

  test("falls back to the remote's default branch", async () => {
    server.git('symbolic-ref', 'HEAD', 'refs/heads/trunk')
    const trunk = server.commitOnRemote('trunk', { 't.txt': 't\n' }, 'trunk')
    const work = await checkoutOf({ sha: seeded })
    const prepared = await prepareBranch(work.dir, {
      branch: 'ralph/fix',
      env: { GITHUB_REF: 'refs/tags/v1' }
    })
    expect(prepared).toMatchObject({ base: 'trunk', baseSource: 'remote-default', startSha: trunk })
  })
})

test('a base given explicitly wins over the branch checked out', async () => {
  const develop = server.commitOnRemote('develop', { 'dev.txt': 'dev\n' }, 'develop work')
  const work = await checkoutOf()
  const prepared = await prepareBranch(work.dir, {
    branch: 'ralph/fix',
    base: 'refs/heads/develop',
    env: noEnv
  })
  expect(prepared).toMatchObject({
    base: 'develop',
    baseSource: 'input',
    startSha: develop,
    baseSha: develop
  })
  expect(readFileSync(path.join(work.dir, 'dev.txt'), 'utf8')).toBe('dev\n')
})

test('a base missing on the remote, a bad branch name and a branch equal to its base are refused with the reason', async () => {
  const work = await checkoutOf()
  await expect(prepareBranch(work.dir, { branch: 'ralph/fix', base: 'nope', env: noEnv })).rejects.toThrow(
    "The base branch 'nope' does not exist on the remote 'origin'."
  )
  await expect(prepareBranch(work.dir, { branch: '--upload-pack=evil', env: noEnv })).rejects.toThrow(
    "'--upload-pack=evil' is not a valid branch name."
  )
  await expect(prepareBranch(work.dir, { branch: 'ralph/a b', env: noEnv })).rejects.toThrow(
    /not a valid branch name/
  )
  await expect(prepareBranch(work.dir, { branch: 'main', env: noEnv })).rejects.toThrow(
    /branch and the base are both 'main'/
  )
  // Nothing moved.
  expect(work.git('symbolic-ref', '--short', 'HEAD').trim()).toBe('main')
})

describe('continuing a branch (a second /ralph on an issue, a nightly hunt with an open PR)', () => {
  test('an existing branch is checked out at its tip; its fork point is the base sha, even in a shallow clone after the base moved on', async () => {
    server.git('branch', 'ralph/issue-5', 'main')
    server.commitOnRemote('ralph/issue-5', { 'fix-1.txt': '1\n' }, 'iteration 1')
    const tip = server.commitOnRemote('ralph/issue-5', { 'fix-2.txt': '2\n' }, 'iteration 2')
    for (let i = 0; i < 3; i++) server.commitOnRemote('main', { [`m${i}.txt`]: `${i}\n` }, `main ${i}`)
    const work = await checkoutOf({ depth: 1 })
    const lines: string[] = []
    const prepared = await prepareBranch(work.dir, {
      branch: 'ralph/issue-5',
      continueExisting: true,
      env: noEnv,
      log: l => lines.push(l)
    })
    expect(prepared).toMatchObject({
      branch: 'ralph/issue-5',
      base: 'main',
      continued: true,
      startSha: tip,
      remoteSha: tip,
      baseSha: seeded
    })
    // Deepened enough to find the fork point (here that is the whole short history), never unshallowed.
    expect(lines.join('\n')).toMatch(/to depth 50/)
    expect(lines.join('\n')).not.toMatch(/whole history/)
    expect(work.git('symbolic-ref', '--short', 'HEAD').trim()).toBe('ralph/issue-5')
    expect(await hasDiff(work.dir, prepared.baseSha)).toBe(true)
    expect(await commitsSince(work.dir, prepared.baseSha)).toBe(2)
  })

  test('a fork point beyond the deepening steps is found by unshallowing', async () => {
    server.git('branch', 'ralph/issue-9', 'main')
    const tip = server.commitOnRemote('ralph/issue-9', { 'fix.txt': 'x\n' }, 'fix')
    // More commits on the base than the deepest step fetches, in one fast-import.
    let stream = ''
    for (let i = 0; i < 520; i++) {
      stream += `commit refs/heads/main\ncommitter A <a@example.com> ${1700000000 + i} +0000\ndata ${`m${i}`.length}\nm${i}\n`
      stream += i === 0 ? `from ${seeded}\n\n` : '\n'
    }
    execFileSync('git', ['fast-import', '--quiet'], { cwd: server.bareDir, input: stream })
    const work = await checkoutOf({ depth: 1 })
    const lines: string[] = []
    const prepared = await prepareBranch(work.dir, {
      branch: 'ralph/issue-9',
      continueExisting: true,
      env: noEnv,
      log: l => lines.push(l)
    })
    expect(prepared).toMatchObject({ continued: true, startSha: tip, baseSha: seeded, shallow: false })
    expect(lines.join('\n')).toMatch(/fetching their whole history/)
  })

  test('continuing a branch that does not exist yet starts it from the base', async () => {
    const work = await checkoutOf()
    const prepared = await prepareBranch(work.dir, {
      branch: 'ralph/issue-6',
      continueExisting: true,
      env: noEnv
    })
    expect(prepared).toMatchObject({ continued: false, remoteSha: null, startSha: seeded, baseSha: seeded })
  })

  test('without continueExisting an existing branch is started afresh, its remote sha kept as the lease', async () => {
    const old = server.commitOnRemote('ralph/issue-5', { 'old.txt': 'old\n' }, 'old attempt')
    const work = await checkoutOf()
    const prepared = await prepareBranch(work.dir, { branch: 'ralph/issue-5', env: noEnv })
    expect(prepared).toMatchObject({ continued: false, remoteSha: old, startSha: seeded })
  })
})

test('a private repository is fetched with the token given, for that command only', async () => {
  await server.close()
  server = await startGitServer({ private: true })
  seeded = server.commitOnRemote('main', { 'README.md': 'hello\n' }, 'start')
  const work = await checkoutOf({ token: WRITE_TOKEN })
  // persist-credentials: false: take the persisted header away after the checkout.
  work.git('config', '--unset-all', `http.${server.url}/.extraheader`)
  const moved = server.commitOnRemote('main', { 'b.txt': 'b\n' }, 'moved')
  await expect(prepareBranch(work.dir, { branch: 'ralph/fix', env: noEnv })).rejects.toThrow(
    /Could not fetch/
  )
  const prepared = await prepareBranch(work.dir, {
    branch: 'ralph/fix',
    env: noEnv,
    auth: { token: WRITE_TOKEN, serverUrl: server.url }
  })
  expect(prepared.startSha).toBe(moved)
  expect(readFileSync(path.join(work.dir, '.git', 'config'), 'utf8')).not.toContain('extraheader')
})

test('a token given replaces a stale persisted one instead of being sent beside it', async () => {
  await server.close()
  server = await startGitServer({ private: true })
  seeded = server.commitOnRemote('main', { 'README.md': 'hello\n' }, 'start')
  server.tokens.set('ghs_expired', 'write')
  const work = await checkoutOf({ token: 'ghs_expired', version: 'v6' })
  // The job's token expired after the checkout persisted it.
  server.tokens.delete('ghs_expired')
  const moved = server.commitOnRemote('main', { 'b.txt': 'b\n' }, 'moved')
  const before = server.requests.length
  const prepared = await prepareBranch(work.dir, {
    branch: 'ralph/fix',
    env: noEnv,
    auth: { token: WRITE_TOKEN, serverUrl: server.url }
  })
  expect(prepared.startSha).toBe(moved)
  expect(server.requests.slice(before).every(r => r.token === WRITE_TOKEN)).toBe(true)
})

test('the commit identity defaults to github-actions[bot], is set locally and restored', async () => {
  const work = await checkoutOf()
  work.git('config', 'user.name', 'Someone Before')
  const identity = await configureIdentity(work.dir)
  expect(identity).toMatchObject(GITHUB_ACTIONS_IDENTITY)
  expect(work.git('config', '--local', 'user.name').trim()).toBe('github-actions[bot]')
  expect(work.git('config', '--local', 'user.email').trim()).toBe(
    '41898282+github-actions[bot]@users.noreply.github.com'
  )
  await identity.restore()
  expect(work.git('config', '--local', 'user.name').trim()).toBe('Someone Before')
  expect(() => work.git('config', '--local', 'user.email')).toThrow()

  const custom = await configureIdentity(work.dir, { name: 'Ralph', email: 'ralph@example.com' })
  expect(custom).toMatchObject({ name: 'Ralph', email: 'ralph@example.com' })
  await custom.restore()
})

test('no diff means no pull request; a change is seen, workflow files are named, and the patch re-creates the commits', async () => {
  const work = await checkoutOf()
  const prepared = await prepareBranch(work.dir, { branch: 'ralph/fix', env: noEnv })
  expect(await hasDiff(work.dir, prepared.baseSha)).toBe(false)
  expect(await commitsSince(work.dir, prepared.startSha)).toBe(0)

  work.commit('iteration 1', { 'src/app.ts': 'export const x = 2\n', 'bin.dat': '\u0000\u0001binary' })
  work.commit('iteration 2', { '.github/workflows/ci.yml': 'on: push\n' })
  expect(await hasDiff(work.dir, prepared.baseSha)).toBe(true)
  expect(await commitsSince(work.dir, prepared.startSha)).toBe(2)
  expect(await changedWorkflowFiles(work.dir, prepared.baseSha)).toEqual(['.github/workflows/ci.yml'])

  const patch = await formatPatch(work.dir, prepared.baseSha)
  expect(patch).toMatch(/^From [0-9a-f]{40} /)
  expect(patch).toContain('Subject: [PATCH 1/2] iteration 1')
  // Applied to the base elsewhere, the patch gives the same tree.
  const other = tempDir('ralph-apply-')
  scratchDirs.push(other)
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: other,
      encoding: 'utf8',
      input: args.includes('am') ? patch : undefined
    })
  git('clone', '--quiet', server.bareDir, '.')
  git('-c', 'user.name=a', '-c', 'user.email=a@b', 'am', '--quiet')
  expect(git('rev-parse', 'HEAD^{tree}').trim()).toBe(work.git('rev-parse', 'HEAD^{tree}').trim())
})
