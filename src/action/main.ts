// The main step: inputs → plan → loop → deliver → report. Bad input fails the step with one line (with the
// file and line of a ralph problem) before any agent runs.
import { realpathSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import { previewPrompt } from '../loop/index.js'
import { runProcess, scrubInitialEnvironment } from '../proc/index.js'
import { agentEnvironment, isSecretVariable, withoutSecretVariables } from '../security/index.js'
import { GITHUB_ACTIONS_IDENTITY } from '../git/index.js'
import { readContext, type RunContext } from '../github/context.js'
import { lazyClient, type Octokit } from '../github/client.js'
import type { RetryBudget } from '../github/retry.js'
import { tokenActor, type TokenActor } from '../github/own-work.js'
import { neutralizeWorkflowCommands } from '../security/workflow-commands.js'
import { writeDryRunSummary } from '../github/summary.js'
import { acknowledge, postRefusal } from '../github/tracking.js'
import { planTrigger, ralphNameOf, type RunPlan as TriggerRun } from '../github/trigger.js'
import { planHunt } from '../github/hunt.js'
import { ralphMatrix } from '../cli/list.js'
import { InputError, readInputs, type ActionInputs } from './inputs.js'
import { InstallError } from '../agents/install.js'
import { agentInstallFor, installAgent } from './install-agent.js'
import { checkAgentFound, makePlan, PlanError, type RunPlan } from './plan.js'
import { replyCannotStart, runAction } from './run-action.js'
import { saveState } from './state.js'

/**
 * Keeps the tokens this process was started with out of /proc/<pid>/environ, which any process of the same
 * user can read: the agent is our child, and one that outlived its loop may be watching for post.
 */
export function scrubOwnEnvironment(): void {
  const scrub = scrubInitialEnvironment(isSecretVariable)
  if (scrub.skipped && process.platform === 'linux')
    core.warning(
      `The tokens could not be removed from /proc/${process.pid}/environ (${scrub.skipped}): processes of this user, the agent's included, can read them there.`
    )
  else core.debug(`Scrubbed from the initial environment: ${scrub.scrubbed.join(', ') || 'nothing'}.`)
}

function projectRootOf(context: RunContext, inputs: ActionInputs): string {
  const root = path.resolve(context.workspace, inputs.workingDirectory)
  try {
    return realpathSync(root)
  } catch {
    return root
  }
}

/** `mode: list`: the installed ralphs as matrix JSON; nothing runs. */
function listMode(inputs: ActionInputs, context: RunContext): void {
  const m = ralphMatrix(projectRootOf(context, inputs))
  for (const why of m.skipped) core.warning(`Left out of the matrix: ${why}`)
  core.setOutput('matrix', JSON.stringify(m.matrix))
  core.setOutput('count', String(m.count))
  core.info(`${m.count} ralph${m.count === 1 ? '' : 's'} for the matrix: ${JSON.stringify(m.matrix)}`)
  saveState('finished', true)
}

/**
 * A run that no issue or pull request asked for (schedule, workflow_dispatch, push): a hunt, on the ralph's
 * own branch, which keeps at most one open PR. Started by hand or by the clock, it continues the same work.
 */
export const isHunt = (trigger: TriggerRun): boolean =>
  ['schedule', 'workflow_dispatch', 'push'].includes(trigger.event) &&
  trigger.issueNumber === undefined &&
  trigger.pr === undefined

/**
 * A hunt continues its open pull request's branch (updating the PR, never opening a second), or starts its
 * branch fresh; at `max-open-prs` with nothing to continue it ends without running. Answers whether to run.
 */
async function huntBranch(
  inputs: ActionInputs,
  context: RunContext,
  trigger: TriggerRun,
  octokit: () => Promise<Octokit>,
  deliveryActor: () => Promise<TokenActor>
): Promise<boolean> {
  const ralphName = trigger.ralphName ?? ralphNameOf(inputs.ralph)
  if (!ralphName || (!inputs.openPr && inputs.maxOpenPrs === undefined)) return true
  const hunt = await planHunt(await octokit(), {
    ...context.repo,
    ralphName,
    actor: await deliveryActor(),
    ...(inputs.branch !== undefined ? { branch: inputs.branch } : {}),
    ...(inputs.maxOpenPrs !== undefined ? { maxOpenPrs: inputs.maxOpenPrs } : {})
  })
  if (hunt.kind === 'capped') {
    core.notice(`The hunt ${ralphName} did not run: ${hunt.reason}.`)
    return false
  }
  if (hunt.kind === 'not-ours') {
    core.warning(`The hunt ${ralphName} did not run: ${hunt.reason}.`)
    return false
  }
  trigger.branch = hunt.branch
  if (hunt.kind === 'continue') {
    trigger.continueBranch = true
    // Its pull request's base, whatever ref this run was started on: the same PR is found and updated.
    trigger.base = hunt.pull.baseRef
    core.info(
      `Continuing ${hunt.branch}: its pull request #${hunt.pull.number} is still open and will be updated.`
    )
  }
  return true
}

/**
 * What started the run decides whether a loop runs: a skip ends the step quietly, a refusal replies on the
 * issue (or fails the step when it is the workflow's mistake). No agent runs either way. Answers the plan
 * to run, or undefined when the step is over.
 */
async function decide(
  inputs: ActionInputs,
  context: RunContext,
  octokit: () => Promise<Octokit>,
  deliveryActor: () => Promise<TokenActor>
): Promise<TriggerRun | undefined> {
  const { owner, repo } = context.repo
  // Events that carry no one to check, no text and no push need no API: schedule and workflow_dispatch.
  const needsApi = ['issue_comment', 'issues', 'pull_request', 'push'].includes(context.eventName)
  const client = needsApi ? await octokit() : (undefined as unknown as Octokit)
  const plan = await planTrigger(
    context.event,
    {
      owner,
      repo,
      projectRoot: projectRootOf(context, inputs),
      ...(inputs.ralph !== undefined ? { defaultRalph: inputs.ralph } : {}),
      ...(inputs.ralph === undefined && inputs.agent !== undefined
        ? { ralphLess: inputs.prompt !== undefined ? { prompt: inputs.prompt } : {} }
        : {}),
      delivery: { actor: deliveryActor, committerEmail: GITHUB_ACTIONS_IDENTITY.email },
      allowedBots: inputs.allowedBots,
      label: inputs.triggerLabel
    },
    client
  )
  if (plan.kind === 'skip') {
    core.info(neutralizeWorkflowCommands(`Nothing to do: ${plan.reason}.`))
    return undefined
  }
  if (plan.kind === 'refuse') {
    if (plan.reply && plan.issueNumber !== undefined) {
      await postRefusal(client, { owner, repo, issueNumber: plan.issueNumber }, plan.reply, m =>
        core.warning(m)
      )
      core.warning(`Refused: ${plan.reason}. No agent ran; the reply on #${plan.issueNumber} says why.`)
    } else core.setFailed(`Refused: ${plan.reason}.`)
    return undefined
  }
  return plan
}

/** The runner sends SIGINT, then SIGTERM ~7.5 s later: either one cancels the loop (the agent's tree is killed). */
function cancellation(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController()
  const onSignal = (name: NodeJS.Signals): void => {
    if (!controller.signal.aborted) core.info(`Received ${name}: stopping the loop and its agent.`)
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
  }
}

/** install-agent: the CLI installed (or restored) and on PATH, then the agent found there. */
async function prepareAgent(
  request: NonNullable<ActionInputs['installAgent']>,
  plan: RunPlan
): Promise<void> {
  const install = agentInstallFor(request, plan.ralph.agentArgv)
  core.startGroup(`Install ${install.cli.name} ${install.version}`)
  try {
    await installAgent(install)
  } finally {
    core.endGroup()
  }
  checkAgentFound(plan.ralph.agentArgv, plan.projectRoot, process.env)
}

function badInput(error: InputError | PlanError | InstallError): void {
  if (error instanceof PlanError && error.where)
    core.error(error.message.slice(error.message.indexOf(': ') + 2), {
      title: 'RALPH.md',
      file: error.where.file,
      ...(error.where.line !== undefined ? { startLine: error.where.line } : {}),
      ...(error.where.column !== undefined ? { startColumn: error.where.column } : {})
    })
  core.setFailed(error.message)
  saveState('finished', true)
}

async function dryRun(plan: RunPlan): Promise<void> {
  // The ralph's commands run for real to fill the prompt: without the job's secrets, as in a run.
  const env = agentEnvironment(process.env)
  const prompt = await withoutSecretVariables(() =>
    previewPrompt(plan.config, 1, {
      runProcess: options => runProcess({ ...options, env: options.env ?? env })
    })
  )
  core.startGroup(`The first prompt of ${plan.ralph.name} (dry run: no agent runs)`)
  // The prompt holds the issue's text: no line of it may become a workflow command.
  core.info(neutralizeWorkflowCommands(prompt))
  core.endGroup()
  core.info(`Dry run: the inputs and ${plan.task.file ?? 'the task'} are valid; branch ${plan.branch}.`)
  try {
    await writeDryRunSummary({
      task: plan.task,
      branch: plan.branch,
      checks: plan.config.checks,
      maxIterations: plan.config.maxIterations,
      prompt
    })
  } catch (error) {
    core.warning(`The job summary could not be written: ${(error as Error).message}`)
  }
  core.setOutput('stop-reason', '')
  core.setOutput('success', 'true')
  core.setOutput('iterations', '0')
  core.setOutput('branch', plan.branch)
  core.setOutput('pr-operation', 'none')
  saveState('finished', true)
}

export async function run(): Promise<void> {
  const cancel = cancellation()
  try {
    let inputs: ActionInputs
    let context: RunContext
    try {
      inputs = readInputs()
      for (const token of [inputs.githubToken, inputs.pushToken]) if (token) core.setSecret(token)
      context = readContext()
      scrubOwnEnvironment()
    } catch (error) {
      if (error instanceof InputError) return badInput(error)
      throw error
    }
    if (inputs.mode === 'list') return listMode(inputs, context)
    const budget: RetryBudget = {}
    const octokit = lazyClient(inputs.githubToken, { budget, log: m => core.info(m) })
    // The account pushes and pull requests are made with (asked once, when first needed).
    const deliveryOctokit = inputs.pushToken
      ? lazyClient(inputs.pushToken, { budget, log: m => core.info(m) })
      : octokit
    let actor: Promise<TokenActor> | undefined
    const deliveryActor = () => (actor ??= deliveryOctokit().then(tokenActor))
    const trigger = await decide(inputs, context, octokit, deliveryActor)
    if (!trigger) {
      saveState('finished', true)
      return
    }
    if (trigger.proposeTo) core.info(`${trigger.proposeTo.reason}.`)
    if (isHunt(trigger)) {
      const ok = await huntBranch(inputs, context, trigger, octokit, deliveryActor)
      if (!ok) {
        saveState('finished', true)
        return
      }
    }
    let plan: RunPlan
    try {
      plan = makePlan(inputs, context, process.env, trigger)
    } catch (error) {
      if (!(error instanceof InputError || error instanceof PlanError)) throw error
      // Someone asked on an issue: tell them it will not start (and that it is not their mistake).
      await replyCannotStart(trigger, context, octokit, error.message)
      return badInput(error)
    }
    for (const warning of plan.warnings) core.warning(warning)
    for (const notice of plan.notices) core.notice(notice)
    if (plan.inputs.dryRun) return await dryRun(plan)
    if (inputs.installAgent) {
      try {
        await prepareAgent(inputs.installAgent, plan)
      } catch (error) {
        if (!(error instanceof InputError || error instanceof InstallError)) throw error
        await replyCannotStart(trigger, context, octokit, error.message)
        return badInput(error)
      }
    }
    if (trigger.issueNumber !== undefined)
      await acknowledge(
        await octokit(),
        {
          ...context.repo,
          issueNumber: trigger.issueNumber,
          ...(trigger.commentId !== undefined ? { commentId: trigger.commentId } : {})
        },
        m => core.warning(m)
      )
    await runAction(plan, cancel.signal, {
      octokit,
      budget,
      reportIssue: inputs.reportIssue && isHunt(trigger)
    })
  } catch (error) {
    core.debug((error as Error).stack ?? String(error))
    core.setFailed(`ralph-action failed: ${(error as Error).message}`)
  } finally {
    cancel.dispose()
  }
}
