// A workflow run as GitHub says it: what the chain asks of the run it goes on from, and of this one.
import type { Octokit } from '../../github/client.js'
import type { RunContext } from '../../trigger/context.js'

/** The workflow this run belongs to, as GitHub numbers it. */
export async function workflowOf(
  octokit: Octokit,
  context: RunContext,
  runId: string
): Promise<RunFacts | undefined> {
  try {
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', {
      ...context.repo,
      run_id: Number(runId)
    })
    return {
      workflowId: data.workflow_id,
      path: data.path ?? '',
      repository: data.repository.full_name,
      headRepository: data.head_repository?.full_name ?? '',
      headBranch: data.head_branch ?? '',
      runAttempt: data.run_attempt ?? 1,
      conclusion: data.conclusion ?? null
    }
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined
    throw error
  }
}

export interface RunFacts {
  workflowId: number
  path: string
  repository: string
  headRepository: string
  headBranch: string
  runAttempt: number
  /** `cancelled`, `success`, …; null while it runs. */
  conclusion: string | null
}

/** This run's workflow id (the next run is dispatched on it). */
export async function ownWorkflow(octokit: Octokit, context: RunContext): Promise<number> {
  const own = await workflowOf(octokit, context, context.runId)
  if (!own)
    throw new Error(
      `GitHub does not know this run (${context.runId}) in ${context.repo.owner}/${context.repo.repo}`
    )
  return own.workflowId
}
