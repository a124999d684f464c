// The agent's own user, for real: a uid of its own with no groups and no way to gain privileges, a fresh HOME,
// the work tree writable and .git readable only, nothing of the action's reachable (its /proc, its files), the
// environment passed on stdin (never in argv), every process of the uid dead when its programs end, and the
// work tree given back afterwards with nothing setuid left behind; its processes capped (RLIMIT_NPROC), and
// what it left in the shared temp folders removed by the release.
import { execFileSync, spawn } from 'node:child_process'
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from '@jest/globals'
import type { RunOptions } from '../../src/proc/index.js'
import {
  isolateAgent,
  isolationPrivilege,
  processesOf,
  zombiesOf,
  type AgentIsolation,
  type Privilege
} from '../../src/security/index.js'
import { tempRepo, type TempRepo } from '../git/temp-repo.js'
import {
  DEEP_TREE,
  TEST_AGENT_USER,
  describeIsolated,
  isolationStartPaths,
  sharedDir
} from '../support/isolation.js'

const text = (c: { head: Buffer; tail: Buffer }): string => Buffer.concat([c.head, c.tail]).toString('utf8')
const readable = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}
const linkExists = (file: string): boolean => {
  try {
    lstatSync(file)
    return true
  } catch {
    return false
  }
}
/** The agent's process cap in these tests: far below the default, far above what a test needs. */
const CAP = 128

