// The loop, contained. Its processes (the agent, the ralph's commands, the checks) run as the agent's own user
// wherever the runner allows it, with the job's environment minus secrets and the runner's file commands; what
// they could change that outlives them is put back when the loop ends. In this order, because nothing may be
// given back while one of them still runs:
//   1. the agent's user: created on first use, given a fresh HOME and the work tree (isolation);
//   2. the checkout's credential removed (kept for post, where only another user runs the loop); .git's config,
//      info/ and hooks/ snapshotted; the runner's file commands remembered (and closed to other users);
//   3. the loop;
//   4. every process of the loop killed: those carrying the run's mark, and every process of the agent's uid;
//   5. the work tree given back, .git put back, the runner's files cut back, and the credential returned.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import path from 'node:path'
import * as core from '@actions/core'
import { agentSettings } from '../agents/index.js'
import {
  GitWorkspace,
  hidePersistedCredentials,
  putBackHeld,
  restoreCredentials,
  restoreGitDir,
  snapshotGitDir,
  type GitDirSnapshot,
  type HeldCredential
} from '../git/index.js'
import { runLoop, type LoopConfig, type LoopPorts, type LoopResult } from '../loop/index.js'
import { killMarked, runProcess, which } from '../proc/index.js'
import { removeEgressRules, egressPrefix } from '../proxy/egress.js'
import {
  IsolationError,
  agentEnvironment,
  guardRunnerFiles,
  hermeticGitEnvironment,
  isolateAgent,
  isolation,
  isolationPrivilege,
  withoutSecretVariables,
  type AgentIsolation,
  type IsolationState
} from '../security/index.js'
import { holdoutFallbackRefusal } from './holdout-inputs.js'
import { holdoutFetcher } from './holdout-ref.js'
import { jobKind } from './jobs/kind.js'
import type { RunPlan } from './plan.js'
import { saveState, type SavedState } from './state.js'

/** The variable that marks the loop's processes (its value is random per run). */
export const RUN_MARK = 'RALPH_ACTION_RUN'
/** SIGTERM to SIGKILL for what the loop left running. */
const STRAY_GRACE_MS = 1000

/** What the fallback to the job's own user leaves open, said wherever it happens. */
const NONE_RISK =
  "so the agent can read this step's tokens (from the action's memory or /proc), write ~/.gitconfig, .git and the runner's GITHUB_ENV, and leave processes running after it"

/**
 * Kills the processes still carrying this run's mark (the loop's leftovers, including those re-parented out
 * of the agent's tree). Best effort, not a boundary: a process that drops the variable is not found.
 */
export async function killStrays(mark: string): Promise<number[]> {
  delete process.env[RUN_MARK]
  return killMarked(RUN_MARK, mark, STRAY_GRACE_MS)
}

/**
 * Sets up the agent's own user as `isolation` says: `none` runs the loop as the job's user; `auto` falls back
 * to it with a warning where isolation is impossible; `user` throws IsolationError there (one line).
 */
export async function isolateLoop(plan: RunPlan, workTree: string): Promise<AgentIsolation | undefined> {
  const setting = plan.inputs.isolation
  if (setting === 'none') {
    core.info(
      `isolation: none — the agent, the ralph's commands and the checks run as the job's user, ${NONE_RISK}.`
    )
    return undefined
  }
  const fallBack = (why: string): undefined => {
    if (setting === 'user') throw new IsolationError(`isolation: user is not possible here: ${why}.`)
    const heldOut = holdoutFallbackRefusal(plan.config.holdout, jobKind(plan.inputs).runsAgent, why)
    if (heldOut) throw new IsolationError(heldOut)
    core.warning(
      `The agent runs as the job's own user: ${why}. That is isolation: none, ${NONE_RISK}. Run on a runner where the action is root or has passwordless sudo (GitHub-hosted Linux runners are), or set isolation: none to say you accept it.`
    )
    return undefined
  }
  const privilege = isolationPrivilege()
  if ('why' in privilege) return fallBack(privilege.why)
  const taskFile = plan.config.userArgs.task_file
  const program = which(plan.ralph.agentArgv[0] ?? '', { cwd: plan.projectRoot, path: process.env.PATH })
  // The CLI's own settings, as it would read them as the job's user (HOME, XDG_CONFIG_HOME, CODEX_HOME…).
  const settings = agentSettings(
    plan.ralph.agentArgv,
    agentEnvironment(process.env, { allow: plan.inputs.allowEnv })
  )
  try {
    const isolated = await isolateAgent({
      user: plan.inputs.agentUser,
      maxProcesses: plan.inputs.agentMaxProcesses,
      privilege: privilege.privilege,
      workTree,
      reach: taskFile ? [path.dirname(taskFile)] : [],
      ...(program ? { program: path.resolve(plan.projectRoot, program) } : {}),
      outside: [process.env.RUNNER_TEMP ?? '', plan.config.recordDir, homedir()],
      settings,
      log: message => core.info(message)
    })
    saveState('isolation', JSON.stringify(isolated.state))
    const { name, uid } = isolated.user
    core.info(
      `The agent, the ralph's commands and the checks run as ${name} (uid ${uid}, started with ${privilege.privilege === 'root' ? 'setpriv' : 'sudo'}, at most ${plan.inputs.agentMaxProcesses} processes): the work tree is theirs, .git is read-only to them, and everything of ${name} is killed whenever none of them runs.`
    )
    for (const opened of isolated.state.opened)
      core.info(`${name} may pass through ${opened.path} (o+x, put back after the loop).`)
    return isolated
  } catch (error) {
    if (!(error instanceof IsolationError)) throw error
    return fallBack(error.message)
  }
}

