// The isolation issue's attack corpus end to end: dist/index.js run as the runner runs it (main, then post,
// with what main's GITHUB_ENV and GITHUB_PATH gave it), with github-token, push-token, the job's GITHUB_TOKEN,
// GH_TOKEN and OIDC request token, and a persisted checkout credential, against an agent that tries every
// attack (attacks.ts) before it fixes the test, so the run pushes with the token it was after.
//
// With isolation user, started both ways (the action as root → setpriv; the job's user with passwordless
// sudo → sudo): no token anywhere the agent could leave or take it (its loot, the uploaded artifact, the
// remote, the pull request, the work tree, later steps' environment), no workflow command of the agent's in
// the log, nothing of .git or the runner's files changed, and every process it left dead before the push.
// With isolation none, the same corpus shows what the fallback still stops, and what it cannot.
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { afterAll, expect, test } from '@jest/globals'
import { attackerSteps, filesIn, holding } from './attacks.js'
import { agentScript, projectFiles } from './fixtures.js'
import { GITHUB_TOKEN, alive, runAction, type ActionRun, type Project } from './harness.js'
import { e2eSuite, handTo } from './suite.js'
import {
  TEST_AGENT_USER,
  describeIsolated,
  sharedDir,
  sudoRunner,
  whyNoIsolation,
  whyNoSudoRunner
} from '../support/isolation.js'

const PUSH_TOKEN = 'ghp_StandInPushTokenOfAMachineUser0123456789'
const OIDC_TOKEN = 'ghs_StandInOidcRequestToken0123456789abcd'

const loots: string[] = []

// Declared before e2eSuite(), so it runs before the suite's own afterAll (the order they are declared in):
// the survivors of the isolation none runs (what that fallback cannot stop) are the test's to kill.
afterAll(() => {
  for (const loot of loots)
    for (const name of existsSync(loot) ? readdirSync(loot).filter(f => f.startsWith('pid-')) : []) {
      try {
        process.kill(Number(readFileSync(path.join(loot, name), 'utf8')), 'SIGKILL')
      } catch {
        // gone
      }
    }
  for (const loot of loots) rmSync(loot, { recursive: true, force: true })
})

const e2e = e2eSuite()

interface Attacked {
  p: Project
  run: ActionRun
  loot: string
  /** Each survivor (setsid, double, envi) and whether it was alive when the push arrived. */
  aliveAtPush: Record<string, boolean>
  /** .git's config, hooks and info/ before the run. */
  gitBefore: GitState
  tokens: string[]
  attempts: string[]
}

interface GitState {
  config: string
  hooks: string[]
  info: string[]
}

function gitState(p: Project): GitState {
  const git = path.join(p.workspace, '.git')
  const list = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir)
          .map(f => `${f} ${(lstatSync(path.join(dir, f)).mode & 0o7777).toString(8)}`)
          .sort()
      : []
  return {
    config: readFileSync(path.join(git, 'config'), 'utf8'),
    hooks: list(path.join(git, 'hooks')),
    info: list(path.join(git, 'info'))
  }
}

const survivors = (loot: string): Record<string, number> =>
  Object.fromEntries(
    readdirSync(loot)
      .filter(f => f.startsWith('pid-'))
      .map(f => [f.slice(4), Number(readFileSync(path.join(loot, f), 'utf8'))])
  )

async function attacked(isolation: 'user' | 'none', as?: { uid: number; gid: number }): Promise<Attacked> {
  const loot = sharedDir('ralph-loot-')
  loots.push(loot)
  const p = await e2e.project(projectFiles(agentScript(attackerSteps({ loot }))))
  p.gitServer.tokens.set(PUSH_TOKEN, 'write')
  p.api.state.addUser('ralph-machine', { role: 'write' })
  p.api.state.tokens.set(PUSH_TOKEN, 'ralph-machine')
  if (as) handTo(p, as)
  const gitBefore = gitState(p)
  const aliveAtPush: Record<string, boolean> = {}
  p.gitServer.onPush = () => {
    for (const [name, pid] of Object.entries(survivors(loot))) aliveAtPush[name] ??= alive(pid)
  }
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'push-token': PUSH_TOKEN, isolation },
    env: { GITHUB_TOKEN, GH_TOKEN: GITHUB_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN: OIDC_TOKEN },
    ...(as ? { as } : {})
  })
  const tokens = [GITHUB_TOKEN, PUSH_TOKEN, OIDC_TOKEN, e2e.stand().artifacts.env.ACTIONS_RUNTIME_TOKEN]
  const attemptsFile = path.join(loot, 'attempts.txt')
  const attempts = existsSync(attemptsFile) ? readFileSync(attemptsFile, 'utf8').split('\n') : []
  return { p, run, loot, aliveAtPush, gitBefore, tokens, attempts }
}

