// The prompt of an iteration: RALPH.md re-read (through the files pinned before any agent ran), filled with
// what earlier iterations left.
import path from 'node:path'
import { pinTreeFile, RalphError, readTreeFile, TreeFileError, type Ralph } from '../ralph/index.js'
import type { IterationMemory, LoopEnvironment, RalphFiles } from './environment.js'
import { revertsLine } from './protect/index.js'
import {
  buildPrompt,
  loopPlaceholdersUsed,
  loopStatusSection,
  loopValues,
  type LoopContext
} from './prompt.js'

export function pinRalphFiles(ralph: Pick<Ralph, 'file' | 'guardrails'>, workTree: string): RalphFiles {
  const pin = (what: string, file: string): string => {
    try {
      return pinTreeFile(file, workTree)
    } catch (error) {
      if (!(error instanceof TreeFileError)) throw error
      throw new RalphError(`${what} ${error.message}. Make it a regular file of the project.`)
    }
  }
  return {
    ralph: pin('RALPH.md:', ralph.file),
    ...(ralph.guardrails
      ? { guardrails: pin('The guardrails file:', path.resolve(workTree, ralph.guardrails)) }
      : {})
  }
}

/** What assembling a prompt reads: the loop's settings and what earlier iterations left. */
export type PromptState = Pick<LoopEnvironment, 'config' | 'ralph' | 'workTree'> &
  Partial<Pick<LoopEnvironment, 'ralphFiles'>> &
  Pick<IterationMemory, 'baseline' | 'history' | 'previousChecks' | 'lastDiff'>

function readGuardrails(env: PromptState, files: RalphFiles): LoopContext['guardrails'] {
  const file = env.ralph.guardrails
  if (!file || !files.guardrails) return undefined
  let content = ''
  try {
    content = readTreeFile(files.guardrails).toString('utf8')
  } catch (error) {
    // Not written yet: the agent is asked to start it. Anything else (a link, a FIFO) is refused.
    if (!(error instanceof TreeFileError) || error.code !== 'ENOENT')
      throw new RalphError(
        `The guardrails file ${file} was not read: ${(error as Error).message}. Make it a regular file of the project.`
      )
  }
  return { file, content }
}

/** RALPH.md as the reference reads it every iteration: strict UTF-8 (a bad byte crashes the iteration). */
function readRalphText(file: string, pinned: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(readTreeFile(pinned))
  } catch (error) {
    throw new RalphError(`RALPH.md could not be read (${file}): ${(error as Error).message}`)
  }
}

/**
 * The prompt for this iteration, and whether it shows the agent the diff (then the tree must be tracked).
 * Throws RalphError when RALPH.md can no longer be read or parsed.
 */
export function assemble(
  env: PromptState,
  iteration: number,
  commandOutputs: Record<string, string>
): { prompt: string; showsDiff: boolean } {
  const { config, ralph } = env
  // Without pins (a preview, before any agent ran) the files are pinned now.
  const files = env.ralphFiles ?? pinRalphFiles(ralph, env.workTree)
  const ralphText = config.promptText !== undefined ? '' : readRalphText(ralph.file, files.ralph)
  const inputs: Parameters<typeof buildPrompt>[0] = {
    ralphText,
    ralphFile: ralph.file,
    body: config.promptText,
    name: ralph.name,
    iteration,
    maxIterations: config.maxIterations,
    commandOutputs,
    userArgs: config.userArgs,
    credit: ralph.credit,
    ...(config.promptAppendix ? { appendix: config.promptAppendix } : {})
  }
  // What the action put back after the last agent run: the agent is told, once, in its next prompt.
  const reverts = env.history.at(-1)?.reverts
  if (reverts && reverts.length > 0)
    inputs.appendix = `${inputs.appendix ?? ''}${revertNote(revertsLine(reverts))}`
  const used = loopPlaceholdersUsed(inputs)
  const gated = config.checks.length > 0
  const ctx: LoopContext = {
    gates: config.checks,
    completionTag: config.completionTag,
    previousChecks: env.previousChecks,
    ...(env.baseline ? { baseline: env.baseline } : {}),
    diff: env.lastDiff,
    history: env.history,
    guardrails: readGuardrails(env, files)
  }
  const values = loopValues(ctx)
  const section =
    gated && used.size === 0 ? loopStatusSection(values, ctx, iteration, config.maxIterations) : ''
  return { prompt: buildPrompt(inputs, { values, section }), showsDiff: used.has('diff') }
}

/** The prompt's note on protected paths put back after the last agent run. */
export function revertNote(paths: string): string {
  return (
    `\n\nThe action put back protected paths after your last run, before the checks judged it: ${paths}. ` +
    `The tests that existed, the check scripts, the test runners' configuration, the ralph's folder and .github/ ` +
    `judge the work and are never delivered changed. Fix the code under test instead; you may add new tests.`
  )
}
