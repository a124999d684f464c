// Ralph-less runs (`ralph-action loop "TASK" --agent CMD --check CMD …`): a synthetic ralph whose body is
// the task. Pass the task (or the spec file's content) as LoopConfig.promptText.
import { shlexSplit, RalphError, type Ralph, type RalphCheck } from '../ralph/index.js'

export interface TaskRalphOptions {
  /** The agent command line, shell-split like RALPH.md's `agent:`. */
  agent: string
  /** `{{ ralph.name }}` and the record's title; default 'loop'. */
  name?: string
  /** Stands in for the ralph's folder (nothing runs from it without commands); default the project root. */
  dir: string
  checks?: RalphCheck[]
  /** The ralphify credit trailer; off by default (the task is ours, not a ralphify ralph). */
  credit?: boolean
  completionTag?: string
  guardrails?: string
}

/** A validated Ralph for a task given on the command line; throws RalphError for a bad agent line. */
export function taskRalph(options: TaskRalphOptions): Ralph {
  if (!options.agent.trim()) throw new RalphError('Missing or empty agent command: pass --agent CMD.')
  let agentArgv: string[]
  try {
    agentArgv = shlexSplit(options.agent)
  } catch (error) {
    throw new RalphError(
      `Malformed agent command ${JSON.stringify(options.agent)}: ${(error as Error).message}`
    )
  }
  const ralph: Ralph = {
    file: '',
    dir: options.dir,
    name: options.name ?? 'loop',
    agent: options.agent,
    agentArgv,
    commands: [],
    args: [],
    credit: options.credit ?? false,
    checks: options.checks ?? []
  }
  if (options.completionTag !== undefined) ralph.completionTag = options.completionTag
  if (options.guardrails !== undefined) ralph.guardrails = options.guardrails
  return ralph
}
