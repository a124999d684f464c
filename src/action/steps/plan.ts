// Step 2, plan: the inputs and the trigger become the run's plan (bad input ends the step with one line
// before any agent runs); a dry run ends here with the first prompt; install-agent installs the agent;
// the request gets its 👀.
import * as core from '@actions/core'
import { previewPrompt } from '../../loop/index.js'
import { runProcess } from '../../proc/index.js'
import { agentEnvironment, withoutSecretVariables } from '../../security/index.js'
import { neutralizeWorkflowCommands } from '../../security/workflow-commands.js'
import { writeDryRunSummary } from '../../report/summary.js'
import { acknowledge } from '../../github/tracking.js'
import { InstallError } from '../../agents/install.js'
import type { Admitted } from './admit.js'
import { replyCannotStart } from './cannot-start.js'
import { badInput, type Ending, type Step } from './ending.js'
import { InputError, type ActionInputs } from '../inputs.js'
import { agentInstallFor, installAgent } from '../install-agent.js'
import { checkAgentFound, makePlan, PlanError, type RunPlan } from '../plan.js'

export interface Planned extends Admitted {
  plan: RunPlan
}

async function dryRun(plan: RunPlan): Promise<Ending> {
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
      ...(plan.config.maxIterations !== undefined ? { maxIterations: plan.config.maxIterations } : {}),
      prompt
    })
  } catch (error) {
    core.warning(`The job summary could not be written: ${(error as Error).message}`)
  }
  return {
    outputs: {
      'stop-reason': '',
      success: 'true',
      iterations: '0',
      branch: plan.branch,
      'pr-operation': 'none'
    },
    finished: true
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

export async function planRun(admitted: Admitted): Promise<Step<Planned>> {
  const { inputs, context, clients, trigger } = admitted
  // Someone asked on an issue: tell them it will not start (and that it is not their mistake).
  const cannotStart = async (error: InputError | PlanError | InstallError): Promise<{ end: Ending }> => {
    await replyCannotStart(trigger, context, clients, error.message)
    return { end: badInput(error) }
  }
  let plan: RunPlan
  try {
    plan = makePlan(inputs, context, process.env, trigger)
  } catch (error) {
    if (!(error instanceof InputError || error instanceof PlanError)) throw error
    return cannotStart(error)
  }
  for (const warning of plan.warnings) core.warning(warning)
  for (const notice of plan.notices) core.notice(notice)
  if (plan.inputs.dryRun) return { end: await dryRun(plan) }
  // The deliver job of two-job mode runs no agent: nothing to install.
  if (inputs.installAgent && inputs.mode !== 'deliver') {
    try {
      await prepareAgent(inputs.installAgent, plan)
    } catch (error) {
      if (!(error instanceof InputError || error instanceof InstallError)) throw error
      return cannotStart(error)
    }
  }
  if (trigger.issueNumber !== undefined && clients.mayWrite)
    await acknowledge(
      await clients.octokit(),
      {
        ...context.repo,
        issueNumber: trigger.issueNumber,
        ...(trigger.commentId !== undefined ? { commentId: trigger.commentId } : {})
      },
      m => core.warning(m)
    )
  return { ...admitted, plan }
}
