// From the inputs and the run's context to a plan: the project root, the validated ralph (or the inline
// task), the LoopConfig, the branch, the artifact's name. Everything a user can get wrong fails here, as one
// line naming the file and line or the input, before any agent runs.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, realpathSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  addedChecks,
  gateSettingsProblem,
  loopConfig,
  setupCommands,
  taskRalph,
  type LoopConfig
} from '../loop/index.js'
import {
  loadRalph,
  RalphError,
  shlexSplit,
  missingGateProgram,
  splitFrontmatter,
  stripHtmlComments,
  which,
  type LoadedRalph,
  type Ralph,
  type RalphProblem,
  readRegularFile
} from '../ralph/index.js'
import { inputRalph } from '../ralph/installed.js'
import type { RunContext } from '../trigger/context.js'
import { deliverTask, promptWithTask, ralphReadsTask } from '../trigger/sanitize.js'
import { taskArgNames, taskArgs } from '../trigger/fix-rounds.js'
import type { PullRef, Run } from '../trigger/types.js'
import { isHunt } from '../trigger/hunt.js'
import { autoModelProxy, modelProxyProblem } from '../proxy/agent.js'
import { InputError, type ActionInputs } from './inputs.js'
import { jobKind } from './jobs/kind.js'
import { holdoutSetting } from './holdout-inputs.js'
import { AGENT_CLIS, npmInstallOf } from '../agents/clis.js'

export interface RunPlan {
  inputs: ActionInputs
  context: RunContext
  /** GITHUB_WORKSPACE, real path. */
  workspace: string
  /** Where the loop runs: the workspace joined with working-directory. */
  projectRoot: string
  ralph: Ralph
  config: LoopConfig
  /** For the summary and the pull request: the ralph's name, its file, what it asks. */
  task: { name: string; file?: string; text: string }
  branch: string
  artifactName: string
  /** The issue to close from the pull request, when an issue started the run. */
  closes?: number
  /** The branch may exist already (an issue's branch, a pull request's head): continue it, do not recreate it. */
  continueBranch: boolean
  /** What started the run (admitEvent's plan), when it carried more than the action's defaults. */
  trigger?: Run
  /** The pull request whose own branch the loop works on (a `/ralph` comment on it): it is updated. */
  pr?: PullRef
  /** Things to tell the user before the loop runs. */
  warnings: string[]
  /** Things the user should know about how the loop runs (a notice each), e.g. why the model proxy is off. */
  notices: string[]
}

/** A problem with the ralph, with where it is: `file:line:col: message` and an annotation's position. */
export class PlanError extends Error {
  constructor(
    message: string,
    readonly where?: { file: string; line?: number; column?: number }
  ) {
    super(message)
    this.name = 'PlanError'
  }
}

const slug = (text: string): string =>
  text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .replace(/\.{2,}/g, '.')
    .slice(0, 60) || 'loop'

function relativeTo(root: string, file: string): string {
  const rel = path.relative(root, file)
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel.split(path.sep).join('/')
}

/** The ralph's problem as one line, `file:line:col: message`, with the file relative to the workspace. */
function ralphProblem(error: RalphError, workspace: string, projectRoot: string): PlanError {
  const problem: RalphProblem | undefined = error.problems[0]
  if (!problem) return new PlanError(error.message)
  const file = relativeTo(workspace, path.resolve(projectRoot, problem.file))
  const at = [file, problem.line, problem.line !== undefined ? problem.column : undefined]
    .filter(x => x !== undefined)
    .join(':')
  return new PlanError(`${at}: ${problem.message}`, {
    file,
    ...(problem.line !== undefined ? { line: problem.line } : {}),
    ...(problem.column !== undefined ? { column: problem.column } : {})
  })
}

/** The agent's program must be on PATH: the one check install-agent defers until after its install. */
export function checkAgentFound(agentArgv: string[], projectRoot: string, env: NodeJS.ProcessEnv): void {
  if (!which(agentArgv[0], { cwd: projectRoot, path: env.PATH }))
    throw new InputError(`The agent '${agentArgv[0]}' was not found on PATH: ${installHint(agentArgv)}.`)
}

/** How to get an agent that is not on PATH: install-agent for the CLIs it installs, else an earlier step. */
export function installHint(agentArgv: string[]): string {
  const npm = npmInstallOf(agentArgv)
  return npm
    ? `set install-agent: true, or install it in an earlier step (${npm})`
    : `install it in an earlier step of the job (install-agent installs only ${AGENT_CLIS.map(c => c.name).join(', ')})`
}

