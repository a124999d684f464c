// The main step: inputs → plan → loop → deliver → report. Bad input fails the step with one line (with the
// file and line of a ralph problem) before any agent runs.
import * as core from '@actions/core'
import { previewPrompt } from '../loop/index.js'
import { runProcess } from '../proc/index.js'
import { readContext } from '../github/context.js'
import { InputError, readInputs } from './inputs.js'
import { agentEnvironment, makePlan, PlanError, withoutSecretVariables, type RunPlan } from './plan.js'
import { runAction } from './run-action.js'
import { saveState } from './state.js'

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

function badInput(error: InputError | PlanError): void {
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
  core.info(prompt)
  core.endGroup()
  core.info(`Dry run: the inputs and ${plan.task.file ?? 'the task'} are valid; branch ${plan.branch}.`)
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
    let plan: RunPlan
    try {
      const inputs = readInputs()
      for (const token of [inputs.githubToken, inputs.pushToken]) if (token) core.setSecret(token)
      plan = makePlan(inputs, readContext())
    } catch (error) {
      if (error instanceof InputError || error instanceof PlanError) return badInput(error)
      throw error
    }
    if (plan.inputs.dryRun) return await dryRun(plan)
    await runAction(plan, cancel.signal)
  } catch (error) {
    core.debug((error as Error).stack ?? String(error))
    core.setFailed(`ralph-action failed: ${(error as Error).message}`)
  } finally {
    cancel.dispose()
  }
}
