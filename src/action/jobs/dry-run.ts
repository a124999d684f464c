// `dry-run: true`: admit → plan → the first prompt. No agent runs, nothing is written but the log and the summary.
import { rmSync } from 'node:fs'
import { admitResumed } from '../chain/resume.js'
import { admit, clientsFor } from '../steps/admit.js'
import { endsHere, type StepEnd } from '../steps/ending.js'
import { firstPrompt } from '../steps/first-prompt.js'
import { planRun } from '../steps/plan.js'
import type { ReadRun } from '../steps/types.js'
import type { JobKind } from './kind.js'

export async function dryRunJob(read: ReadRun, kind: JobKind): Promise<StepEnd> {
  const clients = clientsFor(read.inputs, kind.writes)
  // A chain's next run, tried: the run it would go on from is checked first, as the run would.
  const resumed = kind.resumes !== undefined ? await admitResumed(read, clients) : undefined
  if (resumed && endsHere(resumed)) return resumed.end
  try {
    const admitted = resumed ? resumed.admitted : await admit(read, clients)
    if (endsHere(admitted)) return admitted.end
    const planned = await planRun(admitted)
    if (endsHere(planned)) return planned.end
    return await firstPrompt(planned.plan)
  } finally {
    if (resumed) rmSync(resumed.resumed.dir, { recursive: true, force: true })
  }
}