describeIsolated('the agent-user isolation tests').each(isolationStartPaths())(
  'the agent as its own user, started with %s',
  start => {
    let repo: TempRepo
    let shared: string
    let iso: AgentIsolation
    const secret = 'owner-only-secret-4711'
    let secretFile: string
    let store: string
    const logged: string[] = []

    beforeAll(async () => {
      repo = tempRepo()
      repo.write('src/app.js', 'export const x = 1\n')
      repo.git('add', '-A')
      repo.git('commit', '--quiet', '-m', 'app')
      shared = sharedDir('ralph-iso-shared-')
      secretFile = path.join(path.dirname(repo.dir), `owner-secret-${process.pid}`)
      writeFileSync(secretFile, secret, { mode: 0o600 })
      // A package store of the owner's outside the work tree, hard-linked into it (as pnpm installs).
      store = mkdtempSync(path.join(path.dirname(repo.dir), 'ralph-store-'))
      writeFileSync(path.join(store, 'index.js'), 'export const pkg = 1\n')
      mkdirSync(path.join(repo.dir, 'node_modules', 'pkg'), { recursive: true })
      linkSync(path.join(store, 'index.js'), path.join(repo.dir, 'node_modules', 'pkg', 'index.js'))
      // Root may go through sudo as well: the launcher's path, the one GitHub-hosted runners take.
      iso = await isolateAgent({
        user: TEST_AGENT_USER,
        privilege: start,
        workTree: repo.dir,
        maxProcesses: CAP,
        log: message => logged.push(message)
      })
    }, 60_000)

    afterAll(async () => {
      await iso?.release()
      repo?.cleanup()
      rmSync(shared, { recursive: true, force: true })
      rmSync(secretFile, { force: true })
      rmSync(store, { recursive: true, force: true })
    })

    const sh = (script: string, options: Partial<RunOptions> = {}) =>
      iso.runProcess({
        argv: ['bash', '-c', script],
        cwd: repo.dir,
        env: { PATH: process.env.PATH, LANG: 'C.UTF-8', GIVEN: 'yes', ...options.env },
        ...options
      })

    test('it is another uid, in no group but its own, with a fresh HOME that trusts the work tree', async () => {
      const result = await sh('id -u; id -G; echo "$HOME"; cat "$HOME/.gitconfig"; ls -A "$HOME"')
      const [uid, groups, home, ...rest] = text(result.stdout).trim().split('\n')
      expect(Number(uid)).toBe(iso.user.uid)
      expect(Number(uid)).not.toBe(process.getuid?.())
      expect(groups).toBe(String(iso.user.gid))
      expect(home).toBe(iso.user.home)
      expect(rest.join('\n')).toContain(`directory = ${repo.dir}`)
      expect(rest.at(-1)).toBe('.gitconfig')
    })

    test('it writes the work tree, reads .git, runs git status and diff, and cannot write, rename or replace .git', async () => {
      const result = await sh(
        [
          'echo changed > README.md && echo new > new.txt && mkdir -p lib && echo y > lib/y.js && rm src/app.js && echo wrote',
          'git status --porcelain | sort | tr "\\n" " "; echo',
          'git diff --stat | tail -1',
          'touch .git/planted 2>/dev/null && echo WROTE-GIT',
          'echo "[core] fsmonitor = evil" >> .git/config 2>/dev/null && echo WROTE-CONFIG',
          'mv .git .git-moved 2>/dev/null && echo MOVED-GIT',
          'rm -rf .git 2>/dev/null; test -d .git/objects && echo GIT-STILL-THERE'
        ].join('\n')
      )
      const out = text(result.stdout)
      expect(out).toContain('wrote')
      expect(out).toContain('M README.md')
      expect(out).toContain('?? new.txt')
      expect(out).toContain(' D src/app.js')
      expect(out).toMatch(/2 files changed/)
      expect(out).not.toMatch(/WROTE-GIT|WROTE-CONFIG|MOVED-GIT/)
      expect(out).toContain('GIT-STILL-THERE')
      expect(readFileSync(path.join(repo.dir, 'README.md'), 'utf8')).toBe('changed\n')
      expect(readFileSync(path.join(repo.dir, '.git', 'config'), 'utf8')).not.toContain('evil')
    })

    test('a file of the checkout with other names outside (a package store’s hard link) is not given: the agent cannot write it', async () => {
      const linked = path.join(repo.dir, 'node_modules', 'pkg', 'index.js')
      const result = await sh(
        'echo poisoned >> node_modules/pkg/index.js 2>/dev/null && echo WROTE; ls -ld node_modules/pkg | cut -c1-10'
      )
      expect(text(result.stdout)).not.toContain('WROTE')
      expect(statSync(linked).uid).toBe(process.getuid?.())
      expect(statSync(path.join(store, 'index.js')).uid).toBe(process.getuid?.())
      expect(readFileSync(path.join(store, 'index.js'), 'utf8')).toBe('export const pkg = 1\n')
      // Its folder is the agent's as the rest of the tree is.
      expect(statSync(path.dirname(linked)).uid).toBe(iso.user.uid)
    })

    test("nothing of the action's is in reach: its /proc environ, mem and fds, its files, sudo", async () => {
      const me = process.pid
      const result = await sh(
        [
          `cat /proc/${me}/environ >/dev/null 2>&1 && echo READ-ENVIRON`,
          `head -c 16 /proc/${me}/mem >/dev/null 2>&1 && echo READ-MEM`,
          `ls /proc/${me}/fd >/dev/null 2>&1 && echo LISTED-FDS`,
          `cat ${secretFile} 2>/dev/null && echo READ-SECRET`,
          'sudo -n true 2>/dev/null && echo SUDO',
          'grep NoNewPrivs /proc/self/status'
        ].join('\n')
      )
      const out = text(result.stdout)
      expect(out).not.toMatch(/READ-ENVIRON|READ-MEM|LISTED-FDS|READ-SECRET|SUDO|owner-only/)
      expect(out).toMatch(/NoNewPrivs:\s+1/)
    })

    test('its environment is exactly what it is given (plus its own HOME and name), and never in an argv', async () => {
      const value = 'a value with spaces, "quotes", $dollars and\nnewlines'
      const given = {
        PATH: process.env.PATH,
        SPECIAL: value,
        'BAD-NAME': 'x',
        GITHUB_ENV: '/tmp/x',
        // As the loop sets it for the agent: the work tree (opencode works where PWD says).
        PWD: repo.dir,
        OLDPWD: '/home/runner'
      }
      const result = await iso.runProcess({ argv: ['env', '-0'], cwd: repo.dir, env: given })
      const env = Object.fromEntries(
        text(result.stdout)
          .split('\0')
          .filter(Boolean)
          .map(e => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])
      )
      expect(env.SPECIAL).toBe(value)
      expect(env.HOME).toBe(iso.user.home)
      expect(env.USER).toBe(iso.user.name)
      expect(env.PWD).toBe(repo.dir)
      // GITHUB_ENV never passes. Through sudo the launcher (bash) carries it: it sets SHLVL and cannot carry
      // BAD-NAME, which is not a shell name; as root setpriv hands the environment on as it is.
      const extra = iso.state.privilege === 'root' ? ['BAD-NAME'] : ['SHLVL']
      expect(Object.keys(env).sort()).toEqual(
        ['HOME', 'LOGNAME', 'PATH', 'PWD', 'SPECIAL', 'USER', ...extra].sort()
      )
      const argvs = await sh(`for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done`, {
        env: given
      })
      expect(text(argvs.stdout)).toContain('/proc/[0-9]*')
      expect(text(argvs.stdout)).not.toContain('a value with spaces')
    })

    test('what it leaves running (setsid, a double fork, env -i) is dead when its program ends', async () => {
      const script = [
        `setsid -f sleep 300`,
        `( ( exec -a double-fork sleep 301 & ) & )`,
        `env -i setsid -f sleep 302`,
        `nohup sleep 303 >/dev/null 2>&1 &`,
        'sleep 0.2; echo started'
      ].join('\n')
      const result = await sh(script)
      expect(text(result.stdout)).toContain('started')
      expect(processesOf(iso.user.uid)).toEqual([])
    })

    test('a fork loop stops at its cap (RLIMIT_NPROC), which it cannot raise; the next program has the whole cap again', async () => {
      // dash fails a fork at once (bash retries for 15 s); each sleep outlives the subshell that forked it.
      const forks = (n: number): string =>
        `sh -c 'i=0; while [ $i -lt ${n} ]; do (sleep 300 &) 2>/dev/null || break; i=$((i+1)); done; echo $i'`
      const result = await sh(
        ['ulimit -Su; ulimit -Hu', `(ulimit -Su ${CAP * 2}) 2>/dev/null && echo raised`, forks(CAP * 4)].join(
          '\n'
        )
      )
      const [soft, hard, ...rest] = text(result.stdout).trim().split('\n')
      expect([soft, hard]).toEqual([String(CAP), String(CAP)])
      expect(rest).toHaveLength(1)
      expect(Number(rest[0])).toBeLessThan(CAP)
      expect(processesOf(iso.user.uid)).toEqual([])
      // Killed and reaped: the dead no longer count against the cap when the next program starts.
      expect(zombiesOf(iso.user.uid)).toEqual([])
      const next = await sh(forks(CAP / 2))
      expect(text(next.stdout).trim()).toBe(String(CAP / 2))
    })

    test('a timeout kills its tree; a program that is not installed does not start (ENOENT)', async () => {
      const result = await sh('sleep 30 & sleep 30', { timeoutMs: 500, killGraceMs: 500 })
      expect(result.timedOut).toBe(true)
      expect(processesOf(iso.user.uid)).toEqual([])
      const missing = await iso.runProcess({
        argv: ['no-such-program-ralph'],
        cwd: repo.dir,
        env: process.env
      })
      expect(missing.spawnError?.code).toBe('ENOENT')
    })

    test('the release gives the work tree back (nothing setuid), restores the modes and removes the HOME', async () => {
      const topBefore = statSync(repo.dir)
      await sh(
        'cp /bin/true planted-suid && chmod 4755 planted-suid && ls -l planted-suid && setsid -f sleep 400'
      )
      expect(statSync(path.join(repo.dir, 'planted-suid')).mode & 0o4000).toBe(0o4000)
      // Left outside the work tree: files, a folder, a setuid shell, a link to a file of root's, and a
      // folder every user may write, where root then puts a file.
      const left = `ralph-left-${process.pid}`
      const rootFile = `/tmp/${left}-root`
      writeFileSync(rootFile, 'root')
      const planted = [
        `/tmp/${left}-file`,
        `/tmp/${left}-dir/nested/deep`,
        `/tmp/${left}-dir/nested`,
        `/tmp/${left}-dir`,
        `/tmp/${left}-suid-sh`,
        `/var/tmp/${left}-file`,
        `/var/tmp/${left}-link`,
        `/dev/shm/${left}-file`,
        // A file of the work tree with a second name in a folder of the agent's: giving the tree back must not
        // make that name root's (the sweep would leave it, and its folder, for a later job to trust).
        `/tmp/${left}-squat/payload`,
        `/tmp/${left}-squat`
      ]
      await sh(
        [
          `touch /tmp/${left}-file /var/tmp/${left}-file /dev/shm/${left}-file`,
          `mkdir -p /tmp/${left}-dir/nested && touch /tmp/${left}-dir/nested/deep`,
          `cp /bin/bash /tmp/${left}-suid-sh && chmod 4755 /tmp/${left}-suid-sh`,
          `ln -s ${rootFile} /var/tmp/${left}-link`,
          `mkdir -m 1777 /tmp/${left}-open`,
          `echo kept > linked-file && mkdir /tmp/${left}-squat && ln linked-file /tmp/${left}-squat/payload`
        ].join('\n')
      )
      for (const file of planted) expect(lstatSync(file).uid).toBe(iso.user.uid)
      expect(statSync(`/tmp/${left}-suid-sh`).mode & 0o4000).toBe(0o4000)
      writeFileSync(`/tmp/${left}-open/roots`, 'root')
      const problems = await iso.release()
      const others = [rootFile, `/tmp/${left}-open/roots`].map(file => readable(file))
      rmSync(rootFile, { force: true })
      rmSync(`/tmp/${left}-open`, { recursive: true, force: true })
      expect(problems).toEqual([])
      // Every one of them gone, the link itself (not what it names); root's files where they were.
      expect(planted.filter(linkExists)).toEqual([])
      expect(others).toEqual(['root', 'root'])
      const removed = logged.map(line => /^Removed (\d+) files? the agent's user /.exec(line)).find(Boolean)
      expect(Number(removed?.[1])).toBeGreaterThanOrEqual(planted.length)
      expect(processesOf(iso.user.uid)).toEqual([])
      expect(readFileSync(path.join(repo.dir, 'linked-file'), 'utf8')).toBe('kept\n')
      expect(statSync(path.join(repo.dir, 'linked-file')).uid).toBe(process.getuid?.())
      const suid = statSync(path.join(repo.dir, 'planted-suid'))
      expect(suid.uid).toBe(process.getuid?.())
      expect(suid.mode & 0o6000).toBe(0)
      for (const file of ['README.md', 'new.txt', 'lib/y.js', 'lib'])
        expect(statSync(path.join(repo.dir, file)).uid).toBe(process.getuid?.())
      const top = statSync(repo.dir)
      expect(top.mode).not.toBe(topBefore.mode) // it was shared (g+rwx, sticky) while the agent ran…
      expect(top.mode & 0o7777).toBe(0o700) // …and is as mkdtemp made it again
      expect(existsSync(iso.user.home)).toBe(false)
      // The package store's file was never the agent's: the owner's still, with its names.
      expect(statSync(path.join(store, 'index.js'))).toMatchObject({ uid: process.getuid?.(), nlink: 2 })
      // Our git works on it as before.
      expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo.dir, encoding: 'utf8' })).toContain(
        'planted-suid'
      )
    }, 30_000)
  }
)

