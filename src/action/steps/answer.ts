// The answer step of a review or CI round, after its delivery: the replies naming the pushed commit in the
// review's open threads, the threads resolved when resolve-threads says so, and the one summary comment that
// counts the round (its marker). The record gets round.json: which review or CI failure the run worked on.
// A run that is no round answers nothing; a failure to post is a warning, never the run's failure.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import type { Octokit } from '../../github/client.js'
import { answerRound, type PostedAnswer } from '../../github/round-answer.js'
import type { CheckRun, LoopResult } from '../../loop/index.js'
import type { DeliveryReport } from '../../report/run-report.js'
import { roundRecord } from '../../trigger/fix-rounds.js'
import { planRoundAnswer, type RoundOutcome } from '../../trigger/round-replies.js'
import type { FixRound } from '../../trigger/types.js'
import type { Prepared } from './types.js'

export interface AnswerInputs {
  /** The round the run answers; undefined for any other run (nothing to answer). */
  round: FixRound | undefined
  result: LoopResult
  delivery: DeliveryReport
  /** The job token's client: the answer is the action's comment, as the round's count reads it back. */
  octokit: () => Promise<Octokit>
  repo: { serverUrl: string; owner: string; repo: string }
  runUrl: string
  resolveThreads: boolean
  recordDir: string
}

const passing = (checks: CheckRun[]): { passed: number; total: number } => ({
  passed: checks.filter(check => check.passed).length,
  total: checks.length
})

/** How the round ended, in the plain values its answer is written from. */
export function roundOutcome(result: LoopResult, delivery: DeliveryReport, runUrl: string): RoundOutcome {
  const pushed = delivery.pushed && delivery.commit !== undefined ? delivery.commit : undefined
  const last = result.iterations.at(-1)
  const verified = result.verification?.verdict === 'passed' ? result.verification.commit : undefined
  return {
    ...(pushed
      ? { pushed }
      : {
          notPushed:
            delivery.problems[0]?.replace(/\.$/, '') ??
            delivery.skipped ??
            `the loop stopped (${result.stopReason}) without work to push`
        }),
    stopReason: result.stopReason,
    iterations: result.iterations.length,
    ...(result.baseline && last
      ? { gates: { start: passing(result.baseline.checks), end: passing(last.checks) } }
      : {}),
    costUsd: result.cost.totalUsd,
    ...(verified ? { verified } : {}),
    runUrl
  }
}

/** What the answer step takes, from a prepared run. */
export function answerInputs(prepared: Prepared, result: LoopResult, delivery: DeliveryReport): AnswerInputs {
  const { plan, clients } = prepared
  return {
    round: plan.trigger?.round,
    result,
    delivery,
    octokit: clients.octokit,
    repo: { serverUrl: plan.context.serverUrl, ...plan.context.repo },
    runUrl: plan.context.runUrl,
    resolveThreads: plan.inputs.resolveThreads,
    recordDir: plan.config.recordDir
  }
}

/** Answers the round on its pull request (when the run is one) and records it in round.json. */
export async function answerStep(given: AnswerInputs): Promise<void> {
  const { round, delivery } = given
  if (!round) return
  const outcome = roundOutcome(given.result, delivery, given.runUrl)
  const planned = planRoundAnswer(round, outcome, { resolveThreads: given.resolveThreads, repo: given.repo })
  let posted: PostedAnswer
  try {
    posted = await answerRound(
      await given.octokit(),
      { owner: given.repo.owner, repo: given.repo.repo, pullNumber: round.pullNumber },
      planned
    )
  } catch (error) {
    posted = { replied: 0, resolved: 0, problems: [(error as Error).message.split('\n')[0]] }
  }
  for (const problem of posted.problems) core.warning(`The round's answer: ${problem}.`)
  core.info(
    `Answered the ${round.kind} round on #${round.pullNumber}: ${posted.replied} repl${posted.replied === 1 ? 'y' : 'ies'}, ${posted.resolved} thread${posted.resolved === 1 ? '' : 's'} resolved${posted.summaryUrl ? `, the summary ${posted.summaryUrl}` : ''}.`
  )
  writeFileSync(
    path.join(given.recordDir, 'round.json'),
    `${JSON.stringify({ ...roundRecord(round), ...outcome, answer: posted }, null, 2)}\n`
  )
}
