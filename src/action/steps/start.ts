// The opening every job kind that runs a loop or delivers shares: admit → plan → ready (install, 👀).
import { admit, clientsFor } from './admit.js'
import { endsHere, type Step } from './ending.js'
import { planRun, readyToRun } from './plan.js'
import type { Planned, ReadRun } from './types.js'

/** The job kind's values it needs (jobs/kind.ts): steps take values, never the kind. */
interface KindValues {
  writes: boolean
  artifactSuffix: string
  installsAgent: boolean
}

export async function admitAndPlan(read: ReadRun, kind: KindValues): Promise<Step<Planned>> {
  const admitted = await admit(read, clientsFor(read.inputs, kind.writes))
  if (endsHere(admitted)) return admitted
  const planned = await planRun(admitted, kind.artifactSuffix)
  if (endsHere(planned)) return planned
  return readyToRun(planned, kind.installsAgent)
}