describeIsolated('the give-back of deep trees').each(isolationStartPaths())(
  'what the agent leaves in the work tree, given back by the release (started with %s)',
  start => {
    test('a tree 2,500 folders deep and a 250-byte name hard-linked into /tmp and elsewhere: all of the tree is the owner’s again', async () => {
      const repo = tempRepo()
      const shared = sharedDir('ralph-iso-squat-')
      const long = 'n'.repeat(250)
      const squat = `/tmp/ralph-squat-${process.pid}-${start}`
      try {
        const iso = await isolateAgent({
          user: TEST_AGENT_USER,
          privilege: start,
          workTree: repo.dir,
          maxProcesses: CAP
        })
        const made = await iso.runProcess({
          argv: [
            'bash',
            '-c',
            [
              `mkdir top && (cd top && perl -e '${DEEP_TREE}')`,
              `echo kept > ${long} && mkdir ${squat} && ln ${long} ${squat}/payload && ln ${long} ${shared}/payload`,
              'find . -path ./.git -prune -o -uid "$(id -u)" -print | wc -l'
            ].join(' && ')
          ],
          cwd: repo.dir,
          env: { PATH: process.env.PATH, LANG: 'C' }
        })
        expect(text(made.stdout).trim()).toBe('5003')
        const problems = await iso.release()
        expect(problems).toEqual([])
        // Counted by find, which walks any depth: every entry of the agent's, none left of its uid.
        const count = (dir: string, uid: number | undefined): number =>
          execFileSync('find', [dir, '-uid', String(uid), '-printf', 'x'], { encoding: 'utf8' }).length
        expect(count(repo.dir, iso.user.uid)).toBe(0)
        expect(count(path.join(repo.dir, 'top'), process.getuid?.())).toBe(5001)
        expect(statSync(path.join(repo.dir, long))).toMatchObject({ uid: process.getuid?.(), nlink: 1 })
        expect(readFileSync(path.join(repo.dir, long), 'utf8')).toBe('kept\n')
        // The name in /tmp went with the sweep; the one elsewhere is still the agent's, not the owner's.
        expect(existsSync(squat)).toBe(false)
        expect(statSync(path.join(shared, 'payload'))).toMatchObject({ uid: iso.user.uid, nlink: 1 })
      } finally {
        execFileSync('rm', ['-rf', '--', repo.dir, shared, squat])
      }
    }, 180_000)
  }
)