async function artifactFiles(run: ActionRun): Promise<Map<string, string>> {
  const artifact = e2e
    .stand()
    .artifacts.listArtifacts()
    .find(a => String(a.id) === run.outputs['artifact-id'])
  if (!artifact) throw new Error('no artifact was uploaded')
  const files = await e2e.stand().artifacts.downloadArtifact(artifact.name)
  return new Map([...files].map(([name, data]) => [name, data.toString('latin1')]))
}

/** The pushed branch's files, as the remote has them. */
function remoteFiles(p: Project, ref: string): Map<string, string> {
  const names = p.remoteGit('ls-tree', '-r', '--name-only', ref).split('\n').filter(Boolean)
  return new Map(names.map(name => [name, p.remoteGit('show', `${ref}:${name}`)]))
}

const attemptOf = (a: Attacked, prefix: string): string[] =>
  a.attempts.filter(line => line.startsWith(prefix))

/** The agent's workflow commands: none of them reached the runner as a command. */
function expectNoAgentCommands(run: ActionRun): void {
  for (const step of [run.main, run.post]) {
    const agents = step?.commands.filter(c =>
      /Approved by @security-team|agent-warning|split across chunks|after a carriage return|RALPH_POISON/.test(
        `${c.command} ${c.message} ${JSON.stringify(c.properties)}`
      )
    )
    expect(agents).toEqual([])
    expect(step?.commands.filter(c => c.command === 'add-mask' && c.message === 'calc')).toEqual([])
    expect(step?.commands.filter(c => ['save-state', 'set-output'].includes(c.command))).toEqual([])
    expect(step?.stdout).not.toContain('##[error]legacy agent error')
  }
  // The text is still there, for people.
  expect(run.main.stdout).toContain('Approved by @security-team')
  expect(run.main.stdout).toContain('##\u200b[error]legacy agent error')
}

/** What the runner's files gave the later steps and the outputs: nothing of the agent's. */
function expectRunnerFilesClean(a: Attacked): void {
  const { run, loot } = a
  expect(run.laterSteps.env).toEqual({})
  expect(run.laterSteps.path.filter(p => p.startsWith(loot))).toEqual([])
  expect(run.outputs.success).toBe('true')
  expect(run.main.state.RALPH_POISON_STATE).toBeUndefined()
  expect(run.summary).not.toContain('pwned')
  expect(run.post?.exitCode).toBe(0)
}

/** Delivered as if nothing had happened: the fix pushed with the push token, a pull request by its user. */
function expectDelivered(a: Attacked): void {
  const { run, p } = a
  expect(run.main.exitCode).toBe(0)
  expect(run.outputs['stop-reason']).toBe('all_checks_passed')
  expect(run.outputs['pr-operation']).toBe('created')
  expect(p.remoteGit('show', 'ralph/fix-tests:calc.js')).toContain('a + b')
  expect(p.api.state.pulls.map(pr => pr.user)).toEqual(['ralph-machine'])
  expect(p.gitServer.requests.filter(r => r.path.endsWith('git-receive-pack')).map(r => r.token)).toContain(
    PUSH_TOKEN
  )
}

/** No token wherever the agent could leave or take one. */
async function expectNoTokenAnywhere(a: Attacked): Promise<void> {
  const { run, p, tokens } = a
  const pulls = Object.fromEntries(
    p.api.state.pulls.map(pr => [`pull ${pr.number}`, `${pr.title}\n${pr.body}`])
  )
  const artifact = await artifactFiles(run)
  expect(holding(artifact, tokens)).toEqual([])
  expect([...artifact.keys()].filter(name => /leak/.test(name))).toEqual([])
  expect(holding(remoteFiles(p, 'ralph/fix-tests'), tokens)).toEqual([])
  expect(holding(pulls, tokens)).toEqual([])
  expect(holding(run.laterSteps.env, tokens)).toEqual([])
  const tree = filesIn(p.workspace)
  for (const name of [...tree.keys()])
    if (name.includes(`${path.sep}.git${path.sep}objects`)) tree.delete(name)
  expect(holding(tree, tokens)).toEqual([])
}

