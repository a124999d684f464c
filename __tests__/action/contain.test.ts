// Post's share of the containment (contain.ts), decided in-process on real files: what main saved that cannot be
// read is said, one line each, never passed over in silence (issue #36); the checkout's credential main kept for
// post is put back from it and the file holding it removed; no file kept is main having put it back itself.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, expect, test } from '@jest/globals'
import { credentialsAfterMain, endAfterKilledMain } from '../../src/action/contain.js'
import type { SavedState } from '../../src/action/state.js'
import { hidePersistedCredentials } from '../../src/git/index.js'
import { checkout, type Checkout } from '../git/checkout.js'
import { startGitServer, WRITE_TOKEN, type GitServer } from '../support/git-server.js'

const state = (saved: Partial<SavedState>): SavedState => ({
  isPost: true,
  uploaded: false,
  summaryWritten: false,
  finished: false,
  ...saved
})

let server: GitServer
const cleanups: (() => void)[] = []
beforeAll(async () => {
  server = await startGitServer({ private: true })
  server.commitOnRemote('main', { 'README.md': 'hello\n' }, 'start')
})
afterAll(async () => server.close())
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

function scratch(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-contain-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function checkedOut(): Promise<Checkout> {
  const work = await checkout(server, { token: WRITE_TOKEN, version: 'v6' })
  cleanups.push(() => work.cleanup())
  return work
}

test('what main saved about the agent’s user, or .git’s snapshot, that cannot be read is said in one line each', async () => {
  const dir = scratch()
  const warnings = await endAfterKilledMain(
    state({ isolation: '{ not json', gitSnapshot: path.join(dir, 'no-such-snapshot.json') })
  )
  expect(warnings).toHaveLength(2)
  expect(warnings[0]).toMatch(
    /^What main saved about the agent's user cannot be read \(.+\): its processes are not killed, the work tree is not given back and the user is not released\. /
  )
  expect(warnings[1]).toMatch(
    /^\.git's snapshot from before the loop cannot be read \(ENOENT: .+\): \.git\/config, \.git\/info and \.git\/hooks are left as the loop left them\.$/
  )
  for (const line of warnings) expect(line).not.toContain('\n')
})

test('post puts back the credential main kept for it, and removes the file holding it', async () => {
  const work = await checkedOut()
  const config = path.join(work.dir, '.git', 'config')
  const before = readFileSync(config)
  const hidden = await hidePersistedCredentials(work.dir)
  // As main keeps it: a file of its own in a folder of its own.
  const kept = path.join(scratch(), 'kept')
  mkdirSync(kept, { mode: 0o700 })
  writeFileSync(path.join(kept, 'credentials.json'), JSON.stringify(hidden.held), { mode: 0o600 })
  expect(readFileSync(config).equals(before)).toBe(false)

  expect(await credentialsAfterMain(state({ credentials: path.join(kept, 'credentials.json') }))).toEqual([])
  expect(readFileSync(config).equals(before)).toBe(true)
  expect(existsSync(work.credentialsFile as string)).toBe(true)
  expect(existsSync(kept)).toBe(false)
})

test('no file kept (main put the credential back, then removed it) is nothing to do; an unreadable one is said', async () => {
  const dir = scratch()
  expect(
    await credentialsAfterMain(state({ credentials: path.join(dir, 'gone', 'credentials.json') }))
  ).toEqual([])
  expect(await credentialsAfterMain(state({}))).toEqual([])
  writeFileSync(path.join(dir, 'credentials.json'), '{ cut short')
  const [warning, ...rest] = await credentialsAfterMain(
    state({ credentials: path.join(dir, 'credentials.json') })
  )
  expect(rest).toEqual([])
  expect(warning).toMatch(
    /^The checkout's credential main kept cannot be read \(.+\): later steps of this job have no git credential from actions\/checkout\.$/
  )
})
