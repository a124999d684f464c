// Step: runners — each gate's test runner recognised before iteration 1, so its count may not shrink.
import type { IterationMemory } from '../environment.js'
import { recogniseGates, startPackageJson } from '../test-count.js'
import type { LoopRun } from './run.js'

export async function recogniseRunners(run: LoopRun, memory: IterationMemory): Promise<IterationMemory> {
  const { env, status, config } = run
  if (!run.gated) return memory
  const packageJson = await startPackageJson(env.workspace, env.workTree, status.start.commit)
  const testRunners = recogniseGates(
    config.checks.map(check => check.run),
    packageJson
  )
  const uncounted = config.checks.flatMap((check, i) => {
    const found = testRunners[i]
    return found.runner === undefined ? [{ check: check.name, why: found.why }] : []
  })
  if (uncounted.length > 0) status.uncounted = uncounted
  return { ...memory, testRunners }
}
