// The checkout's persisted token is out of the agent's reach while it runs, and back, byte for byte, after.
// The "agent" here is a shell that looks everywhere an agent would: .git/config, every config git reads
// (includes followed), the whole .git folder and RUNNER_TEMP, and a real fetch from a private repository.
import { execFile } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { hidePersistedCredentials, putBackHeld, withoutPersistedCredentials } from '../../src/git/index.js'
import { checkout, type Checkout } from './checkout.js'
import { basicHeaderOf, startGitServer, WRITE_TOKEN, type GitServer } from '../support/git-server.js'
import { gitArgvLog } from '../support/git-argv.js'
import { fillUp, smallFileSystem, whyNoSmallFileSystem } from '../support/full-disk.js'
import { testTempBase } from '../support/isolation.js'

const run = promisify(execFile)
const BASE64 = Buffer.from(`x-access-token:${WRITE_TOKEN}`).toString('base64')

let server: GitServer
const checkouts: Checkout[] = []

beforeEach(async () => {
  server = await startGitServer({ private: true })
  server.commitOnRemote('main', { 'README.md': 'hello\n' }, 'start')
})
afterEach(async () => {
  for (const c of checkouts.splice(0)) c.cleanup()
  await server.close()
})

async function checkoutOf(version: 'v4' | 'v6'): Promise<Checkout> {
  const c = await checkout(server, { token: WRITE_TOKEN, version })
  checkouts.push(c)
  return c
}

/** What an agent could find: everything it prints is searched for the token. */
async function snoop(work: Checkout): Promise<{ seen: string; fetch: { ok: boolean; stderr: string } }> {
  const script = [
    'cat .git/config',
    'git config --list --show-origin --includes',
    'grep -r -a -h -i -e "$T" -e "$B" -e extraheader .git "$RUNNER_TEMP" || true',
    'env'
  ].join('; ')
  const env = { ...process.env, RUNNER_TEMP: work.runnerTemp, T: WRITE_TOKEN, B: BASE64 }
  const { stdout, stderr } = await run('bash', ['-c', script], { cwd: work.dir, env, encoding: 'utf8' })
  const fetch = await run('git', ['fetch', '--quiet', 'origin'], {
    cwd: work.dir,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    encoding: 'utf8'
  }).then(
    () => ({ ok: true, stderr: '' }),
    (error: { stderr: string }) => ({ ok: false, stderr: error.stderr })
  )
  // The snoop's own env carries the token under T and B on purpose; only what git and the files gave counts.
  const seen = (stdout + stderr).replace(/^(T|B)=.*$/gm, '')
  return { seen, fetch }
}

function expectNoToken(text: string): void {
  expect(text).not.toContain(WRITE_TOKEN)
  expect(text).not.toContain(BASE64)
  expect(text.toLowerCase()).not.toContain('authorization')
}

async function fetchWorks(work: Checkout): Promise<boolean> {
  return work.gitAsync('fetch', '--quiet', 'origin').then(
    () => true,
    () => false
  )
}

