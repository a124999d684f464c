// What the rounds e2e files (issue #39) set up: an agent that keeps its prompt, a failed run of the repository's
// CI with a failing job's log, and a review with the action's run on it.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { DONE, FIX, agentScript } from './fixtures.js'
import { runAction, type ActionRun, type Project } from './harness.js'
import type { E2eSuite } from './suite.js'
import type { ReviewCommentRecord, ReviewRecord, WorkflowRunRecord } from '../support/github-api/index.js'

/** The repository's CI workflow, the one `ci-fix: ci.yml` names. */
export const CI = '.github/workflows/ci.yml'

export interface Rounds {
  /** An agent that keeps its prompt in the scratch folder, then does `step` (the fix, by default). */
  promptKeeper(step?: string): { script: string; prompt: () => string }
  failedRun: typeof failedRun
  /** A review of pull request `number`, and the action's run on it. */
  onReview(
    p: Project,
    number: number,
    fields: Parameters<Project['api']['state']['addReview']>[1],
    inputs?: Record<string, string>
  ): Promise<{ review: ReviewRecord & { comments: ReviewCommentRecord[] }; run: ActionRun }>
}

/** A run of the CI workflow that failed on `head`'s tip, with one failing job whose log ends with `tail`. */
export function failedRun(
  p: Project,
  head: string,
  tail: string,
  fields: Partial<Omit<WorkflowRunRecord, 'workflowId'>> = {}
): WorkflowRunRecord {
  const run = p.api.state.addRun({
    workflowPath: CI,
    headBranch: head,
    headSha: p.remoteGit('rev-parse', head).trim(),
    event: 'pull_request',
    status: 'completed',
    conclusion: 'failure',
    actor: 'github-actions[bot]',
    ...fields
  })
  p.api.state.addJob(run.id, {
    name: 'test (ubuntu-latest)',
    steps: [
      { name: 'Set up job', conclusion: 'success' },
      { name: 'Run npm test', conclusion: 'failure' }
    ],
    log: [
      '2026-11-28T10:00:00.0000000Z ##[group]Run npm test',
      '2026-11-28T10:00:01.0000000Z not ok 1 - add returns the sum',
      `2026-11-28T10:00:01.1000000Z ${tail}`,
      '2026-11-28T10:00:01.2000000Z ##[error]Process completed with exit code 1.'
    ].join('\n')
  })
  p.api.state.addJob(run.id, { name: 'lint', conclusion: 'success', log: 'fine' })
  return run
}

export function rounds(e2e: E2eSuite): Rounds {
  return {
    promptKeeper(step = `${FIX}\n${DONE}`) {
      const file = path.join(e2e.scratch(), `prompt-${Math.random().toString(36).slice(2)}.md`)
      return {
        script: agentScript({ any: `fs.writeFileSync(${JSON.stringify(file)}, prompt)`, 1: step }),
        prompt: () => readFileSync(file, 'utf8')
      }
    },
    failedRun,
    async onReview(p, number, fields, inputs = {}) {
      const review = p.api.state.addReview(number, fields)
      const run = await runAction(p, e2e.stand(), {
        inputs: { ralph: 'fix-tests', ...inputs },
        eventName: 'pull_request_review',
        event: p.api.events.pullRequestReview(review.id)
      })
      return { review, run }
    }
  }
}