describeIsolated('the agent-user set-up refusals')('who may be the agent', () => {
  test('a user in another group (docker, sudo…) is refused with one line; so is a work tree holding the record', async () => {
    const privilege = isolationPrivilege()
    if (!('privilege' in privilege)) throw new Error(privilege.why)
    const repo = tempRepo()
    const name = `${TEST_AGENT_USER}g`
    try {
      execFileSync('sh', ['-c', `id -u ${name} >/dev/null 2>&1 || useradd --system --user-group ${name}`])
      execFileSync('sh', ['-c', `getent group ralph-test-extra >/dev/null || groupadd ralph-test-extra`])
      execFileSync('usermod', ['-a', '-G', 'ralph-test-extra', name])
      await expect(
        isolateAgent({ user: name, privilege: privilege.privilege, workTree: repo.dir })
      ).rejects.toThrow(
        new RegExp(
          `^the user ${TEST_AGENT_USER}g is in other groups \\(.*ralph-test-extra.*\\), which may give it rights`
        )
      )
      mkdirSync(path.join(repo.dir, 'record'))
      await expect(
        isolateAgent({
          user: TEST_AGENT_USER,
          privilege: privilege.privilege,
          workTree: repo.dir,
          outside: [path.join(repo.dir, 'record')]
        })
      ).rejects.toThrow(/record is inside the work tree/)
    } finally {
      execFileSync('sh', ['-c', `userdel ${name} 2>/dev/null; groupdel ralph-test-extra 2>/dev/null; true`])
      repo.cleanup()
    }
  }, 30_000)
})

