// `ralph-action list` (and the action's `mode: list`): the repository's installed ralphs as JSON for a
// `strategy.matrix`. The shape is `{"ralph":["a","b"]}`: a matrix with one vector, so
// `strategy: { matrix: ${{ fromJSON(needs.list.outputs.matrix) }} }` gives each job `matrix.ralph`.
import { listInstalledRalphs, NAME_RE } from '../ralph/index.js'
import { installedRalph } from '../ralph/installed.js'
import { parseArgs } from './argv.js'
import type { CliIO } from './io.js'

/** GitHub runs at most 256 jobs from one matrix. */
export const MAX_MATRIX_JOBS = 256

export interface RalphMatrix {
  /** The matrix: `{ ralph: [...] }`, sorted. Empty when there are none (guard the job with `count`). */
  matrix: { ralph: string[] }
  count: number
  /** Folders left out, each with why (a name a matrix value, a branch or a concurrency group cannot carry). */
  skipped: string[]
}

/**
 * The project's own ralphs (`<projectRoot>/.agents/ralphs/<name>/RALPH.md`): a matrix job runs on a runner
 * whose home has none of the user's. Names outside letters, digits, - and _ are left out, so a matrix
 * value is safe in a branch name, a concurrency group or an expression; so are ralphs whose files leave the
 * project through a link (ralph/installed.ts).
 */
export function ralphMatrix(projectRoot: string): RalphMatrix {
  const names: string[] = []
  const skipped: string[] = []
  for (const name of listInstalledRalphs(projectRoot, '/nonexistent')) {
    if (!NAME_RE.test(name)) {
      skipped.push(`${JSON.stringify(name)}: a ralph's name may only hold letters, digits, - and _`)
      continue
    }
    // The same containment rule as every other door: a ralph whose files leave the project is not listed.
    const installed = installedRalph(projectRoot, name)
    if ('problem' in installed) skipped.push(`${name}: ${installed.problem}`)
    else names.push(name)
  }
  for (const name of names.splice(MAX_MATRIX_JOBS))
    skipped.push(`${name}: a matrix runs at most ${MAX_MATRIX_JOBS} jobs`)
  return { matrix: { ralph: names }, count: names.length, skipped }
}

export async function listCommand(args: string[], io: CliIO): Promise<number> {
  parseArgs(args, [])
  const { matrix, skipped } = ralphMatrix(io.cwd)
  for (const why of skipped) io.stderr(`Skipped ${why}\n`)
  io.stdout(`${JSON.stringify(matrix)}\n`)
  return 0
}
