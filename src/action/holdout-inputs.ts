// Held-out gates as inputs (#37): `holdout` (gate commands, one a line, as `checks`), where their files wait —
// `holdout-path` (a folder of the action's user's only) or `holdout-ref` (a ref of the repository, fetched only at
// the clean verification) — and `holdout-feedback` (`none` or `full`). A problem is one line naming the input and
// the fix; the caller throws it as its InputError. The folder itself is checked at planning.
import path from 'node:path'
import {
  addedChecks,
  holdoutFolderProblem,
  type HoldoutFeedback,
  type HoldoutSetting
} from '../loop/index.js'
import type { RalphCheck } from '../ralph/index.js'

export interface HoldoutInput {
  commands: string[]
  /** Exactly one of the two: the folder, or the ref (refs/…) fetched at the clean verification. */
  path?: string
  ref?: string
  feedback: HoldoutFeedback
}

/** The inputs as given: `holdout`'s lines, the others trimmed (undefined when empty). */
export interface GivenHoldout {
  commands: string[]
  path: string | undefined
  ref?: string | undefined
  feedback: string | undefined
}

const FOLDER =
  'a folder outside the workspace that only the action’s user can read, filled by an earlier step (e.g. mkdir -m 700 "$RUNNER_TEMP/holdout")'

/** The held-out gates, none (nothing given), or the problem. */
export function readHoldout(given: GivenHoldout): { holdout?: HoldoutInput } | { problem: string } {
  const feedback = given.feedback ?? 'none'
  if (feedback !== 'none' && feedback !== 'full')
    return { problem: `Input 'holdout-feedback' must be none or full, got '${feedback}'.` }
  if (given.commands.length === 0) {
    const source =
      given.path !== undefined ? 'holdout-path' : given.ref !== undefined ? 'holdout-ref' : undefined
    if (source)
      return {
        problem: `Input '${source}' is set but 'holdout' is empty: give the held-out gate commands, one a line.`
      }
    return {}
  }
  if (given.path !== undefined && given.ref !== undefined)
    return {
      problem: "Inputs 'holdout-path' and 'holdout-ref' are both set: give one source of held-out files."
    }
  if (given.ref !== undefined) {
    if (!isRefName(given.ref))
      return {
        problem: `Input 'holdout-ref' must be a full ref name such as refs/ralph/holdout, got '${given.ref}'.`
      }
    return { holdout: { commands: given.commands, ref: given.ref, feedback } }
  }
  if (given.path === undefined)
    return {
      problem: `Input 'holdout' needs 'holdout-path' (${FOLDER}) or 'holdout-ref' (a ref such as refs/ralph/holdout).`
    }
  if (!path.isAbsolute(given.path))
    return { problem: `Input 'holdout-path' must be an absolute path, got '${given.path}': ${FOLDER}.` }
  return { holdout: { commands: given.commands, path: path.normalize(given.path), feedback } }
}

/** A full ref name git would take (check-ref-format's rules, without `@{`, `*` or a leading dash). */
function isRefName(ref: string): boolean {
  return /^refs\/[A-Za-z0-9._/-]+$/.test(ref) && !/\.\.|\/\/|\/\.|\.lock(\/|$)|[/.]$/.test(ref)
}

/**
 * The held-out gates this job runs (none where they do not run: the agent job of two), named apart from `checks`;
 * or the problem: a folder another user could read or replace, or an agent run as the job's own user, who can
 * read any folder of that user.
 */
export function holdoutSetting(
  input: HoldoutInput | undefined,
  here: { holdout: boolean; runsAgent: boolean; isolation: string; verify: 'clean' | 'tree' | undefined },
  checks: RalphCheck[],
  outside: readonly string[]
): { setting?: HoldoutSetting; notice?: string } | { problem: string } {
  if (!input) return {}
  if (!here.holdout)
    return { notice: 'holdout: the held-out gates run in the deliver job; this job never holds them' }
  if (here.verify === 'tree' || checks.length === 0)
    return {
      problem:
        "Input 'holdout' needs the clean verification (gates, and verify: clean): held-out gates run there, after the other gates passed."
    }
  if (here.runsAgent && here.isolation === 'none')
    return {
      problem: `Input 'holdout' needs the agent to run as its own user (isolation: auto or user): with isolation: none it runs as the job's user and can read ${input.ref !== undefined ? "the job's token, and with it holdout-ref" : 'holdout-path'}.`
    }
  const source = input.ref !== undefined ? { ref: input.ref } : { path: input.path ?? '' }
  if ('path' in source) {
    const problem = holdoutFolderProblem(source.path, process.getuid?.() ?? -1, outside)
    if (problem) return { problem: `Input 'holdout-path': ${problem}.` }
  }
  return {
    setting: { checks: addedChecks(input.commands, checks), ...source, feedback: input.feedback }
  }
}

/**
 * Why a job whose agent cannot have a user of its own may not fall back to the job's user (`why`: what stands in
 * the way): its agent could read the held-out folder. Undefined when it may.
 */
export function holdoutFallbackRefusal(
  holdout: HoldoutSetting | undefined,
  runsAgent: boolean,
  why: string
): string | undefined {
  if (!holdout || !runsAgent) return undefined
  const reads = holdout.ref !== undefined ? "the job's token, and with it holdout-ref" : 'holdout-path'
  return `holdout needs the agent to run as its own user, which is not possible here: ${why}. As the job's user it could read ${reads}.`
}
