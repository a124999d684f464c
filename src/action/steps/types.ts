// What the steps of a job hand each other: each step's result is the last one's and more. Types only, importing
// nothing of the steps above them, so that any step, the chain and the handover can name them without a circle.
import type { CommitIdentity, PreparedBranch } from '../../git/index.js'
import type { Octokit } from '../../github/client.js'
import type { TokenActor } from '../../github/own-work.js'
import type { RetryBudget } from '../../github/retry.js'
import type { TrackingComment } from '../../github/tracking.js'
import type { LoopResult } from '../../loop/index.js'
import type { AgentIsolation } from '../../security/index.js'
import type { RunContext } from '../../trigger/context.js'
import type { Run } from '../../trigger/types.js'
import type { ActionInputs } from '../inputs.js'
import type { RunPlan } from '../plan.js'

/** The GitHub clients of a run, each made once, when first needed. */
export interface Clients {
  /** The job token's: the trigger's checks, replies, the tracking comment, the hunt's report. */
  octokit: () => Promise<Octokit>
  /** push-token's, else the job token's: pushes and pull requests. */
  delivery: () => Promise<Octokit>
  /** The account the delivery client acts as (asked once): its pull requests and branches are the action's. */
  deliveryActor: () => Promise<TokenActor>
  /** The account the job token acts as (asked once): its failure reports are the action's. */
  jobActor: () => Promise<TokenActor>
  /** Their retries end at its deadline, which the loop step sets from max-time. */
  budget: RetryBudget
  /**
   * Whether this job writes to GitHub (replies, 👀, the tracking comment, the hunt's report): its job kind's
   * `writes` (jobs/kind.ts). Its clients refuse any write besides.
   */
  mayWrite: boolean
}

/** The inputs and the context, read once at the start of the step. */
export interface ReadRun {
  inputs: ActionInputs
  context: RunContext
}

export interface Admitted extends ReadRun {
  clients: Clients
  trigger: Run
  /** A run no issue or pull request asked for: on the ralph's own branch, with at most one open PR. */
  hunt: boolean
}

export interface Planned extends Admitted {
  plan: RunPlan
}

export interface Prepared extends Planned {
  /** The repository's top folder. */
  workTree: string
  branch: PreparedBranch
  /** The commit identity set for the loop, restored after delivery. */
  identity: CommitIdentity
  /** The agent's own user, wherever the runner allows it. */
  isolated: AgentIsolation | undefined
  tracking: TrackingComment | undefined
}

export interface Looped {
  result: LoopResult
  /** The tracking comment's follower has seen every event of the loop. */
  followed: () => Promise<void>
}
