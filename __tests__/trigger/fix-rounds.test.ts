// What review and CI rounds share, tested where it is decided: the rounds read back from the pull request's
// markers (only the action's own comments count), once per request and up to max-fix-rounds with one notice,
// where the round's task goes in the prompt, and what the round says when it is done.
import type { TokenActor } from '../../src/github/own-work.js'
import {
  branchVerdict,
  capNotice,
  ciKey,
  placesArg,
  readRounds,
  reviewKey,
  roundAllowed,
  roundMarker,
  roundRecord,
  sayOnce,
  taskArgNames
} from '../../src/trigger/fix-rounds.js'
import { planRoundAnswer, type RoundOutcome } from '../../src/trigger/round-replies.js'
import type { CiRound, OnceNotice, ReviewRound } from '../../src/trigger/types.js'

const bot: TokenActor = { kind: 'app', login: 'github-actions[bot]' }
const ours = (body: string) => ({ user: { login: 'github-actions[bot]', type: 'Bot' }, body })

describe('readRounds: the rounds a pull request has had, from its own markers', () => {
  test('each round comment of the action counts once, by its key; the cap notice and the budget line are seen', () => {
    const ledger = readRounds(
      [
        ours(`${roundMarker({ key: reviewKey(11) })}\nReview round 1`),
        ours(`${roundMarker({ key: ciKey('ABCDEF1234') })}\nCI round 2`),
        ours(`${roundMarker({ key: reviewKey(11) })}\nthe same review again`),
        ours('A tracking comment, no marker'),
        ours(capNotice(3, 3)),
        ours(sayOnce({ said: [] }, 'budget', 'The budget is spent.') ?? '')
      ],
      bot
    )
    expect([...ledger.answered]).toEqual(['review-11', 'ci-abcdef1234'])
    expect([...ledger.said].sort()).toEqual(['budget', 'cap'])
  })

  test.each([
    ['a person who copies the marker', { login: 'mallory', type: 'User' }],
    ['another bot that copies it', { login: 'other-app[bot]', type: 'Bot' }],
    ['a person named like the bot', { login: 'github-actions[bot]', type: 'User' }],
    ['an account GitHub no longer shows', null]
  ])(
    'attack: %s neither answers a request nor uses up a round, nor hides the cap or the budget line',
    (_who, user) => {
      const body = `${roundMarker({ key: reviewKey(11) })}\n${capNotice(3, 3)}\n${sayOnce({ said: [] }, 'budget', 'x')}`
      const ledger = readRounds([{ user, body }], bot)
      expect(ledger.answered.size).toBe(0)
      expect(ledger.said.size).toBe(0)
    }
  )

  test("a marker with a key of another shape is not a round's", () => {
    expect(
      readRounds(
        [
          ours('<!-- ralph-action:fix-round key=review-12; rm -rf -->'),
          ours('<!-- ralph-action:fix-round key=x-1 -->')
        ],
        bot
      ).answered.size
    ).toBe(0)
  })
})

