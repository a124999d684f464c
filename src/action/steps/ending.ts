// How the main step ends, written in one place: its outputs, its failure and the `finished` state that tells
// post whether anything is left to do. Every step of main answers an StepEnd or its own typed result.
import * as core from '@actions/core'
import type { InstallError } from '../../agents/install.js'
import type { InputError } from '../inputs.js'
import { PlanError } from '../plan.js'
import { savedHere, saveState } from '../state.js'

/** The action's outputs (action.yml), in the order they are written. */
export type OutputName =
  | 'stop-reason'
  | 'success'
  | 'iterations'
  | 'cost'
  | 'cost-source'
  | 'duration'
  | 'branch'
  | 'commit'
  | 'verified'
  | 'pr-number'
  | 'pr-url'
  | 'pr-operation'
  | 'artifact-id'
  | 'delivery'
  | 'continued'
  | 'continued-run'
  | 'matrix'
  | 'count'
  | 'budget-left'
  | 'lease'

/** An error annotation at a file's line. */
export interface Annotation {
  message: string
  title: string
  file: string
  line?: number
  column?: number
}

export interface StepEnd {
  outputs?: Partial<Record<OutputName, string>>
  /** Why the step failed; with an `annotation`, that is the one line, placed at the file and line. */
  failure?: { message: string; annotation?: Annotation }
  /** Markdown for the job summary, when the step ends before a run (that writes its own). */
  summary?: string
  /** False when main leaves the record's upload and summary to post (a cancelled run). */
  finished: boolean
}

/** A step that ended the run early answers `{ end }`; one that did its work answers its result. */
export type Step<T> = T | { end: StepEnd }

export const endsHere = <T extends object>(step: Step<T>): step is { end: StepEnd } => 'end' in step

export async function writeEnding(ending: StepEnd): Promise<void> {
  // A step that fails before a run's summary was written says in the summary too what failed.
  const summary =
    ending.summary ??
    (ending.failure && ending.finished && !savedHere('summaryWritten')
      ? `❌ ${ending.failure.message}\n`
      : undefined)
  if (summary !== undefined)
    try {
      await core.summary.addRaw(summary).write()
    } catch (error) {
      core.warning(`The job summary could not be written: ${(error as Error).message}`)
    }
  for (const [name, value] of Object.entries(ending.outputs ?? {})) core.setOutput(name, value)
  const failure = ending.failure
  if (failure?.annotation) {
    // The annotation is the one line: at the file and line, so a second, unplaced copy would only repeat it.
    const { message, title, file, line, column } = failure.annotation
    core.error(message, {
      title,
      file,
      ...(line !== undefined ? { startLine: line } : {}),
      ...(column !== undefined ? { startColumn: column } : {})
    })
    process.exitCode = core.ExitCode.Failure
  } else if (failure) core.setFailed(failure.message)
  saveState('finished', ending.finished)
}

/** Bad input ends the step with one line (a ralph problem also as an annotation at its file and line). */
export function badInput(error: InputError | PlanError | InstallError): StepEnd {
  const where = error instanceof PlanError ? error.where : undefined
  // The message keeps its file:line:col: the annotation is the step's one line, read in the log as well.
  const annotation = where && { message: error.message, title: 'RALPH.md', ...where }
  return { failure: { message: error.message, ...(annotation ? { annotation } : {}) }, finished: true }
}
