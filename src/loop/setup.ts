// What the loop settles before anything runs: the settings checked, the agent's preset, and the work tree
// (a git worktree when asked, with the project root and the ralph's folder mapped into it).
import { existsSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { costReading, costWarning, modelNamed, presetFor, type AgentPreset } from '../agents/index.js'
import { GitWorkspace, createWorktree, type Workspace } from '../git/index.js'
import { RalphError, type Ralph } from '../ralph/index.js'
import { defaultBranch, gateSettingsProblem } from './defaults.js'
import type { LoopConfig, LoopPorts, LoopStatus } from './types.js'

/** The nearest existing ancestor's real path, plus the rest: comparable with realpath'd work trees. */
function realish(p: string): string {
  const abs = path.resolve(p)
  if (existsSync(abs)) return realpathSync(abs)
  const parent = path.dirname(abs)
  return parent === abs ? abs : path.join(realish(parent), path.basename(abs))
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(realish(parent), realish(child))
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

/** Throws RalphError for settings that cannot work, before anything runs or is written. */
function checkConfig(config: LoopConfig, workspace: Workspace, isRepo: boolean): void {
  if (isInside(config.recordDir, workspace.root) || isInside(config.recordDir, config.projectRoot))
    throw new RalphError(
      `The record folder ${config.recordDir} is inside the work tree ${workspace.root}: the record must never be ` +
        'committed or seen by the agent. Choose a folder outside it (the default is under the system temp dir).'
    )
  if ((config.commit || config.worktree) && !isRepo)
    throw new RalphError(
      `${config.worktree ? '--worktree' : '--commit'} needs a git repository, and ${config.projectRoot} is not in one: run it inside one (git init), or leave ${config.worktree ? '--worktree' : '--commit'} out.`
    )
  if (config.maxIterations !== undefined && !(config.maxIterations >= 1))
    throw new RalphError(`maxIterations must be at least 1, got ${config.maxIterations}.`)
  const problem = gateSettingsProblem(config)
  if (problem) throw new RalphError(problem)
}

/** The preset the loop runs its agent with (the action's log uses it too, to render the same way). */
export function agentPresetFor(config: LoopConfig): AgentPreset {
  // The reference runtime has no dollar budget: with one, the agent's cost must be readable.
  const flags = config.maxCostUsd !== undefined ? 'all' : (config.presetFlags ?? 'all')
  try {
    return presetFor(config.ralph.agentArgv, { presets: config.presets, flags, cost: config.agentCost })
  } catch (error) {
    throw new RalphError((error as Error).message)
  }
}

/** What to warn before iteration 1 when the dollar budget may not hold (the agent's cost cannot be known). */
export function costWarningBefore(
  config: LoopConfig,
  preset: AgentPreset,
  proxied: boolean
): string | undefined {
  if (config.maxCostUsd === undefined) return undefined
  const model = modelNamed(preset.name, config.ralph.agentArgv, { ...process.env, ...config.agentEnv?.set })
  return costWarning(costReading({ preset, model, proxied, cost: config.agentCost }), config.maxCostUsd)
}

/** Where the loop works: the workspace, and the ralph as seen from inside it. */
export interface WorkTree {
  workspace: Workspace
  isRepo: boolean
  /** The project root the agent works in (inside the worktree when there is one). */
  workTree: string
  ralph: Ralph
  worktree?: LoopStatus['worktree']
}

/**
 * Opens the work tree, after checking the settings (throws RalphError for settings that cannot work, or a
 * worktree that cannot be created). The caller disposes of the answered workspace.
 */
export async function openWorkTree(
  config: LoopConfig,
  ports: LoopPorts,
  startedAt: number
): Promise<WorkTree> {
  const limit = { maxFileBytes: config.maxFileBytes }
  let workspace = ports.workspace ?? (await GitWorkspace.open(config.projectRoot, limit))
  const isRepo = await workspace.isRepo()
  checkConfig(config, workspace, isRepo)
  if (!config.worktree) return { workspace, isRepo, workTree: config.projectRoot, ralph: config.ralph }
  const repoRoot = workspace.root
  const branch = config.worktree.branch ?? defaultBranch(config.ralph.name, startedAt)
  const worktree = await createWorktree(workspace.root, { branch, dir: config.worktree.dir }).catch(
    (error: Error) => {
      throw new RalphError(`The worktree for this run could not be created: ${error.message}`)
    }
  )
  await workspace.dispose()
  workspace = await GitWorkspace.open(worktree.dir, limit)
  // The project root and the ralph's folder map to the same places inside the worktree (so `./` scripts
  // act on the worktree too); a ralph folder outside the repository, or not committed, stays put.
  const inWorktree = (dir: string): string | undefined => {
    if (!isInside(dir, repoRoot)) return undefined
    const mapped = path.join(worktree.dir, path.relative(realish(repoRoot), realish(dir)))
    return existsSync(mapped) ? mapped : undefined
  }
  return {
    workspace,
    isRepo: true,
    workTree: inWorktree(config.projectRoot) ?? worktree.dir,
    ralph: { ...config.ralph, dir: inWorktree(config.ralph.dir) ?? config.ralph.dir },
    worktree
  }
}
