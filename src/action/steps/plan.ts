// Step 2, plan: the inputs and the trigger become the run's plan (bad input ends the step with one line
// before any agent runs); install-agent installs the agent (when the job kind runs one); the request gets its 👀.
import * as core from '@actions/core'
import { acknowledge } from '../../github/tracking.js'
import { InstallError } from '../../agents/install.js'
import type { Admitted, Planned } from './types.js'
import { replyCannotStart } from './cannot-start.js'
import { badInput, type StepEnd, type Step } from './ending.js'
import { InputError, type ActionInputs } from '../inputs.js'
import { agentInstallFor, installAgent } from '../install-agent.js'
import { checkAgentFound, makePlan, PlanError, type RunPlan } from '../plan.js'

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

/** Someone asked on an issue: tell them it will not start (and that it is not their mistake). */
async function cannotStart(
  { trigger, context, clients }: Admitted,
  error: InputError | PlanError | InstallError
): Promise<{ end: StepEnd }> {
  await replyCannotStart(trigger, context, clients, error.message)
  return { end: badInput(error) }
}

/** The run's plan (its record artifact named with the job kind's suffix), its warnings and notices said; bad input or a bad ralph ends the step in one line. */
export async function planRun(admitted: Admitted, artifactSuffix = ''): Promise<Step<Planned>> {
  const { inputs, context, trigger } = admitted
  let plan: RunPlan
  try {
    const made = makePlan(inputs, context, process.env, trigger)
    // The job kind's suffix (jobs/kind.ts): the deliver job's record is an artifact of its own.
    plan = { ...made, artifactName: `${made.artifactName}${artifactSuffix}` }
  } catch (error) {
    if (!(error instanceof InputError || error instanceof PlanError)) throw error
    return cannotStart(admitted, error)
  }
  for (const warning of plan.warnings) core.warning(warning)
  for (const notice of plan.notices) core.notice(notice)
  return { ...admitted, plan }
}

/**
 * The plan made ready to run: install-agent's CLI when the job kind runs an agent (`installsAgent`, jobs/kind.ts;
 * the deliver job runs none), then the request's 👀.
 */
export async function readyToRun(planned: Planned, installsAgent: boolean): Promise<Step<Planned>> {
  const { inputs, context, clients, trigger, plan } = planned
  if (inputs.installAgent && installsAgent) {
    try {
      await prepareAgent(inputs.installAgent, plan)
    } catch (error) {
      if (!(error instanceof InputError || error instanceof InstallError)) throw error
      return cannotStart(planned, error)
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
  return planned
}