describe('roundAllowed: once per request, up to max-fix-rounds, the cap said once', () => {
  const ledger = (keys: string[], said: OnceNotice[] = []) => ({
    answered: new Set(keys),
    said: new Set(said)
  })
  const ask = { key: 'review-9', pullNumber: 7, max: 3, what: 'review 9' }
  test.each<[string, ReturnType<typeof ledger>, Partial<typeof ask>, unknown]>([
    ['the first round', ledger([]), {}, { number: 1, said: [] }],
    ['the third of three', ledger(['ci-a', 'review-1']), {}, { number: 3, said: [] }],
    [
      'a round on a pull request that says the budget is spent: it knows',
      ledger(['ci-a'], ['budget']),
      {},
      { number: 2, said: ['budget'] }
    ],
    [
      'a request already answered',
      ledger(['review-9']),
      {},
      { kind: 'skip', reason: expect.stringMatching(/^review 9 was answered already/) }
    ],
    [
      'a request already answered, at the cap too: answered wins (no notice for a re-delivery)',
      ledger(['review-9', 'ci-a', 'ci-b']),
      {},
      { kind: 'skip', reason: expect.stringMatching(/answered already/) }
    ],
    [
      'the fourth of three: refused with the one notice',
      ledger(['ci-a', 'ci-b', 'ci-c']),
      {},
      {
        kind: 'refuse',
        reason: 'pull request #7 has had 3 review and CI rounds, and max-fix-rounds is 3',
        issueNumber: 7,
        reply: capNotice(3, 3)
      }
    ],
    [
      'the fifth, after the notice: quiet',
      ledger(['ci-a', 'ci-b', 'ci-c'], ['cap']),
      {},
      { kind: 'skip', reason: expect.stringMatching(/said on the pull request already/) }
    ],
    [
      'the fourth of three after the budget line (not the cap notice): refused with the notice',
      ledger(['ci-a', 'ci-b', 'ci-c'], ['budget']),
      {},
      expect.objectContaining({ kind: 'refuse', reply: capNotice(3, 3) })
    ],
    [
      'max-fix-rounds 0: none at all',
      ledger([]),
      { max: 0 },
      expect.objectContaining({
        kind: 'refuse',
        reason: expect.stringMatching(/has had 0 review and CI rounds/)
      })
    ],
    [
      'max-fix-rounds 1, one done',
      ledger(['ci-a']),
      { max: 1 },
      expect.objectContaining({
        kind: 'refuse',
        reason: expect.stringMatching(/has had 1 review and CI round,/)
      })
    ]
  ])('%s', (_what, given, overrides, expected) => {
    expect(roundAllowed(given, { ...ask, ...overrides })).toEqual(expected)
  })

  test('the cap notice says how to go on, and carries both markers', () => {
    const notice = capNotice(3, 3)
    expect(notice).toContain('<!-- ralph-action:refusal -->')
    expect(notice).toContain('<!-- ralph-action:fix-rounds-cap -->')
    expect(notice).toMatch(/`\/ralph` comment/)
    expect(notice).toMatch(/raise `max-fix-rounds`/)
  })
})

describe('sayOnce: a notice said once on the pull request, then not again', () => {
  test('not said yet: the text with its marker, which readRounds reads back as said', () => {
    const said = sayOnce({ said: ['cap'] }, 'budget', 'The budget is spent.\n')
    expect(said).toBe('<!-- ralph-action:budget-spent -->\nThe budget is spent.\n')
    expect(readRounds([ours(said ?? '')], bot).said).toEqual(new Set(['budget']))
  })

  test('said already: nothing', () => {
    expect(sayOnce({ said: ['budget'] }, 'budget', 'The budget is spent.')).toBeUndefined()
  })
})

