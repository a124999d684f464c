// The verdict is the action's: once every gate passes in the loop's tree, they run once more on a clean
// checkout of exactly the commit to deliver — a fresh worktree (no ignored or untracked file of the loop's
// tree), protected paths put back from the base, `setup` first, as the user the gates run as. Work that passes
// only thanks to what git never delivers (an ignored file, a build left behind) fails here, before any push.
import { realpathSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import path from 'node:path'
import { gitOrThrow, runGit } from '../git/git.js'
import { writeCommitTree } from '../git/write-tree.js'
import type { RalphCheck } from '../ralph/index.js'
import { runChecks } from './checks.js'
import { applyCloneAttributes } from './clean/clone.js'
import { runHoldout, takeBack } from './clean/holdout.js'
import { prepareJudges, testsOfProject } from './clean/judges.js'
import {
  changedDuringGates,
  findChanges,
  protectionFromRules,
  repositoryTop,
  restore,
  type Protection
} from './protect/index.js'
import { addedChecks } from './defaults.js'
import type { IterationMemory, LoopEnvironment } from './environment.js'
import { gateContext } from './gates.js'
import { startPackageJson } from './test-count.js'
import type { CheckRun, LoopConfig, VerificationRecord, VerifyMode, VerifyPorts } from './types.js'
import { iso } from './iso.js'

/** How a passing tree is verified: `clean` by default where there is a commit to check out, else nothing. */
export function verifyModeOf(config: LoopConfig, isRepo: boolean): VerifyMode | undefined {
  if (config.checks.length === 0 || !config.commit || !isRepo) return undefined
  return config.verify ?? 'clean'
}

/** The setup commands as gates are run (bash, in order), each named by its command. */
export function setupCommands(commands: readonly string[]): RalphCheck[] {
  return addedChecks([...commands], [])
}

/** What `runSetup` needs: where the commands run and log, and the run's services. */
type SetupEnvironment = Pick<
  LoopEnvironment,
  'config' | 'record' | 'killGraceMs' | 'guard' | 'runProcess' | 'onPhase' | 'agentEnvironment'
>

/**
 * Runs the setup commands one after another in `cwd` (logs in `<iterationDir>/setup/`), stopping at the first
 * that fails. Answers their runs, and whether the run had to stop meanwhile.
 */
export async function runSetup(
  env: SetupEnvironment,
  cwd: string,
  iterationDir: string
): Promise<{ runs: CheckRun[]; interrupted: boolean }> {
  const runs: CheckRun[] = []
  env.onPhase('check')
  try {
    for (const command of setupCommands(env.config.setup ?? [])) {
      const outcome = await runChecks([command], {
        ...(env.agentEnvironment ? { freshHome: true } : {}),
        workTree: cwd,
        iterationDir,
        folder: 'setup',
        relative: file => env.record.relative(file),
        killGraceMs: env.killGraceMs,
        signal: env.guard.signal,
        stopCause: () => env.guard.trip?.cause,
        runProcess: env.runProcess
      })
      runs.push(...outcome.runs)
      if (outcome.interrupted) return { runs, interrupted: true }
      if (outcome.failures.length > 0) break
    }
    return { runs, interrupted: false }
  } finally {
    env.onPhase(undefined)
  }
}

/** `tests (on a clean checkout)`: how a clean checkout's failure reaches the next prompt. */
export function cleanFailures(verification: VerificationRecord): CheckRun[] {
  const short = verification.commit.slice(0, 12)
  const where =
    `It passed in your work tree but failed on a clean checkout of commit ${short}: only what git tracks, ` +
    'no ignored or untracked file of your tree' +
    (verification.setup.length > 0 ? ', after the setup commands' : '') +
    '. Make the committed files pass on their own.'
  return [...verification.setup, ...verification.checks]
    .filter(run => !run.passed)
    .map(run => ({
      ...run,
      name: `${run.name} (on a clean checkout)`,
      tail: `${where}\n\n${run.tail}`
    }))
}

/** The project root's place inside a checkout of the repository at `repoRoot`. */
function projectIn(checkout: string, repoRoot: string, projectRoot: string): string {
  const real = (p: string): string => {
    try {
      return realpathSync(p)
    } catch {
      // A path that cannot be resolved is compared as written: the worst case is the checkout's top.
      return path.resolve(p)
    }
  }
  const rel = path.relative(real(repoRoot), real(projectRoot))
  return rel.startsWith('..') || path.isAbsolute(rel) ? checkout : path.join(checkout, rel)
}

/**
 * The run's protected paths (none when it has no protection) put back in `checkout` from the base, as this
 * process; `keep` gets the checkout's protection, to look again once its gates have run.
 */
function fromBase(
  env: LoopEnvironment,
  keep: (protection: Protection) => void
): (checkout: string, base: string) => Promise<string[]> {
  const protection = env.protection
  if (!protection) return () => Promise.resolve([])
  return async (checkout, base) => {
    const here = await protectionFromRules(
      await repositoryTop(checkout),
      base,
      protection.rules,
      protection.guardrails
    )
    keep(here)
    return (await restore(here, { signal: env.guard.signal })).map(revert => revert.path)
  }
}

/**
 * Where a clean checkout goes by default: under this user's ~/.cache, not the system's temp folder, whose
 * parents every user may write (pytest looks up the tree for its ini and conftest files: a /tmp/pytest.ini
 * planted by the agent would steer the clean run).
 */
async function privateBase(): Promise<string> {
  const base = path.join(homedir(), '.cache', 'ralph-action')
  try {
    await mkdir(base, { recursive: true, mode: 0o700 })
    return base
  } catch {
    // No writable home (a runner's odd HOME): the system's temp folder still works, only less private.
    return tmpdir()
  }
}

/**
 * The gates on a clean checkout of `commit`: its record, and the failing runs (setup's or the gates') with
 * the end of their output for the fingerprint. Throws when the checkout cannot be made (git failed).
 */
export async function verifyCommit(
  env: LoopEnvironment,
  iteration: number,
  commit: string,
  base: string | undefined,
  ports: VerifyPorts = {},
  counting: Pick<IterationMemory, 'testRunners' | 'baseline'> = {}
): Promise<{ verification: VerificationRecord; failures: { name: string; output: string }[] }> {
  const started = env.clock.now()
  const repoRoot = env.workspace.root
  const git = { cwd: repoRoot, env: ports.gitEnv }
  const folder = await mkdtemp(path.join(ports.tempDir ?? (await privateBase()), 'ralph-clean-'))
  const checkout = path.join(folder, 'checkout')
  let giveBack: (() => Promise<string[]>) | undefined
  try {
    // No checkout by git: its smudge filters and attributes are the tree's (and, under isolation none, a
    // .git/config the agent may have written); the files come straight from the object store instead.
    await gitOrThrow(['worktree', 'add', '--detach', '--no-checkout', '--quiet', checkout, commit], git)
    await writeCommitTree(repoRoot, commit, checkout, ports.gitEnv)
    await gitOrThrow(['read-tree', commit], { ...git, cwd: checkout })
    const unlike = await applyCloneAttributes(checkout, commit, ports.gitEnv)
    // Before it is lent: the checkout is the action's own yet (made by its git, nothing of the agent's runs
    // there), so its git may read it and no process can swap a path while it is put back.
    let guarded: Protection | undefined
    const reverted =
      base !== undefined
        ? await (ports.restoreProtected ?? fromBase(env, p => (guarded = p)))(checkout, base)
        : []
    const cwd = projectIn(checkout, repoRoot, env.workTree)
    const judges = prepareJudges({
      checks: env.config.checks,
      runners: counting.testRunners,
      baseline: counting.baseline?.checks,
      protectedTests: testsOfProject(env.protection?.paths, path.relative(checkout, cwd)),
      cwd,
      folder
    })
    for (const message of judges.notes) env.emit({ type: 'warning', message })
    giveBack = await ports.lend?.(checkout)
    const dir = path.join(env.record.iterationDir(iteration), 'clean')
    const setup = await runSetup(env, cwd, dir)
    const verification: VerificationRecord = {
      commit,
      iteration,
      startedAt: iso(started),
      durationMs: 0,
      verdict: 'passed',
      setup: setup.runs,
      checks: [],
      checksMs: 0,
      ...(reverted.length > 0 ? { protectedReverts: reverted } : {})
    }
    const failures: { name: string; output: string }[] = []
    if (setup.interrupted) verification.verdict = 'interrupted'
    else if (unlike.length > 0) {
      verification.verdict = 'failed'
      failures.push({ name: 'clean checkout', output: unlike.join('\n') })
    } else if (setup.runs.some(run => !run.passed)) {
      verification.verdict = 'failed'
      for (const run of setup.runs.filter(r => !r.passed)) failures.push({ name: run.name, output: run.tail })
    } else {
      env.onPhase('check')
      // Counted as the loop's gates are: a clean run with fewer tests than the baseline's fails too.
      const context = gateContext(
        env,
        { ...counting, ...(judges.runners ? { testRunners: judges.runners } : {}) },
        cwd,
        dir
      )
      const gates = await runChecks(judges.checks, context).finally(() => env.onPhase(undefined))
      const judged = judges.judge(gates.runs)
      verification.checks = gates.runs.map((run, i) => ({ ...run, run: env.config.checks[i].run }))
      verification.checksMs = gates.wallMs
      failures.push(
        ...gates.failures.filter(f => !gates.runs.some(r => r.name === f.name && r.passed)),
        ...judged
      )
      // As in the loop's tree: what judges stays as it was while the gates run the agent's code.
      const during =
        guarded && !gates.interrupted
          ? (await findChanges(guarded)).filter(
              c => !judges.canaryOnly(path.relative(cwd, path.join(checkout, c.path)))
            )
          : []
      if (during.length > 0) {
        const run = changedDuringGates(during)
        verification.checks = [...verification.checks, run]
        failures.push({ name: run.name, output: run.tail })
      }
      verification.verdict = gates.interrupted ? 'interrupted' : failures.length > 0 ? 'failed' : 'passed'
    }
    const holdout = env.config.holdout
    if (holdout && verification.verdict === 'passed') {
      // The checkout is the action's again (every process of the gates' user killed) before held-out files go in.
      await takeBack(giveBack, env)
      giveBack = undefined
      const packageJson = await startPackageJson(env.workspace, env.workTree, base)
      const held = await runHoldout(env, holdout, {
        checkout,
        cwd,
        folder,
        dir,
        packageJson,
        lend: ports.lend,
        fetchHoldout: ports.fetchHoldout
      })
      verification.holdout = held.record
      failures.push(...held.failures)
      verification.verdict = held.interrupted ? 'interrupted' : held.record.passed ? 'passed' : 'failed'
    }
    verification.durationMs = Math.round(env.clock.now() - started)
    return { verification, failures }
  } finally {
    // Given back before it is removed: what the gates made there is the action's again.
    await takeBack(giveBack, env)
    // A folder left in the temp dir changes no verdict: the temp dir's own cleanup takes it.
    await rm(folder, { recursive: true, force: true }).catch(() => undefined)
    await runGit(['worktree', 'prune'], git)
  }
}