/** .git as before the run: config (its credential include back), hooks, info/. */
function expectGitAsBefore(a: Attacked): void {
  expect(gitState(a.p)).toEqual(a.gitBefore)
}

const loot = (a: Attacked, prefix: string): string[] => readdirSync(a.loot).filter(f => f.startsWith(prefix))

/** The corpus with isolation user: every attack fails, and the run delivers. */
async function expectEveryAttackStopped(a: Attacked): Promise<void> {
  expectDelivered(a)
  expect(a.attempts).toContain('attacks done')
  // The runner's file commands were not in its environment, and their files were closed to it.
  expect(a.attempts).toContain('GITHUB_ENV in env: no')
  expect(attemptOf(a, 'append ').length).toBeGreaterThanOrEqual(5)
  expect(attemptOf(a, 'append ').filter(l => !/: failed E(ACCES|PERM)$/.test(l))).toEqual([])
  // .git is read-only to it: no config key, no attributes, no hook, no rename.
  for (const what of ['.git/config', '.git/info/attributes', 'hook ', 'rename .git'])
    expect(attemptOf(a, what).filter(l => !/: failed E(ACCES|PERM)$/.test(l))).toEqual([])
  // Its own ~/.gitconfig it may write; the job's HOME it may not.
  expect(attemptOf(a, `gitconfig ${a.p.home}`)).toEqual([expect.stringMatching(/: failed /)])
  // Every process above it (sudo, the action, the runner) is another user's: no environ, memory or stdout.
  const above = [...attemptOf(a, 'environ '), ...attemptOf(a, 'mem '), ...attemptOf(a, 'read /proc/')]
  expect(above.length).toBeGreaterThanOrEqual(3)
  expect(above.filter(l => !/: failed E(ACCES|PERM)$/.test(l))).toEqual([])
  // Nothing ran that the agent planted, nothing leaked to its loot.
  for (const prefix of ['ran-', 'ext-', 'found-', 'mem-', 'environ-', 'leak'])
    expect(loot(a, prefix)).toEqual([])
  expect(holding(filesIn(a.loot), a.tokens)).toEqual([])
  // Its survivors (the mark dropped, a double fork, env -i) were dead when the push arrived.
  expect(Object.keys(a.aliveAtPush).sort()).toEqual(['double', 'envi', 'setsid'])
  expect(a.aliveAtPush).toEqual({ double: false, envi: false, setsid: false })
  for (const pid of Object.values(survivors(a.loot))) expect(alive(pid)).toBe(false)
  expectNoAgentCommands(a.run)
  expectRunnerFilesClean(a)
  expectGitAsBefore(a)
  await expectNoTokenAnywhere(a)
  // The work tree is the job's user's again, and the agent's HOME is gone.
  expect(statSync(path.join(a.p.workspace, 'calc.js')).uid).toBe(statSync(a.p.home).uid)
  expect(existsSync(`/var/lib/ralph-action/${TEST_AGENT_USER}`)).toBe(false)
  expect(a.run.main.stdout).toMatch(new RegExp(`run as ${TEST_AGENT_USER} \\(uid \\d+, started with`))
  // The launcher reads no shell start-up file (Node's pipes are sockets: bash would take it for rshd).
  expect(a.run.main.stdout).not.toContain('.bashrc')
}

describeIsolated(
  'the isolation attack corpus (isolation: user, the action as root)',
  process.getuid?.() === 0 ? whyNoIsolation() : 'the action-as-root path needs the tests to run as root'
)('isolation user, the action as root (setpriv)', () => {
  test('every attack of the corpus fails; the run delivers', async () => {
    const a = await attacked('user')
    expect(a.run.main.stdout).toContain('started with setpriv')
    await expectEveryAttackStopped(a)
  }, 240_000)
})

