// Step: a person's work under protected paths — a tree that already differs from the start commit there (a
// vendored folder or an edit not yet committed) stops the loop before setup and any agent (protected-at-start.ts
// says why). Only where the put-back will run (a gated loop) and on the tree a person handed it, not a chain's.
import { protectedWorkBeforeTheLoop } from '../protected-at-start.js'
import type { Stop } from '../stop.js'
import type { Resumed } from './resume.js'
import type { LoopRun } from './run.js'

export async function workBeforeTheLoop(run: LoopRun, resumed: Resumed): Promise<Stop | undefined> {
  const { protection } = run.env
  if (!protection || !run.gated || resumed.chain) return undefined
  const refusal = await protectedWorkBeforeTheLoop(protection)
  if (!refusal) return undefined
  run.status.error = refusal
  run.record.writeStatus(run.status)
  return { reason: 'agent_error', detail: refusal }
}