/**
 * `data` in a file of the action's own (0600, in a folder of its own: 0700), named in the state under `key` for
 * post, when main is killed mid-loop. Answers the folder.
 */
function keepForPost(key: 'gitSnapshot' | 'credentials', data: unknown): string {
  const dir = mkdtempSync(path.join(process.env.RUNNER_TEMP || tmpdir(), `ralph-${key}-`))
  const file = path.join(dir, `${key}.json`)
  writeFileSync(file, JSON.stringify(data), { mode: 0o600 })
  saveState(key, file)
  return dir
}

export interface ContainedLoop {
  result: LoopResult
  /** What the end of the loop found and undid: warnings for the log. */
  warnings: string[]
}

/**
 * Runs the loop contained (see the top of this file). `isolated` is isolateLoop's answer. The ports are the
 * caller's signal and listener; runProcess and the workspace are the containment's.
 */
export async function runLoopContained(
  plan: RunPlan,
  workTree: string,
  isolated: AgentIsolation | undefined,
  ports: Pick<LoopPorts, 'signal' | 'emit' | 'outputRoom'>,
  /** The run: the loop (default), or the deliver job's clean verification. */
  run: (config: LoopConfig, ports: LoopPorts) => Promise<LoopResult> = runLoop
): Promise<ContainedLoop> {
  // Every process of the loop carries a mark, so what it leaves running can be found afterwards (with
  // isolation none; the agent's uid is the boundary otherwise). Every environment built from ours has it.
  const mark = randomBytes(12).toString('hex')
  saveState('runMark', mark)
  process.env[RUN_MARK] = mark
  const allow = plan.inputs.allowEnv
  const env = agentEnvironment(process.env, { allow })
  const spawn = isolated?.runProcess ?? runProcess
  const warnings: string[] = []
  // Behind the model proxy, the isolated uid is what the egress rules match; post removes them if main dies.
  let config = plan.config
  if (isolated && config.modelProxy) {
    const egress = { uid: isolated.user.uid, privilege: isolated.state.privilege }
    config = {
      ...config,
      modelProxy: { ...config.modelProxy, agentUid: egress.uid, agentPrivilege: egress.privilege }
    }
    saveState('egress', JSON.stringify(egress))
  }
  const log = (message: string): void => core.info(message)
  const hidden = await hidePersistedCredentials(workTree, { log })
  let kept: string | undefined
  let result: LoopResult
  try {
    // Kept in a file only where another user runs the loop: under isolation none the agent could read it.
    if (isolated && hidden.held.length > 0) kept = keepForPost('credentials', hidden.held)
    const snapshot = await snapshotGitDir(workTree)
    keepForPost('gitSnapshot', snapshot)
    // Remembered last, after our own state lines: anything added to them from here on is the loop's.
    const files = guardRunnerFiles(process.env, { close: isolated !== undefined })
    try {
      const workspace = await GitWorkspace.open(plan.projectRoot, {
        env: hermeticGitEnvironment(),
        maxFileBytes: config.maxFileBytes
      })
      result = await withoutSecretVariables(
        () =>
          run(config, {
            ...ports,
            workspace,
            runProcess: options => spawn({ ...options, env: options.env ?? env }),
            ...(isolated ? { agentEnvironment: isolated.environment } : {}),
            // The clean checkout (loop/verify.ts): made by the action's hermetic git, handed to the agent's user.
            verify: {
              gitEnv: hermeticGitEnvironment(),
              tempDir: process.env.RUNNER_TEMP || tmpdir(),
              ...(isolated ? { lend: (dir: string) => isolated.lend(dir) } : {}),
              ...holdoutFetcher(plan)
            }
          }),
        allow
      )
    } finally {
      // Before the credential is back, before the push, before later steps.
      warnings.push(...(await endLoop(mark, isolated, snapshot)))
      warnings.push(
        ...files
          .restore()
          .map(
            line =>
              `${line}: a process of the loop wrote to the runner's files (it ran as the job's user: isolation none).`
          )
      )
      saveState('isolation', '')
      saveState('gitSnapshot', '')
      saveState('egress', '')
    }
  } finally {
    // After .git is put back (its snapshot holds the config without the credential), as the last change undone;
    // said at once, as the loop may have thrown.
    const problem = await restoreCredentials(hidden, { log })
    if (problem)
      core.warning(
        kept
          ? `${problem}. The post step tries again.`
          : `${problem}. Later steps of this job have no git credential from actions/checkout.`
      )
    else if (kept) {
      // The file holds the token: gone first, then its name (post finds no file: nothing left to do).
      rmSync(kept, { recursive: true, force: true })
      saveState('credentials', '')
    }
  }
  return { result, warnings }
}

