// The job summary, the pull request's text and the event context, from results built by hand.
import { describe, expect, test } from '@jest/globals'
import type { IterationRecord, LoopResult } from '../../src/loop/index.js'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { readContext } from '../../src/trigger/context.js'
import { MAX_PR_BODY_CHARS, pullRequestText } from '../../src/report/pr-body.js'
import { outcomeSentence, type RunReport } from '../../src/report/run-report.js'
import { charts } from '../../src/loop/index.js'
import { renderSummary } from '../../src/report/summary.js'

function iteration(n: number, passed: boolean, cost = 0.0123): IterationRecord {
  return {
    iteration: n,
    startedAt: '2026-11-25T10:00:00.000Z',
    durationMs: 12_000 + n * 1000,
    verdict: passed ? 'passed' : 'checks_failed',
    commands: [],
    agent: {
      preset: 'claude',
      argv: ['claude'],
      exitCode: 0,
      signal: null,
      timedOut: false,
      success: true,
      durationMs: 10_000,
      usage: { input: 1, output: 1, cache_read: 0, cache_write: 0, cost_usd: cost, cost_source: 'reported' },
      log: `logs/iteration-00${n}/agent.log`,
      notes: []
    },
    checks: [
      {
        name: 'tests',
        run: 'npm test',
        passed,
        exitCode: passed ? 0 : 1,
        timedOut: false,
        durationMs: 900,
        outputBytes: 10,
        tail: '',
        log: 'x'
      },
      {
        name: 'types',
        run: 'tsc --noEmit',
        passed: true,
        exitCode: 0,
        timedOut: false,
        durationMs: 800,
        outputBytes: 0,
        tail: '',
        log: 'y'
      }
    ],
    completion: { tag: passed, given: passed },
    failureFingerprint: ''
  }
}

function result(iterations: IterationRecord[], overrides: Partial<LoopResult> = {}): LoopResult {
  const success = iterations.at(-1)?.verdict === 'passed'
  return {
    version: 1,
    state: 'finished',
    ralph: {
      name: 'fix-tests',
      file: '/w/.agents/ralphs/fix-tests/RALPH.md',
      dir: '/w/.agents/ralphs/fix-tests'
    },
    projectRoot: '/w',
    workTree: '/w',
    recordDir: '/tmp/record',
    startedAt: '2026-11-25T10:00:00.000Z',
    finishedAt: '2026-11-25T10:01:00.000Z',
    durationMs: 61_000,
    budgets: { maxIterations: 10, maxTimeSeconds: 3600 },
    start: {},
    iterations,
    cost: {
      totalUsd: iterations.reduce((sum, it) => sum + (it.agent?.usage.cost_usd ?? 0), 0),
      source: 'reported',
      enforced: true,
      tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 }
    },
    success,
    warnings: [],
    stopReason: success ? 'all_checks_passed' : 'max_iterations',
    stopDetail: success
      ? `every check passed in iteration ${iterations.length}`
      : 'reached the cap of 10 iterations',
    ...overrides
  }
}

function report(status: LoopResult, delivery: Partial<RunReport['delivery']> = {}): RunReport {
  return {
    status,
    task: {
      name: 'fix-tests',
      file: '.agents/ralphs/fix-tests/RALPH.md',
      text: '# Fix the tests\n\nMake them pass.'
    },
    delivery: { branch: 'ralph/fix-tests', pushed: false, problems: [], notes: [], ...delivery },
    links: {
      run: 'https://github.com/o/r/actions/runs/42',
      artifact: 'https://github.com/o/r/actions/runs/42/artifacts/7',
      artifactName: 'ralph-fix-tests-42-1'
    }
  }
}

