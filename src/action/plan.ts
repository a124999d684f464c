// From the inputs and the run's context to a plan: the project root, the validated ralph (or the inline
// task), the LoopConfig, the branch, the artifact's name. Everything a user can get wrong fails here, as one
// line naming the file and line or the input, before any agent runs.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import path from 'node:path'
import { addedChecks, loopConfig, taskRalph, type LoopConfig } from '../loop/index.js'
import {
  loadRalph,
  RalphError,
  resolveRalphPath,
  shlexSplit,
  splitFrontmatter,
  stripHtmlComments,
  which,
  type Ralph,
  type RalphProblem
} from '../ralph/index.js'
import type { RunContext } from '../github/context.js'
import { deliverTask, promptWithTask, ralphReadsTask } from '../github/sanitize.js'
import type { PullRef, RunPlan as TriggerRun } from '../github/trigger.js'
import { InputError, type ActionInputs } from './inputs.js'

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
  /** What started the run (planTrigger's plan), when it carried more than the action's defaults. */
  trigger?: TriggerRun
  /** The pull request whose own branch the loop works on (a `/ralph` comment on it): it is updated. */
  pr?: PullRef
  /** Things to tell the user before the loop runs. */
  warnings: string[]
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

function checkAgent(agent: string, projectRoot: string, env: NodeJS.ProcessEnv): string[] {
  let argv: string[]
  try {
    argv = shlexSplit(agent)
  } catch (error) {
    throw new InputError(`Input 'agent' cannot be split into words: ${(error as Error).message}.`)
  }
  if (argv.length === 0) throw new InputError("Input 'agent' is empty: give the agent's command line.")
  if (!which(argv[0], { cwd: projectRoot, path: env.PATH }))
    throw new InputError(
      `Input 'agent': '${argv[0]}' was not found on PATH; install it in an earlier step (e.g. npm install -g @anthropic-ai/claude-code).`
    )
  return argv
}

/** The RALPH.md body without frontmatter and HTML comments: what the ralph asks, for people. */
function ralphTask(file: string): string {
  try {
    return stripHtmlComments(splitFrontmatter(readFileSync(file, 'utf8')).body).trim()
  } catch {
    return ''
  }
}

/** Builds the plan; throws InputError or PlanError with a one-line message. */
export function makePlan(
  inputs: ActionInputs,
  context: RunContext,
  env: NodeJS.ProcessEnv = process.env,
  trigger?: TriggerRun
): RunPlan {
  const workspace = realpathSync(context.workspace)
  const projectRoot = path.resolve(workspace, inputs.workingDirectory)
  if (!existsSync(projectRoot) || !statSync(projectRoot).isDirectory())
    throw new InputError(
      `Input 'working-directory' (${inputs.workingDirectory}) is not a folder in the workspace ${workspace}: check the path, and that actions/checkout ran first.`
    )
  const root = realpathSync(projectRoot)

  let ralph: Ralph
  let userArgs: Record<string, string> = {}
  let promptText: string | undefined
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
  if (ralphInput !== undefined) {
    const tokens = givenArgs.map(([name, value]) => `--${name}=${value}`)
    try {
      const resolved = resolveRalphPath(ralphInput, { cwd: root, home: homedir() })
      const loaded = loadRalph(resolved.file, {
        cwd: root,
        env,
        userArgs: tokens,
        skipAgentLookup: inputs.agent !== undefined
      })
      userArgs = loaded.argValues
      ralph = loaded
    } catch (error) {
      if (!(error instanceof RalphError)) throw error
      if (error.problems.length > 0) throw ralphProblem(error, workspace, root)
      throw new PlanError(`Input 'ralph' (${ralphInput}): ${error.message}`)
    }
    if (inputs.agent !== undefined) {
      ralph = { ...ralph, agent: inputs.agent, agentArgv: checkAgent(inputs.agent, root, env) }
    }
    task = { name: ralph.name, file: relativeTo(workspace, ralph.file), text: ralphTask(ralph.file) }
    if (delivered && !ralphReadsTask(readFileSync(ralph.file, 'utf8')))
      warnings.push(
        `${task.file} does not use {{ args.task }}: the ${trigger?.taskSource ?? 'trigger'}'s text reaches the agent only as the file ${delivered.file} (also in {{ args.task_file }}).`
      )
  } else {
    const agent = inputs.agent as string
    checkAgent(agent, root, env)
    const prompt = inputs.prompt as string
    const name = `task-${createHash('sha256').update(prompt).digest('hex').slice(0, 8)}`
    try {
      ralph = taskRalph({ agent, name, dir: root })
    } catch (error) {
      throw new InputError(`Input 'agent': ${(error as Error).message}`)
    }
    if (givenArgs.length > 0) userArgs = Object.fromEntries(givenArgs)
    promptText = delivered ? promptWithTask(prompt) : prompt
    task = { name, text: prompt }
  }

  const checks = [...ralph.checks, ...addedChecks(inputs.checks, ralph.checks)]
  if (delivered) userArgs = { ...userArgs, ...delivered.args }
  // A pull request's own branch is pushed onto (updating it): it closes nothing.
  const pr = trigger?.pr
  const closes = pr ? undefined : trigger?.issueNumber
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

  const config = loopConfig({
    ralph,
    projectRoot: root,
    userArgs,
    maxIterations: inputs.maxIterations,
    maxTimeSeconds: inputs.maxTimeSeconds,
    maxCostUsd: inputs.maxCostUsd,
    agentTimeoutSeconds: inputs.agentTimeoutSeconds,
    checks,
    completionTag: inputs.completionTag ?? ralph.completionTag ?? 'COMPLETE',
    commit: true,
    recordDir,
    presets: inputs.presets && (ralph.presets ?? true),
    ...(inputs.allowEnv.length > 0 ? { agentEnv: { allow: inputs.allowEnv } } : {}),
    ...(inputs.maxTurns !== undefined ? { agentMaxTurns: inputs.maxTurns } : {}),
    ...(promptText !== undefined ? { promptText } : {})
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
    warnings
  }
}