function checkAgent(agent: string, projectRoot: string, env: NodeJS.ProcessEnv, lookup: boolean): string[] {
  let argv: string[]
  try {
    argv = shlexSplit(agent)
  } catch (error) {
    throw new InputError(`Input 'agent' cannot be split into words: ${(error as Error).message}.`)
  }
  if (argv.length === 0) throw new InputError("Input 'agent' is empty: give the agent's command line.")
  if (lookup) checkAgentFound(argv, projectRoot, env)
  return argv
}

/** A ralph not found where no repository is checked out: the step the workflow lacks. */
function noCheckout(root: string, ralphInput: string): string {
  if (existsSync(path.resolve(root, ralphInput))) return ''
  for (let dir = root; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return ''
    if (path.dirname(dir) === dir) break
  }
  return ` (no repository is checked out at ${root}: add the step - uses: actions/checkout@v5 before ralph-action)`
}

/** The RALPH.md body without frontmatter and HTML comments: what the ralph asks, for people. */
function ralphTask(file: string): string {
  try {
    return stripHtmlComments(splitFrontmatter(readRegularFile(file).toString('utf8')).body).trim()
  } catch {
    // The ralph was read and checked before this (makePlan); a file that went since leaves the task untold.
    return ''
  }
}

/**
 * The end of max-time kept for delivery (push, pull request, record upload, with their retries): a tenth of
 * it, at most five minutes. The loop stops that much earlier; delivery's retries stop at max-time.
 */
export function deliveryMarginSeconds(maxTimeSeconds: number): number {
  return Math.min(5 * 60, maxTimeSeconds / 10)
}

/**
 * skip-if-green auto: a hunt's ralph is a "make the gates green" task, so a green start has nothing to do; a
 * comment's, a label's or a pull request's task, and a prompt, may be more than its gates.
 */
function greenIsDone(trigger: Run | undefined, inputs: ActionInputs): boolean {
  return trigger !== undefined && isHunt(trigger) && inputs.prompt === undefined
}

/** A day, and the longest job a GitHub-hosted runner runs (its max-time when none is given). */
const DAY_SECONDS = 24 * 60 * 60
const HOSTED_JOB_SECONDS = 6 * 60 * 60