describe('the outcome in one sentence', () => {
  const pr = { number: 12, url: 'https://github.com/o/r/pull/12', operation: 'created' as const }
  test.each([
    [
      report(result([iteration(1, false), iteration(2, true)]), { pushed: true, pullRequest: pr }),
      '✅ **fix-tests** passed every gate in iteration 2 and opened pull request [#12](https://github.com/o/r/pull/12).'
    ],
    [
      report(result([iteration(1, true)]), { pushed: true, pullRequest: { ...pr, operation: 'updated' } }),
      '✅ **fix-tests** passed every gate in iteration 1 and updated pull request [#12](https://github.com/o/r/pull/12).'
    ],
    [
      report(result([iteration(1, true)]), { skipped: 'the loop left no change against main' }),
      '✅ **fix-tests** passed every gate in iteration 1; the loop left no change against main.'
    ],
    [
      report(result([iteration(1, true)]), { problems: ['GitHub refused the push.'] }),
      '⚠️ **fix-tests** passed every gate in iteration 1, but the work was not delivered: GitHub refused the push.'
    ],
    [
      report(result([iteration(1, false), iteration(2, false)])),
      '❌ **fix-tests** used all 2 iterations without passing its gates (reached the cap of 10 iterations).'
    ],
    [
      report(result([iteration(1, false), { ...iteration(2, true), verdict: 'checks_passed_no_tag' }])),
      '❌ **fix-tests** used all 2 iterations: its gates pass, but the agent never gave the completion tag (the input `completion-tag: none` lets the gates alone decide).'
    ],
    [
      report(
        result([iteration(1, false)], { stopReason: 'timeout', stopDetail: 'the total time budget is spent' })
      ),
      '⏱️ **fix-tests** ran out of time after 1 iteration (the total time budget is spent).'
    ],
    [
      report(
        result([iteration(1, false)], {
          stopReason: 'budget_exhausted',
          stopDetail: 'the cost budget ($1) is spent'
        })
      ),
      '💸 **fix-tests** ran out of budget after 1 iteration (the cost budget ($1) is spent).'
    ],
    [
      report(result([], { stopReason: 'cancelled', stopDetail: 'cancelled' })),
      '⏹️ **fix-tests** was cancelled after 0 iterations (cancelled).'
    ],
    // A crash is told apart from failing gates (💥, as in the tracking comment; it was ❌ here).
    [
      report(result([iteration(1, false)], { stopReason: 'agent_error', stopDetail: 'the agent exited 1' })),
      '💥 **fix-tests** stopped after 1 iteration on an error (the agent exited 1).'
    ]
  ])('%#', (r, sentence) => {
    expect(outcomeSentence(r)).toBe(sentence)
  })
})

test('the summary: facts, links, the iteration table with each gate, the gates, the charts', () => {
  const r = report(result([iteration(1, false), iteration(2, true)]), {
    pushed: true,
    pullRequest: { number: 3, url: 'https://github.com/o/r/pull/3', operation: 'created' }
  })
  const md = renderSummary(r)
  expect(md).toContain(
    '**Stop reason:** `all_checks_passed` · **Iterations:** 2 of 10 · **Cost:** $0.0246 (reported) · **Duration:** 1m 01s'
  )
  expect(md).toContain(
    '[Pull request #3](https://github.com/o/r/pull/3) · branch `ralph/fix-tests` · [Run record (`ralph-fix-tests-42-1`)](https://github.com/o/r/actions/runs/42/artifacts/7) · [This run](https://github.com/o/r/actions/runs/42)'
  )
  expect(md).toContain('| # | Verdict | `tests` | `types` | Cost | Duration |')
  // Each gate with its duration: which gate to speed up.
  expect(md).toContain('| 1 | ❌ gates failed | ✗ 0.9s | ✓ 0.8s | $0.0123 | 13s |')
  expect(md).toContain('| 2 | ✅ passed | ✓ 0.9s | ✓ 0.8s | $0.0123 | 14s |')
  expect(md).toContain('| `tests` | `npm test` | – | ✓ passed |')
  expect(charts(r.status)).toBe(
    [
      '```mermaid',
      'xychart-beta',
      '  title "Cost per iteration (USD)"',
      '  x-axis "Iteration" [1, 2]',
      '  y-axis "USD" 0 --> 0.0135',
      '  bar [0.0123, 0.0123]',
      '```',
      '',
      '```mermaid',
      'xychart-beta',
      '  title "Duration per iteration (seconds)"',
      '  x-axis "Iteration" [1, 2]',
      '  y-axis "seconds" 0 --> 16',
      '  bar [13, 14]',
      '  line [13, 14]',
      '```'
    ].join('\n')
  )
})