/** Kills what the loop left, gives the work tree back and puts .git back; answers what it found. */
async function endLoop(
  mark: string,
  isolated: AgentIsolation | undefined,
  snapshot: GitDirSnapshot | undefined,
  killed: (pids: number[]) => string = pids =>
    `Killed ${pids.length} process${pids.length === 1 ? '' : 'es'} the loop left running (pid ${pids.join(', ')}) before delivering.`
): Promise<string[]> {
  const warnings: string[] = []
  const strays = [...(mark ? await killStrays(mark) : []), ...(isolated?.leftovers() ?? [])]
  if (strays.length > 0) warnings.push(killed(strays))
  if (isolated) {
    const problems = await isolated.release()
    if (problems.length > 0)
      warnings.push(`The agent's user could not be fully undone: ${problems.join('; ')}.`)
  }
  if (snapshot) {
    try {
      const changed = await restoreGitDir(snapshot)
      if (changed.length > 0)
        warnings.push(
          `The loop changed ${changed.join(', ')}: put back as before the loop (nothing a loop writes into .git outlives it).`
        )
    } catch (error) {
      warnings.push(`.git could not be put back as before the loop: ${(error as Error).message}`)
    }
  }
  return warnings
}

/**
 * Post, when main did not finish: kill what the loop left, give the work tree back, put .git back and then the
 * checkout's credential. Answers warnings, one a line; what main saved that cannot be read is one of them.
 */
export async function endAfterKilledMain(state: SavedState): Promise<string[]> {
  const unread: string[] = []
  let isolated: AgentIsolation | undefined
  if (state.isolation) {
    try {
      isolated = isolation(JSON.parse(state.isolation) as IsolationState, message => core.info(message))
    } catch (error) {
      unread.push(
        `What main saved about the agent's user cannot be read (${(error as Error).message}): its processes are not killed, the work tree is not given back and the user is not released. Kill every process of the agent's user and give the work tree back before a later step trusts it.`
      )
    }
  }
  let snapshot: GitDirSnapshot | undefined
  if (state.gitSnapshot) {
    try {
      snapshot = JSON.parse(readFileSync(state.gitSnapshot, 'utf8')) as GitDirSnapshot
    } catch (error) {
      unread.push(
        `.git's snapshot from before the loop cannot be read (${(error as Error).message}): .git/config, .git/info and .git/hooks are left as the loop left them.`
      )
    }
  }
  const warnings = [...unread]
  warnings.push(
    ...(await endLoop(
      state.runMark ?? '',
      isolated,
      snapshot,
      pids => `Killed what the loop left running: pid ${pids.join(', ')}.`
    ))
  )
  if (state.egress) {
    try {
      const { uid, privilege } = JSON.parse(state.egress) as { uid: number; privilege: 'root' | 'sudo' }
      for (const problem of await removeEgressRules(uid, egressPrefix(privilege)))
        warnings.push(`The agent's egress rules could not all be removed: ${problem}.`)
    } catch (error) {
      warnings.push(`The agent's egress rules could not be removed: ${(error as Error).message}.`)
    }
  }
  return [...warnings, ...(await credentialsAfterMain(state))]
}

/**
 * Post: the checkout's credential, put back from what main kept when main could not put it back (killed, or
 * failed). Answers warnings. No kept file is the usual case: main put it back and removed the file.
 */
export async function credentialsAfterMain(state: SavedState): Promise<string[]> {
  if (!state.credentials) return []
  let held: HeldCredential[]
  try {
    held = JSON.parse(readFileSync(state.credentials, 'utf8')) as HeldCredential[]
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    return [
      `The checkout's credential main kept cannot be read (${(error as Error).message}): later steps of this job have no git credential from actions/checkout.`
    ]
  }
  const { putBack, problems } = await putBackHeld(held)
  // It holds the token: removed whatever happened.
  rmSync(path.dirname(state.credentials), { recursive: true, force: true })
  if (putBack.length > 0)
    core.info(`Put back the checkout's credential, which main could not: ${putBack.join(', ')}.`)
  return problems.length === 0
    ? []
    : [`The persisted git credentials were not fully restored: ${problems.join('; ')}.`]
}