describe.each(['v4', 'v6'] as const)('actions/checkout %s', version => {
  test('the agent finds no token in any config, file or fetch while it runs; afterwards all is as it was', async () => {
    const work = await checkoutOf(version)
    const configPath = path.join(work.dir, '.git', 'config')
    const before = readFileSync(configPath)
    const credentialsBefore = work.credentialsFile ? readFileSync(work.credentialsFile) : undefined
    // The persisted credential is live: a private repository fetches.
    expect(await fetchWorks(work)).toBe(true)
    expect(server.requests.at(-1)?.token).toBe(WRITE_TOKEN)
    if (version === 'v4') expect(before.toString()).toContain(BASE64)
    else expect(before.toString()).toContain('[includeIf "gitdir:')

    const logs: string[] = []
    const requestsBefore = server.requests.length
    const snooped = await withoutPersistedCredentials(work.dir, () => snoop(work), { log: l => logs.push(l) })
    expectNoToken(snooped.seen)
    expect(snooped.fetch.ok).toBe(false)
    expect(snooped.fetch.stderr).toMatch(/could not read Username|Authentication failed/)
    // No request the agent made carried a credential.
    expect(server.requests.slice(requestsBefore).every(r => r.authorization === undefined)).toBe(true)
    expect(logs.join('\n')).toMatch(/Removed the persisted credentials for the agent's run/)

    // Restored byte for byte; the credential works again.
    expect(readFileSync(configPath).equals(before)).toBe(true)
    if (work.credentialsFile && credentialsBefore) {
      expect(readFileSync(work.credentialsFile).equals(credentialsBefore)).toBe(true)
      expect(statSync(work.credentialsFile).mode & 0o777).toBe(0o600)
    }
    expect(await fetchWorks(work)).toBe(true)
  })

  test('the credentials come back when the run throws', async () => {
    const work = await checkoutOf(version)
    const before = readFileSync(path.join(work.dir, '.git', 'config'))
    await expect(
      withoutPersistedCredentials(work.dir, async () => {
        expect(readFileSync(path.join(work.dir, '.git', 'config')).equals(before)).toBe(false)
        if (work.credentialsFile) expect(existsSync(work.credentialsFile)).toBe(false)
        throw new Error('the agent crashed')
      })
    ).rejects.toThrow('the agent crashed')
    expect(readFileSync(path.join(work.dir, '.git', 'config')).equals(before)).toBe(true)
    if (work.credentialsFile) expect(existsSync(work.credentialsFile)).toBe(true)
    expect(await fetchWorks(work)).toBe(true)
  })
})

describe('the agent changes .git/config during its run', () => {
  test('by default the file is put back exactly as found: a URL rewrite or hook path the agent planted is gone', async () => {
    const work = await checkoutOf('v6')
    const before = readFileSync(path.join(work.dir, '.git', 'config'))
    const logs: string[] = []
    await withoutPersistedCredentials(
      work.dir,
      async () => {
        await run('git', ['config', 'url.http://127.0.0.1:9/.insteadOf', server.url], { cwd: work.dir })
        await run('git', ['config', 'core.hooksPath', '/tmp/evil-hooks'], { cwd: work.dir })
      },
      { log: l => logs.push(l) }
    )
    expect(readFileSync(path.join(work.dir, '.git', 'config')).equals(before)).toBe(true)
    expect(logs.join('\n')).toMatch(/changed during the run .*put back as it was before the run/)
    expect(await fetchWorks(work)).toBe(true)
  })

  test("with onConfigChange 'keep' the agent's change stays and the credential is added back", async () => {
    for (const version of ['v4', 'v6'] as const) {
      const work = await checkoutOf(version)
      await withoutPersistedCredentials(
        work.dir,
        async () => {
          await run('git', ['config', 'ralph.note', 'kept'], { cwd: work.dir })
        },
        { onConfigChange: 'keep' }
      )
      expect(work.git('config', 'ralph.note').trim()).toBe('kept')
      expect(await fetchWorks(work)).toBe(true)
      const config = readFileSync(path.join(work.dir, '.git', 'config'), 'utf8')
      if (version === 'v4')
        expect(config).toContain(`extraheader = AUTHORIZATION: ${basicHeaderOf(WRITE_TOKEN)}`)
      else expect(config.match(/git-credentials-/g)).toHaveLength(4)
    }
  })
})

test("a submodule's persisted header is hidden and restored too", async () => {
  const work = await checkoutOf('v4')
  const moduleDir = path.join(work.dir, '.git', 'modules', 'lib')
  mkdirSync(moduleDir, { recursive: true })
  const moduleConfig = path.join(moduleDir, 'config')
  const content = `[core]\n\tbare = false\n[http "${server.url}/"]\n\textraheader = AUTHORIZATION: ${basicHeaderOf(WRITE_TOKEN)}\n`
  writeFileSync(moduleConfig, content)
  const hidden = await hidePersistedCredentials(work.dir)
  expect(hidden.removed.some(r => r.includes(moduleConfig))).toBe(true)
  expect(readFileSync(moduleConfig, 'utf8')).not.toContain(BASE64)
  const report = await hidden.restore()
  expect(report).toEqual({ changedConfigFiles: [], problems: [] })
  expect(readFileSync(moduleConfig, 'utf8')).toBe(content)
})

test('a checkout without persisted credentials is left untouched', async () => {
  const c = await checkout(server, { token: WRITE_TOKEN, version: 'v4' })
  checkouts.push(c)
  c.git('config', '--unset-all', `http.${server.url}/.extraheader`)
  c.git('config', 'http.extraheader', 'X-Trace: not-a-credential')
  const before = readFileSync(path.join(c.dir, '.git', 'config'))
  const hidden = await hidePersistedCredentials(c.dir)
  expect(hidden.removed).toEqual([])
  expect(readFileSync(path.join(c.dir, '.git', 'config')).equals(before)).toBe(true)
  await hidden.restore()
  expect(readFileSync(path.join(c.dir, '.git', 'config')).equals(before)).toBe(true)
})

describe('the token never appears in an argv (#25)', () => {
  test.each([
    ['v4', 'discard'],
    ['v6', 'discard'],
    ['v4', 'keep'],
    ['v6', 'keep']
  ] as const)(
    'actions/checkout %s, onConfigChange %s: every git the removal and the restore run is started without it',
    async (version, onConfigChange) => {
      const work = await checkoutOf(version)
      const argv = gitArgvLog()
      const path0 = process.env.PATH
      process.env.PATH = `${argv.bin}:${path0 ?? ''}`
      try {
        await withoutPersistedCredentials(
          work.dir,
          // The agent changes the config, so a 'keep' restore writes the credential back into a changed file.
          () => run('git', ['config', 'ralph.note', 'changed'], { cwd: work.dir, env: { ...process.env } }),
          { onConfigChange }
        )
      } finally {
        process.env.PATH = path0
      }
      const calls = argv.argvs()
      rmSync(argv.bin, { recursive: true, force: true })
      // The wrapper saw the removal (and, keeping the agent's change, the header put back through a placeholder).
      expect(calls.some(a => a.includes('config') && a.includes('--unset-all'))).toBe(true)
      if (onConfigChange === 'keep') expect(calls.some(a => a.includes('--add'))).toBe(true)
      const all = calls.map(a => a.join(' ')).join('\n')
      expect(all).not.toContain(WRITE_TOKEN)
      expect(all).not.toContain(BASE64)
      expect(await fetchWorks(work)).toBe(true)
    }
  )
})

/** Every name in `dirs` that starts as the room kept for a credential does. */
const reserves = (...dirs: string[]): string[] =>
  dirs.flatMap(dir => readdirSync(dir).filter(name => name.startsWith('.ralph-credentials-')))

const onSmallDisk = whyNoSmallFileSystem() ? describe.skip : describe
if (whyNoSmallFileSystem()) process.stderr.write(`SKIPPED the full-disk cases: ${whyNoSmallFileSystem()}\n`)

onSmallDisk('a disk the run fills up (a real tmpfs, written until ENOSPC)', () => {
  const disks: (() => void)[] = []
  afterEach(() => {
    for (const remove of disks.splice(0)) remove()
  })
  async function checkoutOnSmallDisk(version: 'v4' | 'v6'): Promise<{ work: Checkout; disk: string }> {
    const disk = smallFileSystem(testTempBase(), '8m')
    disks.push(disk.remove)
    const work = await checkout(server, { token: WRITE_TOKEN, version, base: disk.dir })
    checkouts.push(work)
    return { work, disk: disk.dir }
  }

  test.each(['v4', 'v6'] as const)(
    'actions/checkout %s: the credential is put back byte for byte though no byte is left; no room kept stays behind',
    async version => {
      const { work, disk } = await checkoutOnSmallDisk(version)
      const configPath = path.join(work.dir, '.git', 'config')
      const before = readFileSync(configPath)
      const credentialsBefore = work.credentialsFile ? readFileSync(work.credentialsFile) : undefined
      let filler = ''
      await withoutPersistedCredentials(work.dir, async () => {
        filler = fillUp(disk)
      })
      expect(readFileSync(configPath).equals(before)).toBe(true)
      if (work.credentialsFile && credentialsBefore) {
        expect(readFileSync(work.credentialsFile).equals(credentialsBefore)).toBe(true)
        expect(statSync(work.credentialsFile).mode & 0o777).toBe(0o600)
      }
      expect(reserves(path.join(work.dir, '.git'), work.runnerTemp)).toEqual([])
      rmSync(filler)
      expect(await fetchWorks(work)).toBe(true)
    }
  )

  test('post puts back what main held when main was killed mid-run, on the full disk; then what main put back is left alone', async () => {
    const { work, disk } = await checkoutOnSmallDisk('v6')
    const configPath = path.join(work.dir, '.git', 'config')
    const before = readFileSync(configPath)
    const credentialsBefore = readFileSync(work.credentialsFile as string)
    const hidden = await hidePersistedCredentials(work.dir)
    // What main keeps for post: the originals, held; while the run runs the room kept holds no token.
    expect(hidden.held.map(h => h.file).sort()).toEqual([configPath, work.credentialsFile].sort())
    expect(reserves(path.join(work.dir, '.git'), work.runnerTemp)).toHaveLength(2)
    expectNoToken(
      reserves(path.join(work.dir, '.git'))
        .map(name => readFileSync(path.join(work.dir, '.git', name), 'latin1'))
        .join('')
    )
    const filler = fillUp(disk)
    // Main is killed here: nothing of it runs again. Post, with what main held:
    expect(await putBackHeld(hidden.held)).toEqual({
      putBack: expect.arrayContaining([configPath, work.credentialsFile]),
      problems: []
    })
    expect(readFileSync(configPath).equals(before)).toBe(true)
    expect(readFileSync(work.credentialsFile as string).equals(credentialsBefore)).toBe(true)
    expect(reserves(path.join(work.dir, '.git'), work.runnerTemp)).toEqual([])
    // Run again (post after a main that did put everything back): nothing to do, nothing changed.
    writeFileSync(configPath, 'changed since\n')
    expect(await putBackHeld(hidden.held)).toEqual({ putBack: [], problems: [] })
    expect(readFileSync(configPath, 'utf8')).toBe('changed since\n')
    rmSync(filler)
  })
})

test('a room kept that was swapped for a link (an agent of the same user) is not written through: the file is written anew', async () => {
  const work = await checkoutOf('v4')
  const configPath = path.join(work.dir, '.git', 'config')
  const before = readFileSync(configPath)
  const hidden = await hidePersistedCredentials(work.dir)
  const [reserve] = reserves(path.join(work.dir, '.git'))
  // The same size as the room it replaces: nothing but the link itself tells them apart.
  const loot = path.join(work.runnerTemp, 'loot')
  writeFileSync(loot, Buffer.alloc(statSync(path.join(work.dir, '.git', reserve)).size))
  rmSync(path.join(work.dir, '.git', reserve))
  symlinkSync(loot, path.join(work.dir, '.git', reserve))
  expect(await hidden.restore()).toEqual({ changedConfigFiles: [], problems: [] })
  expect(readFileSync(configPath).equals(before)).toBe(true)
  expect(lstatSync(configPath).isFile()).toBe(true)
  expectNoToken(readFileSync(loot, 'latin1'))
  expect(reserves(path.join(work.dir, '.git'))).toEqual([])
})
