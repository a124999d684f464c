// Step: record — the starting status (the chain's iterations, baseline and cost in it when the loop resumes
// one) and the record folder that holds it.
import { fileProblem, RalphError } from '../../ralph/index.js'
import { RunRecord } from '../record.js'
import { startingStatus } from '../status.js'
import type { LoopConfig, LoopStatus } from '../types.js'
import type { Metered } from './meter.js'
import type { Opened } from './open.js'
import type { Resumed } from './resume.js'
import { iso } from '../iso.js'

/** Throws RalphError when the record folder cannot be written (nothing has run then). */
export function openRecord(
  config: LoopConfig,
  opened: Opened,
  { proxied }: Pick<Metered, 'proxied'>,
  resumed: Resumed,
  startedAt: number
): { status: LoopStatus; record: RunRecord } {
  const status = startingStatus({
    ralph: { name: config.ralph.name, file: config.ralph.file, dir: config.ralph.dir },
    projectRoot: config.projectRoot,
    workTree: opened.workTree,
    recordDir: config.recordDir,
    startedAt: iso(startedAt),
    budgets: {
      ...(config.maxIterations !== undefined ? { maxIterations: config.maxIterations } : {}),
      ...(config.maxTimeSeconds !== undefined ? { maxTimeSeconds: config.maxTimeSeconds } : {}),
      ...(config.maxCostUsd !== undefined ? { maxCostUsd: config.maxCostUsd } : {}),
      ...(config.agentTimeoutSeconds !== undefined ? { agentTimeoutSeconds: config.agentTimeoutSeconds } : {})
    }
  })
  if (opened.worktree) status.worktree = opened.worktree
  if (resumed.chain && resumed.cost) {
    status.iterations = [...resumed.iterations]
    if (resumed.baseline) status.baseline = resumed.baseline
    status.chain = { jobs: resumed.chain.jobs }
    const { maxUsd: _earlierCap, ...cost } = resumed.cost
    status.cost = { ...cost, ...(config.maxCostUsd !== undefined ? { maxUsd: config.maxCostUsd } : {}) }
    if (!resumed.cost.enforced) status.cost.enforced = false
  }
  if (proxied) status.modelProxy = { upstream: proxied.upstream, requests: 0, refused: [] }
  try {
    return { status, record: RunRecord.create(config.recordDir, status, resumed.chain?.record) }
  } catch (error) {
    throw new RalphError(`The record folder ${config.recordDir} cannot be written: ${fileProblem(error)}.`)
  }
}
