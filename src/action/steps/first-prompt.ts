// The dry run's step: the first prompt, filled by the ralph's commands, shown in the log and the summary; no agent runs.
import * as core from '@actions/core'
import { previewPrompt } from '../../loop/index.js'
import { runProcess } from '../../proc/index.js'
import { writeDryRunSummary } from '../../report/summary.js'
import { agentEnvironment, withoutSecretVariables } from '../../security/index.js'
import { neutralizeWorkflowCommands } from '../../security/workflow-commands.js'
import type { RunPlan } from '../plan.js'
import type { StepEnd } from './ending.js'

export async function firstPrompt(plan: RunPlan): Promise<StepEnd> {
  // The ralph's commands run for real to fill the prompt: without the job's secrets, as in a run.
  const env = agentEnvironment(process.env)
  const prompt = await withoutSecretVariables(() =>
    previewPrompt(plan.config, 1, {
      runProcess: options => runProcess({ ...options, env: options.env ?? env })
    })
  )
  core.startGroup(`The first prompt of ${plan.ralph.name} (dry run: no agent runs)`)
  // The prompt holds the text: no line of it may become a workflow command.
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
