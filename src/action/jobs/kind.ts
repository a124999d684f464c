// THE one place that reads `mode`, `resume` and `dry-run`: the job kind, decided once, and the values that make
// one kind differ from another, passed down to the steps (which never ask the mode again).
import type { ActionInputs } from '../inputs.js'

export type JobKindName = 'one' | 'agent' | 'deliver' | 'resumed' | 'list' | 'dry-run' | 'reserve'

export interface JobKind {
  kind: JobKindName
  /** It writes to GitHub (replies, 👀, the tracking comment, the hunt's report): not the agent job of two. */
  writes: boolean
  /** Appended to the record artifact's name: the deliver job's record is an artifact of its own beside the agent job's. */
  artifactSuffix: string
  /** install-agent installs the agent: not in the deliver job, which runs none. */
  installsAgent: boolean
  /** The model proxy may run (model-proxy): not in the deliver job, which holds no model key and needs none. */
  meters: boolean
  /** The delivery is this job's: pushes and pull requests, asked for before any agent runs (can-deliver.ts). */
  delivers: boolean
  /** The gates' verdict: the loop's own (`loop`), or the agent job's claim checked on a clean checkout (`again`). */
  verification: 'loop' | 'again'
  /** The held-out gates run at this job's clean verification: not in the agent job of two (the deliver job's). */
  holdout: boolean
  /** An agent runs in this job: not in the deliver job (held-out gates need the agent's own user then). */
  runsAgent: boolean
  /** A dry run of a chain's next run checks that run first, as the run would: the run `resume` names. */
  resumes?: string
}

const ONE: Omit<JobKind, 'kind'> = {
  writes: true,
  artifactSuffix: '',
  installsAgent: true,
  meters: true,
  delivers: true,
  verification: 'loop',
  holdout: true,
  runsAgent: true
}

/** The job kind of these inputs, and its values. */
export function jobKind(
  inputs: Pick<ActionInputs, 'mode'> & Partial<Pick<ActionInputs, 'resume' | 'dryRun'>>
): JobKind {
  const writes = inputs.mode !== 'agent'
  const running = inputs.mode === 'run'
  const deliverJob = inputs.mode === 'deliver'
  const values = {
    ...ONE,
    writes,
    installsAgent: !deliverJob,
    meters: !deliverJob,
    delivers: running,
    ...(inputs.resume !== undefined ? { resumes: inputs.resume } : {})
  }
  if (inputs.mode === 'list')
    return { ...values, kind: 'list', delivers: false, holdout: false, runsAgent: false }
  // The first job of two with a budget (#38): it reserves the lease, and runs no agent.
  if (inputs.mode === 'reserve')
    return {
      ...values,
      kind: 'reserve',
      delivers: false,
      installsAgent: false,
      meters: false,
      holdout: false,
      runsAgent: false
    }
  if (inputs.dryRun) return { ...values, kind: 'dry-run', holdout: false, runsAgent: false }
  if (inputs.mode === 'agent') return { ...values, kind: 'agent', holdout: false }
  if (deliverJob)
    return {
      ...values,
      kind: 'deliver',
      artifactSuffix: '-deliver',
      verification: 'again',
      runsAgent: false
    }
  if (inputs.resume !== undefined) return { ...values, kind: 'resumed' }
  return { ...values, kind: 'one' }
}