describeIsolated('the agent-user holds')('one run at a time holds an agent user', () => {
  const HOLDS = '/run/ralph-action/agent-users'
  /** A process of someone else's (another run's action), as `PID:START`, and a way to end it. */
  function otherRun(): { holder: string; pid: number; end: () => void } {
    const child = spawn('sleep', ['600'], { stdio: 'ignore' })
    const pid = child.pid as number
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
    return { holder: `${pid}:${start}`, pid, end: () => child.kill('SIGKILL') }
  }
  const privilegeOf = (): Privilege => {
    const privilege = isolationPrivilege()
    if (!('privilege' in privilege)) throw new Error(privilege.why)
    return privilege.privilege
  }

  test('a user another live run holds is refused in one line naming its pid and the input; a dead run’s hold is taken', async () => {
    const repo = tempRepo()
    const other = otherRun()
    const name = `${TEST_AGENT_USER}h`
    try {
      mkdirSync(HOLDS, { recursive: true })
      writeFileSync(path.join(HOLDS, name), `${other.holder}\n`)
      await expect(
        isolateAgent({ user: name, privilege: privilegeOf(), workTree: repo.dir })
      ).rejects.toThrow(
        `The agent's user ${name} is held by another run on this machine (pid ${other.pid}): give this run a user of its own with agent-user (the action) or --agent-user (the CLI).`
      )
      // Nothing of the other run's was touched: its hold stands.
      expect(readFileSync(path.join(HOLDS, name), 'utf8')).toBe(`${other.holder}\n`)
      other.end()
      await waitUntil(() => !existsSync(`/proc/${other.pid}`))
      const iso = await isolateAgent({ user: name, privilege: privilegeOf(), workTree: repo.dir })
      expect(readFileSync(path.join(HOLDS, name), 'utf8')).toBe(`${iso.state.holder}\n`)
      expect(await iso.release()).toEqual([])
      // Released: the hold is gone with the HOME.
      expect(existsSync(path.join(HOLDS, name))).toBe(false)
    } finally {
      other.end()
      rmSync(path.join(HOLDS, name), { force: true })
      repo.cleanup()
    }
  }, 60_000)

  test('a dead run’s hold is taken only after what it left running is killed; the holds are root’s alone', async () => {
    const repo = tempRepo()
    const name = `${TEST_AGENT_USER}h`
    const first = await isolateAgent({ user: name, privilege: privilegeOf(), workTree: repo.dir })
    // What a killed run left: a process of the agent's uid, still running.
    const leftover = spawn(
      'setpriv',
      [`--reuid=${first.user.uid}`, `--regid=${first.user.gid}`, '--clear-groups', 'sleep', '600'],
      { stdio: 'ignore' }
    )
    const dead = otherRun()
    dead.end()
    await waitUntil(() => !existsSync(`/proc/${dead.pid}`))
    try {
      await waitUntil(() => processesOf(first.user.uid).length > 0)
      writeFileSync(path.join(HOLDS, name), `${dead.holder}\n`)
      const second = await isolateAgent({ user: name, privilege: privilegeOf(), workTree: repo.dir })
      await waitUntil(() => leftover.exitCode !== null || leftover.signalCode !== null)
      expect(leftover.signalCode).toBe('SIGKILL')
      expect(statSync(HOLDS).mode & 0o777).toBe(0o700)
      expect(statSync(path.dirname(HOLDS)).mode & 0o777).toBe(0o700)
      expect(await second.release()).toEqual([])
    } finally {
      leftover.kill('SIGKILL')
      rmSync(path.join(HOLDS, name), { force: true })
      repo.cleanup()
    }
  }, 60_000)

  test('a release finds the user taken by another run since: it kills nothing of that run', async () => {
    const repo = tempRepo()
    const name = `${TEST_AGENT_USER}h`
    const iso = await isolateAgent({ user: name, privilege: privilegeOf(), workTree: repo.dir })
    const other = otherRun()
    try {
      // The other run's agent: a process of the same uid, alive while the release runs.
      const agent = spawn(
        'setpriv',
        [`--reuid=${iso.user.uid}`, `--regid=${iso.user.gid}`, '--clear-groups', 'sleep', '600'],
        {
          stdio: 'ignore'
        }
      )
      await waitUntil(() => processesOf(iso.user.uid).length > 0)
      writeFileSync(path.join(HOLDS, name), `${other.holder}\n`)
      expect(await iso.release()).toEqual([
        `the agent's user ${name} is held by another run (pid ${other.pid}) since this one ended: its processes and HOME are that run's, left alone`
      ])
      expect(existsSync(`/proc/${agent.pid}`)).toBe(true)
      agent.kill('SIGKILL')
    } finally {
      other.end()
      rmSync(path.join(HOLDS, name), { force: true })
      await iso.release()
      repo.cleanup()
    }
  }, 60_000)
})

async function waitUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) await new Promise(resolve => setTimeout(resolve, 20))
  if (!done()) throw new Error('waited 10 s in vain')
}