test.each([
  ['onto its branch', { kind: 'push-onto' } as const, undefined],
  [
    'a problem reading it: unchecked',
    { kind: 'problem', problem: 'it could not be read' } as const,
    { kind: 'refuse', reason: 'it could not be read', unchecked: true }
  ],
  [
    'a protected branch: never a second pull request',
    { kind: 'propose', branch: 'ralph/pr-7', reason: "pull request #7's branch 'x' is protected" } as const,
    { kind: 'refuse', reason: expect.stringMatching(/never opens a second one, so none runs on #7$/) }
  ]
])('branchVerdict: %s', (_what, branch, expected) => {
  expect(branchVerdict(branch, 7)).toEqual(expected)
})

const review: ReviewRound = {
  kind: 'review',
  key: 'review-9',
  number: 2,
  max: 3,
  pullNumber: 7,
  reviewId: 9,
  reviewer: 'alice',
  reviewUrl: 'https://github.com/acme/widgets/pull/7#pullrequestreview-9',
  threads: [
    { replyTo: 100, threadId: 'T100', resolved: false },
    { replyTo: 101, threadId: 'T101', resolved: true },
    { replyTo: 102, resolved: false }
  ]
}
const ci: CiRound = {
  kind: 'ci',
  key: 'ci-abc',
  number: 1,
  max: 3,
  pullNumber: 7,
  runId: 5,
  runUrl: 'https://github.com/acme/widgets/actions/runs/5',
  workflow: 'CI',
  conclusion: 'failure',
  headSha: 'abcdef0123456789',
  failedJobs: [{ id: 1, name: 'test', url: 'u' }],
  said: []
}

test('where the task goes: a review as args.review, anything else as args.task', () => {
  expect(taskArgNames({ round: review })).toEqual({ text: 'review', file: 'review_file' })
  expect(taskArgNames({ round: ci })).toEqual({ text: 'task', file: 'task_file' })
  expect(taskArgNames({})).toEqual({ text: 'task', file: 'task_file' })
  const ralph = '---\nagent: x\n---\nFix it.\n<!-- {{ args.task }} -->\n{{ args.review }}\n'
  expect(placesArg(ralph, 'review')).toBe(true)
  expect(placesArg(ralph, 'task')).toBe(false)
  expect(placesArg('---\nagent: x\n---\n{{ args.review_file }}\n', 'review')).toBe(false)
})

test('the run record names the request the round answered', () => {
  expect(roundRecord(review)).toEqual({
    kind: 'review',
    round: 2,
    maxRounds: 3,
    pullRequest: 7,
    review: 9,
    reviewer: 'alice',
    url: review.reviewUrl
  })
  expect(roundRecord(ci)).toMatchObject({
    kind: 'ci',
    run: 5,
    workflow: 'CI',
    commit: 'abcdef0123456789',
    failedJobs: [{ id: 1 }]
  })
})

describe('planRoundAnswer: what the round says when done', () => {
  const repo = { serverUrl: 'https://github.com', owner: 'acme', repo: 'widgets' }
  const sha = '0123456789abcdef0123456789abcdef01234567'
  const done: RoundOutcome = {
    pushed: sha,
    stopReason: 'all_checks_passed',
    iterations: 3,
    gates: { start: { passed: 1, total: 3 }, end: { passed: 3, total: 3 } },
    costUsd: 0.4213,
    verified: sha,
    runUrl: 'https://github.com/acme/widgets/actions/runs/77'
  }

  test('pushed: a reply in each open thread naming the commit, none in a resolved one; nothing resolved unless asked', () => {
    const answer = planRoundAnswer(review, done, { resolveThreads: false, repo })
    expect(answer.replies.map(r => r.replyTo)).toEqual([100, 102])
    for (const reply of answer.replies)
      expect(reply.body).toMatch(
        /^Addressed in \[`0123456789ab`\]\(https:\/\/github\.com\/acme\/widgets\/commit\/0123456789abcdef0123456789abcdef01234567\)/
      )
    expect(answer.resolve).toEqual([])
    expect(planRoundAnswer(review, done, { resolveThreads: true, repo }).resolve).toEqual(['T100'])
  })

  test('the summary: marker first, the round of the max, the request, iterations, gates start → end, cost, verified commit', () => {
    const { summary } = planRoundAnswer(review, done, { resolveThreads: true, repo })
    expect(summary.split('\n')[0]).toBe(roundMarker(review))
    expect(summary).toContain('### ralph: review round 2 of at most 3 on this pull request')
    expect(summary).toContain(
      "Answering @alice's [review](https://github.com/acme/widgets/pull/7#pullrequestreview-9)."
    )
    expect(summary).toContain('✅ Pushed')
    expect(summary).toContain('Each open thread of the review got a reply naming it, and was resolved.')
    expect(summary).toContain('| 3 | 1/3 → 3/3 | $0.42 | `0123456789ab` | `all_checks_passed` |')
    expect(summary).toContain('[The run](https://github.com/acme/widgets/actions/runs/77)')
    expect(readRounds([ours(summary)], bot).answered).toEqual(new Set(['review-9']))
  })

  test('nothing pushed: no reply, nothing resolved, and the summary says why and what on-failure did', () => {
    const failed: RoundOutcome = {
      notPushed: 'the gates never all passed (2 of 3 at the end)',
      onFailure: 'on-failure is none: the work is in the run record.',
      stopReason: 'max_iterations',
      iterations: 5,
      runUrl: 'https://x'
    }
    const answer = planRoundAnswer(review, failed, { resolveThreads: true, repo })
    expect(answer.replies).toEqual([])
    expect(answer.resolve).toEqual([])
    expect(answer.summary).toContain(
      "❌ Nothing was pushed onto this pull request's branch: the gates never all passed (2 of 3 at the end). on-failure is none: the work is in the run record."
    )
    expect(answer.summary).toContain('| 5 | — | — | — | `max_iterations` |')
  })

  test('a CI round names the failing run and commit; it has no threads to answer', () => {
    const answer = planRoundAnswer(ci, done, { resolveThreads: true, repo })
    expect(answer.summary).toContain('### ralph: ci round 1 of at most 3 on this pull request')
    expect(answer.summary).toContain(
      'Answering the failure of [CI run `CI`](https://github.com/acme/widgets/actions/runs/5) on `abcdef012345`.'
    )
    expect(answer.replies).toEqual([])
    expect(readRounds([ours(answer.summary)], bot).answered).toEqual(new Set(['ci-abc']))
  })
})