/** Builds the plan; throws InputError or PlanError with a one-line message. */
export function makePlan(
  inputs: ActionInputs,
  context: RunContext,
  env: NodeJS.ProcessEnv = process.env,
  trigger?: Run
): RunPlan {
  const workspace = realpathSync(context.workspace)
  const projectRoot = path.resolve(workspace, inputs.workingDirectory)
  if (!existsSync(projectRoot) || !statSync(projectRoot).isDirectory())
    throw new InputError(
      `Input 'working-directory' (${inputs.workingDirectory}) is not a folder in the workspace ${workspace}: check the path, and that actions/checkout ran first.`
    )
  const root = realpathSync(projectRoot)

  let ralph: Ralph
  let loadedRalph: LoadedRalph | undefined
  let userArgs: Record<string, string> = {}
  let promptText: string | undefined
  let promptAppendix: string | undefined
  let task: RunPlan['task']
  const warnings: string[] = []
  // The comment's args over the input's (the comment wins); the task is data, delivered as a file and an arg.
  const givenArgs: [string, string][] = Object.entries({
    ...Object.fromEntries(inputs.args),
    ...(trigger?.args ?? {})
  })
  const temp = env.RUNNER_TEMP || tmpdir()
  const delivered = trigger?.task
    ? deliverTask(trigger.task, {
        file: path.join(temp, 'ralph', 'task.md'),
        ...(trigger.taskSource !== undefined ? { source: trigger.taskSource } : {})
      })
    : undefined
  const ralphInput = trigger?.ralph ?? inputs.ralph
  // With install-agent the agent is on PATH only once it is installed: the lookup waits until then.
  const lookup = inputs.installAgent === undefined
  if (ralphInput !== undefined) {
    const tokens = givenArgs.map(([name, value]) => `--${name}=${value}`)
    try {
      // The same containment rule as comments, labels and mode: list (ralph/installed.ts).
      const resolved = inputRalph(root, ralphInput)
      if ('problem' in resolved)
        throw new PlanError(
          `Input 'ralph' (${ralphInput}): ${resolved.problem}${noCheckout(root, ralphInput)}.`
        )
      const loaded = loadRalph(resolved.file, {
        cwd: root,
        env,
        userArgs: tokens,
        skipAgentLookup: inputs.agent !== undefined || !lookup,
        checkPrograms: true,
        noLinks: true
      })
      userArgs = loaded.argValues
      // ralphify's credit trailer asks the agent to credit ralphify in its commits: only when the ralph says so.
      ralph = { ...loaded, credit: loaded.creditWritten === true && loaded.credit }
      loadedRalph = loaded
    } catch (error) {
      if (!(error instanceof RalphError)) throw error
      if (error.problems.length > 0) throw ralphProblem(error, workspace, root)
      throw new PlanError(
        `Input 'ralph' (${ralphInput}): ${error.message.replace(/\.$/, '')}${noCheckout(root, ralphInput)}.`
      )
    }
    if (inputs.agent !== undefined) {
      ralph = { ...ralph, agent: inputs.agent, agentArgv: checkAgent(inputs.agent, root, env, lookup) }
    }
    task = { name: ralph.name, file: relativeTo(workspace, ralph.file), text: ralphTask(ralph.file) }
    // A key no runtime reads, or a placeholder that names nothing, silently changes what runs: the action does
    // not run such a ralph (the CLI's run, like ralphify, warns; both refuse a `chek:` that leaves no gates).
    const silent = loadedRalph?.warnings.find(w => w.rule === 'unknown-key' || w.rule === 'names-nothing')
    if (silent) throw ralphProblem(new RalphError(silent.message, 1, [silent]), workspace, root)
    // Values from people (a comment's args, an issue's text) must never reach a command inside a word.
    const unsafe = loadedRalph?.warnings.find(w => w.rule === 'arg-in-word')
    if (unsafe) {
      const fromPeople =
        trigger !== undefined && (trigger.task !== '' || Object.keys(trigger.args).length > 0)
      const problem = ralphProblem(
        new RalphError(unsafe.message, 1, [
          {
            ...unsafe,
            message: `${unsafe.message} The action does not start such a ralph from a comment, a label or a pull request.`
          }
        ]),
        workspace,
        root
      )
      if (fromPeople) throw problem
      warnings.push(problem.message)
    }
    // The task reaches the agent whatever the ralph's body says: appended as data when it does not place it.
    if (
      delivered &&
      !ralphReadsTask(readRegularFile(ralph.file).toString('utf8'), taskArgNames(trigger ?? {}).text)
    )
      promptAppendix = `\n\n${delivered.block}`
  } else {
    const agent = inputs.agent as string
    checkAgent(agent, root, env, lookup)
    const prompt = inputs.prompt
    if (prompt === undefined && !delivered)
      throw new InputError(
        `Input 'ralph' or 'prompt' is required: ${trigger ? `a ${trigger.event} run` : 'this run'} has no issue to take its task from (with 'agent' alone, only a /ralph comment, a label or a pull request starts a loop).`
      )
    const template = prompt === undefined ? '' : prompt
    const name = `task-${createHash('sha256')
      .update(prompt ?? trigger?.taskSource ?? '')
      .digest('hex')
      .slice(0, 8)}`
    try {
      ralph = taskRalph({ agent, name, dir: root })
    } catch (error) {
      throw new InputError(`Input 'agent': ${(error as Error).message}`)
    }
    if (givenArgs.length > 0) userArgs = Object.fromEntries(givenArgs)
    // The prompt input is the preamble; the issue's text follows it, filled in as data.
    promptText = delivered ? promptWithTask(template, taskArgNames(trigger ?? {}).text) : template
    task = { name, text: prompt ?? `${trigger?.taskSource ?? 'The issue'}, as asked on GitHub` }
  }

  // A scheduled chain must end before the next night: the next night's run would replace its waiting run.
  if (trigger?.event === 'schedule' && inputs.continueJobs > 1) {
    const perJob = inputs.maxTimeSeconds ?? HOSTED_JOB_SECONDS
    if (perJob * inputs.continueJobs >= DAY_SECONDS)
      warnings.push(
        `continue-jobs ${inputs.continueJobs} × max-time ${Math.round(perJob / 60)} min reach a day: a scheduled chain can still run when the next night's run starts, which replaces its waiting run and its branch; keep continue-jobs × max-time under the schedule's interval`
      )
  }
  const added = addedChecks(inputs.checks, ralph.checks)
  for (const check of added) {
    const missing = missingGateProgram(check, root, env.PATH)
    if (missing) throw new InputError(`Input 'checks': ${missing}`)
  }
  const checks = [...ralph.checks, ...added]
  // The input's setup replaces the ralph's; a program it starts must be there before any agent runs.
  for (const command of setupCommands(inputs.setup ?? ralph.setup ?? [])) {
    const missing = missingGateProgram(command, root, env.PATH)
    if (missing)
      throw new InputError(
        `${inputs.setup ? "Input 'setup'" : `${relativeTo(workspace, ralph.file)}: setup`}: ${missing.replace(/^Check /, 'Setup command ').replace('fix the check', 'fix the command')}`
      )
  }
  // auto turns it on only where it can work: gates, and the baseline that runs them first.
  const skipIfGreen =
    inputs.skipIfGreen === 'auto'
      ? greenIsDone(trigger, inputs) && checks.length > 0 && inputs.baseline
      : inputs.skipIfGreen
  const problem = gateSettingsProblem({ checks, baseline: inputs.baseline, skipIfGreen })
  if (problem) throw new InputError(problem)
  // A review round's task is `review`/`review_file` (a ralph places it with {{ args.review }}), else `task`.
  if (delivered) userArgs = { ...userArgs, ...taskArgs(trigger ?? {}, delivered) }
  // A pull request's own branch is pushed onto (updating it), or a proposal goes into it: it closes nothing.
  const pr = trigger?.pr
  const closes = pr || trigger?.proposeTo ? undefined : trigger?.issueNumber
  const branch = pr
    ? pr.headRef
    : (inputs.branch ??
      trigger?.branch ??
      (closes !== undefined ? `ralph/issue-${closes}` : `ralph/${slug(ralph.name)}`))
  const artifactName =
    inputs.artifactName ??
    `ralph-${slug(ralph.name)}-${context.runId || 'local'}-${context.runAttempt || '1'}`

  // The record lives outside the work tree (never committed, never seen by the agent), in RUNNER_TEMP.
  mkdirSync(temp, { recursive: true })
  const recordDir = mkdtempSync(path.join(temp, `ralph-record-${slug(ralph.name)}-`))

  // model-proxy auto: the proxy runs when the agent is a preset and the job holds its key; else one notice says why not.
  // The deliver job of two-job mode runs no agent: it holds no model key, and needs none.
  const kind = jobKind(inputs)
  let modelProxy = kind.meters ? inputs.modelProxy : undefined
  const notices: string[] = []
  if (modelProxy?.auto) {
    const decided = autoModelProxy(ralph.agentArgv, env)
    if (!decided.on) {
      modelProxy = undefined
      if (decided.why) notices.push(`model-proxy auto: ${decided.why}`)
    }
  } else if (modelProxy) {
    // Asked for: what it cannot do fails here, before a branch is made or an agent runs.
    const problem = modelProxyProblem(ralph.agentArgv, env)
    if (problem) throw new InputError(problem)
  }
  const heldOut = holdoutSetting(
    inputs.holdout,
    {
      ...kind,
      isolation: inputs.isolation,
      verify: inputs.verify ?? ralph.verify
    },
    checks,
    [workspace, root]
  )
  if ('problem' in heldOut) throw new InputError(heldOut.problem)
  if (heldOut.notice) notices.push(heldOut.notice)
  const config = loopConfig({
    ralph,
    projectRoot: root,
    userArgs,
    maxIterations: inputs.maxIterations,
    ...(inputs.maxTimeSeconds !== undefined
      ? { maxTimeSeconds: inputs.maxTimeSeconds - deliveryMarginSeconds(inputs.maxTimeSeconds) }
      : {}),
    ...(inputs.maxCostUsd !== undefined ? { maxCostUsd: inputs.maxCostUsd } : {}),
    ...(inputs.agentTimeoutSeconds !== undefined ? { agentTimeoutSeconds: inputs.agentTimeoutSeconds } : {}),
    checks,
    completionTag: inputs.completionTag ?? ralph.completionTag ?? 'COMPLETE',
    commit: true,
    ...(inputs.maxFileBytes !== undefined ? { maxFileBytes: inputs.maxFileBytes } : {}),
    recordDir,
    presets: inputs.presets && (ralph.presets ?? true),
    baseline: inputs.baseline,
    skipIfGreen,
    ...(inputs.parallelChecks !== undefined ? { parallelChecks: inputs.parallelChecks } : {}),
    ...(inputs.setup !== undefined ? { setup: inputs.setup } : {}),
    ...(inputs.verify !== undefined ? { verify: inputs.verify } : {}),
    ...(inputs.allowEnv.length > 0 ? { agentEnv: { allow: inputs.allowEnv } } : {}),
    ...(inputs.maxTurns !== undefined ? { agentMaxTurns: inputs.maxTurns } : {}),
    ...(modelProxy ? { modelProxy } : {}),
    // The verdict is the action's: what judges the agent is put back before every gate run (auto by default).
    protect: inputs.protectedPaths ?? ralph.protected ?? ['auto'],
    ...((inputs.editable ?? ralph.editable) ? { editable: inputs.editable ?? ralph.editable } : {}),
    ...(heldOut.setting ? { holdout: heldOut.setting } : {}),
    ...(promptText !== undefined ? { promptText } : {}),
    ...(promptAppendix !== undefined ? { promptAppendix } : {})
  })
  return {
    inputs,
    context,
    workspace,
    projectRoot: root,
    ralph,
    config,
    task,
    branch,
    artifactName,
    ...(closes !== undefined ? { closes } : {}),
    continueBranch: trigger?.continueBranch ?? false,
    ...(trigger ? { trigger } : {}),
    ...(pr ? { pr } : {}),
    warnings,
    notices
  }
}