test('the baseline is row 0 of the table in the summary and the pull request body; skip-if-green says nothing ran', () => {
  const first = iteration(1, true)
  const baseline = {
    startedAt: '2026-11-25T09:59:50.000Z',
    durationMs: 4_200,
    verdict: 'failing' as const,
    checks: first.checks.map(c => ({ ...c, passed: c.name === 'types', durationMs: c.durationMs * 3 })),
    checksMs: 2_700,
    parallel: true
  }
  const r = report(result([first], { baseline }))
  const row = '| 0 | 🔎 baseline: gates failing | ✗ 2.7s | ✓ 2.4s | – | 4s |'
  expect(renderSummary(r)).toContain(
    `| # | Verdict | \`tests\` | \`types\` | Cost | Duration |\n| --- | --- | --- | --- | --- | --- |\n${row}\n| 1 | ✅ passed |`
  )
  expect(pullRequestText(r).body).toContain(row)
  // The charts are of iterations (agent runs) only.
  expect(charts(r.status)).toContain('x-axis "Iteration" [1]')

  const green = report(
    result([], {
      baseline: { ...baseline, verdict: 'green', checks: first.checks },
      stopReason: 'already_green',
      stopDetail: 'every check passed before any agent ran (skip-if-green), so no agent ran',
      success: true
    }),
    { skipped: 'every gate passed before any agent ran, so there was nothing to do and nothing was pushed' }
  )
  expect(outcomeSentence(green)).toBe(
    '✅ **fix-tests**: every gate already passed before any agent ran (skip-if-green), so no agent ran and nothing was spent.'
  )
  const md = renderSummary(green)
  expect(md).toContain('**Stop reason:** `already_green` · **Iterations:** 0 of 10')
  expect(md).toContain('| 0 | ✅ baseline: gates pass | ✓ 0.9s | ✓ 0.8s | – | 4s |')
  expect(md).toContain('| `tests` | `npm test` | ✓ passed | – |')
  expect(md).not.toContain('mermaid')
})

describe('the gates start to end, where reviewers look', () => {
  const failing = `TAP version 13\n# Subtest: add\nnot ok 1 - add returns the sum\n  AssertionError: 0 !== 3\n# pass 0\n# fail 1\n`
  const baseline = (): NonNullable<LoopResult['baseline']> => ({
    startedAt: '2026-11-25T09:59:50.000Z',
    durationMs: 4_200,
    verdict: 'failing',
    checks: iteration(1, false).checks.map(c => (c.passed ? c : { ...c, tail: failing })),
    checksMs: 2_700,
    parallel: false
  })
  const commit = 'abcdef0123456789abcdef0123456789abcdef01'
  const verification = (verdict: 'passed' | 'failed'): NonNullable<LoopResult['verification']> => ({
    commit,
    iteration: 1,
    startedAt: '2026-11-25T10:00:30.000Z',
    durationMs: 3_000,
    verdict,
    setup: [],
    // The end is the clean checkout's run, with a test count where the check run has one.
    checks: iteration(1, verdict === 'passed').checks.map(c =>
      c.name === 'tests' && c.passed ? { ...c, tests: { run: 12, passed: 12, failed: 0, skipped: 0 } } : c
    ),
    checksMs: 1_700,
    protectedReverts: ['calc.test.js']
  })

  test('each gate failing at the start with why, passing at the end with its count, verified on the sha', () => {
    const first = iteration(1, true)
    first.verification = verification('passed')
    const r = report(
      result([first], { baseline: baseline(), verify: 'clean', verification: first.verification })
    )
    const body = pullRequestText(r).body
    expect(body).toContain(
      [
        '| Gate | Command | At the start | At the end |',
        '| --- | --- | --- | --- |',
        '| `tests` | `npm test` | ✗ exit 1: `not ok 1 - add returns the sum · AssertionError: 0 !== 3` | ✓ 12/12 tests passed |',
        '| `types` | `tsc --noEmit` | ✓ passed | ✓ passed |'
      ].join('\n')
    )
    expect(body).toContain('**Verified on a clean checkout of `abcdef012345`**')
    expect(body).toContain('Protected paths put back from the base before its gates ran: `calc.test.js`.')
    expect(renderSummary(r)).toContain('**Verified on a clean checkout of `abcdef012345`**')
  })

  test('a clean checkout that failed says so; verify: tree says nothing was verified', () => {
    const first = iteration(1, false)
    first.verification = verification('failed')
    const failed = report(result([first], { verify: 'clean', verification: first.verification }), {})
    expect(renderSummary(failed)).toContain('**The gates failed on a clean checkout of `abcdef012345`**')
    const tree = report(result([iteration(1, true)], { verify: 'tree' }))
    expect(pullRequestText(tree).body).toContain('Not verified on a clean checkout (`verify: tree`)')
  })
})

