// For tests of the agent's own user: whether this machine can run them (root, or passwordless sudo), a user
// name per jest worker (a whole-uid kill in one file must not hit another file's agent), a job user with
// passwordless sudo like GitHub's `runner`, and folders an agent of another uid may write.
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe } from '@jest/globals'
import { isolationPrivilege, type Privilege } from '../../src/security/index.js'
import { SUDO_RUNNER_USER } from './agent-user.js'

export { TEST_AGENT_USER, SUDO_RUNNER_USER } from './agent-user.js'
export { cliForAnyUser, copyForAnyUser } from './any-user.js'

/** Why the agent cannot get a user of its own here, or undefined when it can. */
export function whyNoIsolation(): string | undefined {
  const privilege = isolationPrivilege()
  return 'why' in privilege ? privilege.why : undefined
}

/**
 * `describe`, or `describe.skip` saying why on stderr (jest hides the output of an all-skipped suite). CI runs
 * as root, so there these tests run; REQUIRE_ISOLATION=1 turns a skip into a failure.
 */
export function describeIsolated(
  what: string,
  why = whyNoIsolation()
): typeof describe | typeof describe.skip {
  if (!why) return describe
  if (process.env.REQUIRE_ISOLATION === '1')
    throw new Error(`REQUIRE_ISOLATION=1 but ${what} cannot run: ${why}`)
  process.stderr.write(`SKIPPED ${what}: ${why}\n`)
  return describe.skip
}

/** Why no job user with passwordless sudo can be made here (needs root and sudo), or undefined. */
export function whyNoSudoRunner(): string | undefined {
  if (process.getuid?.() !== 0) return 'making a job user with passwordless sudo needs root'
  if (spawnSync('sh', ['-c', 'command -v sudo'], { stdio: 'ignore' }).status !== 0)
    return 'sudo is not installed (apt-get install sudo)'
  return undefined
}

/** The ways this machine can start the agent's user: its own privilege, and sudo too when it is root with sudo. */
export function isolationStartPaths(): Privilege[] {
  const own = isolationPrivilege()
  if (!('privilege' in own)) return ['root']
  return own.privilege === 'root' && !whyNoSudoRunner() ? ['root', 'sudo'] : [own.privilege]
}

/** Creates (once) a user with passwordless sudo, like GitHub's `runner`; answers its uid and gid. */
export function sudoRunner(): { name: string; uid: number; gid: number } {
  const name = SUDO_RUNNER_USER
  if (spawnSync('id', ['-u', name], { stdio: 'ignore' }).status !== 0)
    execFileSync('useradd', ['--create-home', '--shell', '/bin/bash', name], { stdio: 'ignore' })
  const sudoers = `/etc/sudoers.d/${name}`
  if (!existsSync(sudoers)) {
    writeFileSync(sudoers, `${name} ALL=(ALL) NOPASSWD:ALL\n`)
    chmodSync(sudoers, 0o440)
  }
  const id = (flag: string): number => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim())
  return { name, uid: id('-u'), gid: id('-g') }
}

/**
 * Where shared folders are made: outside the temp folders the release sweeps (what the agent's uid leaves in
 * /tmp is removed when its loop ends, and so would its markers be), as root; elsewhere (no isolation) tmpdir.
 */
const SHARED_BASE = '/var/lib/ralph-action-tests'

/**
 * Where tests as root make what an agent's user will own: not /tmp, whose files of that uid the release
 * sweeps (the test's own folders would go with them). Elsewhere the system's temp folder.
 */
export function testTempBase(): string {
  if (process.getuid?.() !== 0) return tmpdir()
  mkdirSync(SHARED_BASE, { recursive: true, mode: 0o755 })
  return SHARED_BASE
}

/** A folder every user may write (sticky, like /tmp): where a test's agent of another uid leaves markers. */
export function sharedDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(testTempBase(), prefix)))
  chmodSync(dir, 0o1777)
  return dir
}

/**
 * A perl program that makes 2,500 folders, each inside the last, with a file in each: by folder-relative steps,
 * as an agent would (no path this long can be named whole). Perl, as bash's cd takes minutes that deep.
 */
export const DEEP_TREE = 'for (1..2500) { mkdir "d" or die; chdir "d" or die; open(F, ">f") or die; close F }'
