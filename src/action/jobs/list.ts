// `mode: list`: the installed ralphs as matrix JSON for a later job's matrix; nothing runs.
import * as core from '@actions/core'
import { ralphMatrix } from '../../cli/list.js'
import { projectRootOf } from '../steps/admit.js'
import type { StepEnd } from '../steps/ending.js'
import type { ReadRun } from '../steps/types.js'

export function listJob({ inputs, context }: ReadRun): StepEnd {
  const m = ralphMatrix(projectRootOf(context, inputs))
  for (const why of m.skipped) core.warning(`Left out of the matrix: ${why}`)
  core.info(`${m.count} ralph${m.count === 1 ? '' : 's'} for the matrix: ${JSON.stringify(m.matrix)}`)
  return { outputs: { matrix: JSON.stringify(m.matrix), count: String(m.count) }, finished: true }
}
