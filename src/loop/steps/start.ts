// Step: start — the commit and tree the loop starts from (a resumed loop: the chain's), and the protected
// paths of that commit.
import type { IterationMemory } from '../environment.js'
import { protectionOfRun } from '../protect-rules/index.js'
import type { LoopRun } from './run.js'
import type { Resumed } from './resume.js'

export async function recordStart(
  run: LoopRun,
  memory: IterationMemory,
  resumed: Resumed
): Promise<IterationMemory> {
  const { env, status, config } = run
  if (!env.isRepo) return memory
  const head = await env.workspace.headSha()
  const tree = await env.workspace.treeHash()
  // A resumed loop starts where the chain started: the change, the protected paths and the clean checkout's
  // base are the chain's, and its progress is measured from the tree it was handed.
  const commit = resumed.start ? resumed.start.commit : head
  status.start.tree = resumed.start?.tree ?? tree
  if (commit !== undefined) status.start.commit = commit
  run.warnRefused()
  const next: IterationMemory = {
    ...memory,
    startTree: status.start.tree,
    previousTree: tree,
    ...(commit !== undefined ? { startCommit: commit } : {})
  }
  if (config.protect && commit !== undefined) {
    const protection = await protectionOfRun(config, env.workTree, commit)
    if (protection) {
      run.env = { ...env, protection }
      status.protected = {
        setting: config.protect,
        rules: protection.rules,
        paths: protection.paths.size,
        ...(protection.guardrails !== undefined ? { guardrails: protection.guardrails } : {})
      }
    }
  }
  run.record.writeStatus(status)
  return next
}