test("with more gates than columns, the table names each row's slowest gate", () => {
  const it = iteration(1, false)
  it.checks = Array.from({ length: 7 }, (_, i) => ({
    ...it.checks[0],
    name: `g${i}`,
    durationMs: i === 4 ? 61_000 : 500
  }))
  expect(renderSummary(report(result([it])))).toContain(
    '| 1 | ❌ gates failed | 0/7 ✓ (slowest `g4` 1m 01s) | $0.0123 | 13s |'
  )
})

test('a huge task is cut so the pull request body fits, and an issue is closed when one started the run', () => {
  const r = report(result([iteration(1, true)]))
  r.task = { name: 'task-1234abcd', text: `Do the thing.\n${'word '.repeat(40_000)}` }
  const text = pullRequestText(r, { closes: 5 })
  expect(text.body.length).toBeLessThanOrEqual(MAX_PR_BODY_CHARS)
  expect(text.body).toContain('The task is cut here')
  expect(text.body.trimEnd().endsWith('Closes #5')).toBe(true)
  expect(text.title).toBe('ralph task-1234abcd: Do the thing.')
  expect(pullRequestText(r, { title: 'Mine' }).title).toBe('Mine')
})

test("a ralph's default title is its own first heading, else what its gates say, never the agent's first instruction", () => {
  const r = report(result([iteration(1, false), iteration(2, true)]))
  r.task = {
    name: 'fix-tests',
    file: 'fix-tests/RALPH.md',
    text: 'You are fixing the failing tests of this project, one test per iteration.\n\nRun {{ commands.tests }}.'
  }
  expect(pullRequestText(r).title).toBe('ralph fix-tests: tests, types green after 2 iterations')
  expect(pullRequestText(r, { failing: true }).title).toBe(
    '[gates failing] ralph fix-tests: after 2 iterations'
  )
  r.task.text = '<!-- # not this -->\nYou are fixing tests.\n\n## Make the {{ args.suite }} suite green\n'
  expect(pullRequestText(r).title).toBe('ralph fix-tests: Make the suite green')
})

test('the default title documented for pr-title is the one these tests pin', () => {
  const description = /^ {2}pr-title:\n {4}description: "(.*)"$/m.exec(
    readFileSync('action.yml', 'utf8')
  )?.[1]
  expect(description).toBe(
    "The pull request's title. Default `ralph <name>: <headline>`: a ralph's first heading (else what its gates say, `tests green after 2 iterations`), an inline task's first line; `[gates failing] ` first on a draft of failing work; cut at 72 characters."
  )
  const r = report(result([iteration(1, false), iteration(2, true)]))
  r.task = { name: 'fix-tests', file: 'fix-tests/RALPH.md', text: 'No heading.' }
  expect(pullRequestText(r).title).toMatch(/^ralph fix-tests: tests, types green after 2 iterations$/)
  r.task = { name: 't', text: `${'x'.repeat(100)}\n` }
  expect(pullRequestText(r).title).toBe(`ralph t: ${'x'.repeat(71)}…`)
})

describe('the event context', () => {
  test('readContext types the event once: an issue comment on a pull request says so', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-context-'))
    const file = path.join(dir, 'event.json')
    writeFileSync(
      file,
      JSON.stringify({
        action: 'created',
        issue: { number: 5, title: 'Bug', body: 'b', user: { login: 'octocat' }, pull_request: { url: 'x' } },
        comment: { id: 9, body: '/ralph', user: { login: 'octocat', type: 'User' } },
        repository: { full_name: 'acme/widgets', default_branch: 'trunk' }
      })
    )
    const context = readContext({ GITHUB_EVENT_NAME: 'issue_comment', GITHUB_EVENT_PATH: file })
    expect(context.repo).toEqual({ owner: 'acme', repo: 'widgets' })
    expect(context.defaultBranch).toBe('trunk')
    expect(context.payload).toMatchObject({ comment: { id: 9 } })
    expect(context.event).toMatchObject({
      name: 'issue_comment',
      issue: { number: 5, isPullRequest: true },
      comment: { id: 9, author: 'octocat', authorType: 'User' }
    })
    const broken = path.join(dir, 'broken.json')
    writeFileSync(broken, '{')
    expect(readContext({ GITHUB_EVENT_NAME: 'issues', GITHUB_EVENT_PATH: broken }).event).toEqual({
      name: 'unsupported',
      eventName: 'issues'
    })
    rmSync(dir, { recursive: true, force: true })
  })
})