describeIsolated(
  'the isolation attack corpus (isolation: user, the job user with passwordless sudo)',
  whyNoSudoRunner()
)('isolation user, the job user with passwordless sudo (sudo)', () => {
  test('every attack of the corpus fails; the run delivers', async () => {
    const a = await attacked('user', sudoRunner())
    expect(a.run.main.stdout).toContain('started with sudo')
    await expectEveryAttackStopped(a)
  }, 240_000)
})

/** Whether this kernel lets a process read the memory of an ancestor of the same user (Yama off or 0). */
function ancestorMemoryReadable(): boolean {
  try {
    return readFileSync('/proc/sys/kernel/yama/ptrace_scope', 'utf8').trim() === '0'
  } catch {
    return true // no Yama: same user, dumpable: readable
  }
}

describe('isolation none: the same corpus, what the fallback stops and what it cannot', () => {
  test('stopped: ~/.gitconfig, planted .git keys and hooks, the file commands, workflow commands; not: survivors, memory', async () => {
    const a = await attacked('none')
    expectDelivered(a)
    expect(a.run.main.stdout).toContain('isolation: none')
    expect(a.attempts).toContain('attacks done')
    expect(a.attempts).toContain('GITHUB_ENV in env: no')

    // Stopped, though the agent could write them all (it is the job's user):
    // the job's ~/.gitconfig (trace2, ext:: rewrites) is not read by the action's hermetic git;
    expect(attemptOf(a, `gitconfig ${a.p.home}`)).toContain(`gitconfig ${a.p.home}: done`)
    expect(loot(a, 'ext-')).toEqual([])
    // .git's keys, attributes and hooks are put back after the loop, before anything else of the action's runs
    // git (no hook, no smudge in the checkout back); during the loop the action's own git runs no hook, and
    // the clean filter it may run (git add) gets no token: nothing the agent could not do itself;
    expect(attemptOf(a, '.git/config')).toEqual(['.git/config: done'])
    const ran = loot(a, 'ran-')
    expect(ran.filter(f => !f.startsWith('ran-clean-'))).toEqual([])
    expect(holding(filesIn(a.loot), a.tokens).filter(f => path.basename(f).startsWith('ran-'))).toEqual([])
    expectGitAsBefore(a)
    const warnings = a.run.main.commands.filter(c => c.command === 'warning').map(c => c.message)
    expect(warnings).toContainEqual(
      expect.stringMatching(/^The loop changed .*\.git\/config.*: put back as before the loop/)
    )
    // what it appended to GITHUB_ENV & co. is cut back before the step ends (with a warning);
    expect(attemptOf(a, 'append ').filter(l => l.endsWith(': done')).length).toBeGreaterThanOrEqual(5)
    expect(warnings).toContainEqual(
      expect.stringMatching(/appended to GITHUB_ENV during the loop were cut back/)
    )
    expectRunnerFilesClean(a)
    // its workflow commands are text, stop token or not; the action's initial environment holds no token.
    expectNoAgentCommands(a.run)
    expect(loot(a, 'environ-')).toEqual([])
    // The artifact and the pushed branch hold no token (the trace2 target was never written).
    const artifact = await artifactFiles(a.run)
    expect(holding(artifact, a.tokens)).toEqual([])
    expect(holding(remoteFiles(a.p, 'ralph/fix-tests'), a.tokens)).toEqual([])

    // Not stopped: a process that dropped the run mark (setsid with env -u, env -i) is still running when the
    // push starts, able to read the push's environment (its auth header) and the credential put back after.
    // (The double fork keeps the mark: it is found and killed.)
    expect(a.aliveAtPush).toMatchObject({ setsid: true, envi: true, double: false })
    // Not stopped where the kernel allows it (no Yama, or ptrace_scope 0): the action's memory, tokens and all.
    const action = attemptOf(a, 'mem ')[0]?.split(':')[0].split(' ')[1]
    if (ancestorMemoryReadable()) {
      expect(attemptOf(a, `mem ${action}`)).toEqual([`mem ${action}: done`])
      expect(holding(filesIn(a.loot), [PUSH_TOKEN]).filter(f => f.includes(`mem-${action}`))).toHaveLength(1)
    } else expect(attemptOf(a, `mem ${action}`)).toEqual([expect.stringMatching(/: failed E(ACCES|PERM)$/)])
  }, 240_000)
})
