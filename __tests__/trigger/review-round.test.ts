// A review on the action's own pull request continues its loop: each decision tested by the table where it is
// made, then admitReview against the OpenAPI-checked stand-in (REST and GraphQL) with the real Octokit, a
// project of installed ralphs in a real git repo, and the real loop given the task as the action gives it.
import path from 'node:path'
import { loadRalph } from '../../src/ralph/index.js'
import { parseTriggerEvent, type PullRequestReviewTrigger } from '../../src/trigger/event.js'
import type { ActorCheck } from '../../src/trigger/permissions.js'
import type { TokenActor } from '../../src/github/own-work.js'
import { PULL_REQUEST_MARKER } from '../../src/report/pr-body.js'
import { capNotice, roundMarker, type FixRoundSettings } from '../../src/trigger/fix-rounds.js'
import { admitReview, pullVerdict, refuseReviewer, reviewAsks } from '../../src/trigger/review-round.js'
import type { Admission, Run } from '../../src/trigger/types.js'
import type { ReviewCommentSeed, ReviewState } from '../support/github-api/index.js'
import { world, type World } from './world.js'

const BOT: TokenActor = { kind: 'app', login: 'github-actions[bot]' }

// --- the decisions, by the table ---

function trigger(fields: { action?: string; state?: string; body?: string } = {}): PullRequestReviewTrigger {
  return {
    name: 'pull_request_review',
    action: fields.action ?? 'submitted',
    review: {
      id: 9,
      body: fields.body ?? '',
      state: fields.state ?? 'changes_requested',
      author: 'alice',
      authorType: 'User',
      commitId: 'c'.repeat(40)
    },
    pull: {
      number: 7,
      title: 't',
      body: '',
      author: 'github-actions[bot]',
      authorType: 'Bot',
      head: { ref: 'ralph/issue-1', sha: 'c'.repeat(40), repo: 'acme/widgets' },
      base: { ref: 'main' }
    },
    sender: 'alice'
  }
}

describe('reviewAsks: what the event alone says', () => {
  test.each<[string, Parameters<typeof trigger>[0], unknown]>([
    ['changes requested, no body', {}, {}],
    ['changes requested, a body', { body: 'Please rename it.' }, {}],
    ['changes requested, as the REST API spells it', { state: 'CHANGES_REQUESTED' }, {}],
    [
      'changes requested with a /ralph line naming a ralph',
      { body: '/ralph fix-tests -- and the header\nmore' },
      { command: { kind: 'command', name: 'fix-tests', args: {}, freeText: 'and the header\n\nmore' } }
    ],
    [
      'a comment whose first line is /ralph',
      { state: 'commented', body: '/ralph -- rename it' },
      { command: { kind: 'command', args: {}, freeText: 'rename it' } }
    ],
    [
      'a /ralph line that cannot be read',
      { state: 'commented', body: '/ralph "open' },
      { command: { kind: 'invalid', problem: expect.stringMatching(/close every quote/) } }
    ],
    [
      'a /ralph line with an invisible character',
      { state: 'commented', body: '/ralph fix-tests\u200b' },
      { command: { kind: 'invalid', problem: expect.stringMatching(/invisible or bidi/) } }
    ],
    [
      'a comment without /ralph',
      { state: 'commented', body: 'Looks odd.' },
      expect.objectContaining({
        kind: 'skip',
        reason: expect.stringMatching(/only when its first line is \/ralph/)
      })
    ],
    [
      'a comment with /ralph further down',
      { state: 'commented', body: 'Hm.\n/ralph' },
      expect.objectContaining({ kind: 'skip' })
    ],
    [
      'a comment with /ralph after a space',
      { state: 'commented', body: ' /ralph' },
      expect.objectContaining({ kind: 'skip' })
    ],
    [
      'an approval',
      { state: 'approved', body: '/ralph' },
      expect.objectContaining({ kind: 'skip', reason: 'a review that is approved asks for no round' })
    ],
    [
      'a dismissed review',
      { state: 'dismissed' },
      expect.objectContaining({ kind: 'skip', reason: 'a review that is dismissed asks for no round' })
    ],
    [
      'an edited review',
      { action: 'edited' },
      expect.objectContaining({
        kind: 'skip',
        reason: expect.stringMatching(/was edited; only a submitted review/)
      })
    ],
    ['a dismissal event', { action: 'dismissed' }, expect.objectContaining({ kind: 'skip' })]
  ])('%s', (_what, fields, expected) => {
    const asked = reviewAsks(trigger(fields))
    expect(asked).toEqual(expected)
  })
})

describe('refuseReviewer: as a comment is refused', () => {
  const where = { pullNumber: 7, reviewer: 'rob' }
  const no: Extract<ActorCheck, { allowed: false }> = {
    allowed: false,
    login: 'rob',
    reason: '`rob` has the read role on acme/widgets; starting a loop needs write, maintain or admin'
  }
  test.each<[string, Extract<ActorCheck, { allowed: false }>, boolean, unknown]>([
    [
      'a reader, no /ralph: quiet',
      no,
      false,
      { kind: 'skip', reason: `${no.reason}, so the review starts no round` }
    ],
    [
      'a reader with /ralph: the reply a comment gets',
      no,
      true,
      expect.objectContaining({
        kind: 'refuse',
        issueNumber: 7,
        reply: expect.stringMatching(
          /^<!-- ralph-action:refusal -->\n\n@rob, no ralph loop was started: `rob` has the read role/
        )
      })
    ],
    [
      'a check that could not be made: unchecked, no reply',
      { ...no, unknown: true },
      true,
      { kind: 'refuse', reason: no.reason, unchecked: true }
    ]
  ])('%s', (_what, actor, command, expected) => {
    const ask = command ? { command: { kind: 'command' as const, args: {}, freeText: '' } } : {}
    expect(refuseReviewer(ask, actor, where)).toEqual(expected)
  })
})

describe("pullVerdict: only this repository's open pull request that the action opened", () => {
  const where = { pullNumber: 7, reviewer: 'alice', repository: 'acme/widgets' }
  const pull = {
    number: 7,
    headRef: 'ralph/issue-1',
    headSha: 'c',
    sameRepo: true as const,
    author: { login: 'github-actions[bot]', type: 'Bot' },
    body: ''
  }
  const command = { command: { kind: 'command' as const, args: {}, freeText: '' } }
  test.each<[string, Parameters<typeof pullVerdict>[1], boolean, unknown]>([
    ["the action's open pull request", { fork: undefined, pull, ours: true }, false, pull],
    [
      "a fork's: quiet",
      { fork: 'mallory/widgets', pull: { problem: 'a fork' }, ours: false },
      false,
      expect.objectContaining({
        kind: 'skip',
        reason: expect.stringMatching(/comes from a fork \(mallory\/widgets\)/)
      })
    ],
    [
      "a fork's, with /ralph: the reply a comment gets",
      { fork: 'mallory/widgets', pull: { problem: 'a fork' }, ours: false },
      true,
      expect.objectContaining({
        kind: 'refuse',
        issueNumber: 7,
        reply: expect.stringMatching(/comes from a fork/)
      })
    ],
    [
      'a merged one: quiet',
      { fork: undefined, pull: { problem: 'pull request #7 is merged' }, ours: false },
      false,
      { kind: 'skip', reason: 'pull request #7 is merged' }
    ],
    [
      'a closed one, with /ralph: a reply',
      { fork: undefined, pull: { problem: 'pull request #7 is closed' }, ours: false },
      true,
      expect.objectContaining({ kind: 'refuse', reply: expect.stringMatching(/is closed/) })
    ],
    [
      "a person's: quiet, whatever the review says",
      { fork: undefined, pull: { ...pull, author: { login: 'alice' } }, ours: false },
      true,
      expect.objectContaining({
        kind: 'skip',
        reason: expect.stringMatching(/is not the action's own \(it is alice's\)/)
      })
    ]
  ])('%s', (_what, facts, withCommand, expected) => {
    expect(pullVerdict(withCommand ? command : {}, facts, where)).toEqual(expected)
  })
})

// --- admitReview against the stand-in ---

let w: World
let settings: FixRoundSettings

beforeEach(async () => {
  w = await world()
  w.api.state.addUser('alice', { role: 'write' })
  w.api.state.addUser('rob', { role: 'read' })
  w.api.state.addUser('coder-app[bot]', { type: 'Bot' })
  // A ralph for rounds: it places the review where it wants it.
  w.repo.write(
    '.agents/ralphs/answer/RALPH.md',
    `---\nagent: ${path.join(w.tools, 'agent.sh')}\nargs: [focus]\n---\nAnswer the review. {{ args.focus }}\n\n{{ args.review }}\n`
  )
  w.repo.git('add', '-A')
  w.repo.git('commit', '-q', '-m', 'answer ralph')
  settings = {
    ...w.settings,
    defaultRalph: path.join(w.repo.dir, '.agents/ralphs/answer'),
    delivery: {
      actor: async () => BOT,
      committerEmail: '41898282+github-actions[bot]@users.noreply.github.com'
    },
    commenter: async () => BOT,
    maxFixRounds: 3,
    ciFix: []
  }
})
afterEach(async () => {
  w.expectClean()
  await w.close()
})

/** The action's own pull request (its account, its marker), or another's. */
function pullRequest(
  fields: {
    user?: string
    body?: string
    headOwner?: string
    headRepo?: string
    state?: 'open' | 'closed'
  } = {}
) {
  return w.api.state.addPull({
    title: 'ralph: fix the parser',
    head: 'ralph/issue-1',
    user: fields.user ?? 'github-actions[bot]',
    body: fields.body ?? `${PULL_REQUEST_MARKER}\nWhat the loop did.`,
    ...(fields.headOwner ? { headOwner: fields.headOwner, headRepo: fields.headRepo ?? 'widgets' } : {}),
    ...(fields.state ? { state: fields.state } : {})
  })
}

const TWO_COMMENTS: ReviewCommentSeed[] = [
  {
    path: 'src/parse.js',
    startLine: 10,
    line: 12,
    body: 'This drops the last row.',
    diffHunk: '@@ -8,3 +8,5 @@\n const rows = []\n+while (more()) {'
  },
  { path: 'src/format.js', line: 3, side: 'LEFT', body: 'Keep this check.' }
]

function review(
  pull: number,
  fields: { user?: string; state?: ReviewState; body?: string; comments?: ReviewCommentSeed[] } = {}
) {
  return w.api.state.addReview(pull, {
    user: fields.user ?? 'alice',
    state: fields.state ?? 'CHANGES_REQUESTED',
    body: fields.body ?? 'Two things before this can go in.',
    comments: fields.comments ?? TWO_COMMENTS
  })
}

const admit = (reviewId: number, overrides: Partial<FixRoundSettings> = {}): Promise<Admission> =>
  admitReview(
    parseTriggerEvent(
      'pull_request_review',
      w.api.events.pullRequestReview(reviewId)
    ) as PullRequestReviewTrigger,
    { ...settings, ...overrides },
    w.octokit
  )

const comments = (number: number) => w.api.state.comments.filter(c => c.issueNumber === number)

test('a ralph that declares its args may place the review without declaring it: the action sets it, as it sets the task', () => {
  const answer = loadRalph(path.join(w.repo.dir, '.agents/ralphs/answer/RALPH.md'), {
    cwd: w.repo.dir,
    skipAgentLookup: true
  })
  expect(answer.warnings).toEqual([])
})

test("a writer's review with two line comments on the action's pull request: a round on its branch, the prompt holds both with file and line", async () => {
  const pull = pullRequest()
  const r = review(pull.number)
  const plan = await admit(r.id)
  expect(plan).toMatchObject({
    kind: 'run',
    event: 'pull_request_review',
    ralphName: 'answer',
    branch: 'ralph/issue-1',
    continueBranch: true,
    issueNumber: pull.number,
    pr: { number: pull.number, headRef: 'ralph/issue-1', sameRepo: true },
    actor: { login: 'alice', role: 'write' },
    taskSource: `review ${r.id} on pull request #${pull.number}`,
    round: {
      kind: 'review',
      key: `review-${r.id}`,
      number: 1,
      max: 3,
      pullNumber: pull.number,
      reviewId: r.id,
      reviewer: 'alice',
      threads: [
        { replyTo: r.comments[0].id, threadId: w.api.state.reviewThreads[0].id, resolved: false },
        { replyTo: r.comments[1].id, threadId: w.api.state.reviewThreads[1].id, resolved: false }
      ]
    }
  })
  expect((plan as Run).pr).not.toHaveProperty('author')
  await w.execute(plan)
  const [prompt] = w.prompts()
  expect(prompt).toContain('Answer the review.')
  expect(prompt).toMatch(
    /<<<TASK [0-9a-f]{16}>>>\n## Review by @alice on pull request #\d+: changes requested\n\nTwo things before this can go in\./
  )
  expect(prompt).toContain('#### 1. `src/parse.js`, lines 10–12 of the new code\n\nThis drops the last row.')
  expect(prompt).toContain('+while (more()) {')
  expect(prompt).toContain('#### 2. `src/format.js`, line 3 of the old code\n\nKeep this check.')
  // Nothing was posted by the admission itself: the round's answer comes after the loop.
  expect(comments(pull.number)).toEqual([])
})

test('a resolved thread and an outdated one are marked so; without GraphQL the round still runs, saying the marks are unknown', async () => {
  const pull = pullRequest()
  const r = review(pull.number, {
    comments: [
      { path: 'a.js', line: 1, body: 'first' },
      { path: 'b.js', line: 2, body: 'second', outdated: true }
    ]
  })
  w.api.state.reviewThreads[0].resolved = true
  const plan = (await admit(r.id)) as Run
  expect(plan.task).toMatch(/#### 1\. `a\.js`, line 1 of the new code — resolved/)
  expect(plan.task).toMatch(/#### 2\. `b\.js`, line 2 of the new code — outdated/)
  expect(plan.round).toMatchObject({ threads: [{ resolved: true }, { resolved: false }] })
  w.api.state.failures.next.push({ operationId: 'graphql', status: 502, times: 4 })
  const again = (await admit(r.id)) as Run
  expect(again.kind).toBe('run')
  expect(again.task).toContain('could not be read, so none is marked')
  expect(again.round).toMatchObject({ threads: [{ resolved: false }, { resolved: false }] })
  expect(again.round?.kind === 'review' && again.round.threads[0]).not.toHaveProperty('threadId')
})

test.each([
  ["a reader's review", { user: 'rob' }],
  ["a bot's review (allowed-bots does not name it)", { user: 'coder-app[bot]' }],
  ['an approval', { state: 'APPROVED' as const }],
  ['a comment without /ralph', { state: 'COMMENTED' as const }]
])('%s runs nothing and replies nothing', async (_what, fields) => {
  const pull = pullRequest()
  const plan = await admit(review(pull.number, fields).id)
  expect(plan.kind).toBe('skip')
  await w.execute(plan)
  expect(w.prompts()).toEqual([])
  expect(comments(pull.number)).toEqual([])
  expect(w.agentRan()).toBe(false)
})

test('a bot allowed-bots names counts as a writer does', async () => {
  const pull = pullRequest()
  const plan = await admit(review(pull.number, { user: 'coder-app[bot]' }).id, { allowedBots: ['coder-app'] })
  expect(plan).toMatchObject({ kind: 'run', actor: { login: 'coder-app[bot]', role: 'allowed-bot' } })
})

test("a reader's /ralph review gets the reply a /ralph comment would, and runs nothing", async () => {
  const pull = pullRequest()
  const plan = await admit(
    review(pull.number, { user: 'rob', state: 'COMMENTED', body: '/ralph -- do it' }).id
  )
  expect(plan).toMatchObject({ kind: 'refuse', issueNumber: pull.number })
  await w.execute(plan)
  expect(comments(pull.number)).toEqual([
    expect.objectContaining({
      body: expect.stringMatching(
        /^<!-- ralph-action:refusal -->\n\n@rob, no ralph loop was started: `rob` has the read role/
      )
    })
  ])
  expect(w.agentRan()).toBe(false)
})

test("a writer's review on a person's pull request, or on a fork's, runs nothing", async () => {
  const persons = pullRequest({ user: 'alice' })
  expect(await admit(review(persons.number).id)).toMatchObject({
    kind: 'skip',
    reason: expect.stringMatching(/is not the action's own \(it is alice's\)/)
  })
  // A marker in a person's body does not make it the action's.
  const copied = pullRequest({ user: 'alice', body: PULL_REQUEST_MARKER })
  expect((await admit(review(copied.number).id)).kind).toBe('skip')
  const fork = pullRequest({ headOwner: 'mallory' })
  expect(await admit(review(fork.number).id)).toMatchObject({
    kind: 'skip',
    reason: expect.stringMatching(/comes from a fork \(mallory\/widgets\)/)
  })
  const withCommand = await admit(review(fork.number, { state: 'COMMENTED', body: '/ralph' }).id)
  expect(withCommand).toMatchObject({ kind: 'refuse', reply: expect.stringMatching(/comes from a fork/) })
  const closed = pullRequest({ state: 'closed' })
  expect(await admit(review(closed.number).id)).toMatchObject({
    kind: 'skip',
    reason: `pull request #${closed.number} is closed`
  })
  expect(w.agentRan()).toBe(false)
})

test('a review answered already (re-delivered, or the workflow re-run) runs nothing; a copied marker answers nothing', async () => {
  const pull = pullRequest()
  const r = review(pull.number)
  // Someone copies the round's marker into the conversation first: it is not the action's.
  w.api.state.addComment(pull.number, { body: roundMarker({ key: `review-${r.id}` }), user: 'rob' })
  expect((await admit(r.id)).kind).toBe('run')
  w.api.state.addComment(pull.number, {
    body: `${roundMarker({ key: `review-${r.id}` })}\nReview round 1`,
    user: 'github-actions[bot]'
  })
  expect(await admit(r.id)).toEqual({
    kind: 'skip',
    reason: `review ${r.id} was answered already (its round's comment is on pull request #${pull.number})`
  })
})

test('the fourth round on one pull request is refused with one comment; the fifth is quiet', async () => {
  const pull = pullRequest()
  for (const key of ['review-1', 'ci-aa', 'ci-bb'])
    w.api.state.addComment(pull.number, { body: roundMarker({ key }), user: 'github-actions[bot]' })
  const fourth = await admit(review(pull.number).id)
  expect(fourth).toMatchObject({ kind: 'refuse', reply: capNotice(3, 3), issueNumber: pull.number })
  await w.execute(fourth)
  expect(comments(pull.number).filter(c => c.body.includes('fix-rounds-cap'))).toHaveLength(1)
  const fifth = await admit(review(pull.number).id)
  expect(fifth).toMatchObject({
    kind: 'skip',
    reason: expect.stringMatching(/said on the pull request already/)
  })
  await w.execute(fifth)
  expect(comments(pull.number).filter(c => c.body.includes('fix-rounds-cap'))).toHaveLength(1)
  expect(w.agentRan()).toBe(false)
})

test("a /ralph line names the ralph and its args as a comment does; a bad one gets the comment's reply", async () => {
  const pull = pullRequest()
  const named = await admit(
    review(pull.number, { state: 'COMMENTED', body: '/ralph fix-tests -- and the README' }).id
  )
  expect(named).toMatchObject({ kind: 'run', ralphName: 'fix-tests', args: {} })
  const withArg = await admit(review(pull.number, { body: '/ralph echo --focus parser' }).id)
  expect(withArg).toMatchObject({ kind: 'run', ralphName: 'echo', args: { focus: 'parser' } })
  const typo = await admit(review(pull.number, { body: '/ralph echo --foucs parser' }).id)
  expect(typo).toMatchObject({
    kind: 'refuse',
    reason: expect.stringMatching(/takes no `--foucs` arg \(it takes `--focus`\)/),
    reply: expect.stringContaining('Available ralphs')
  })
  const missing = await admit(review(pull.number, { body: '/ralph nosuch' }).id)
  expect(missing).toMatchObject({ kind: 'refuse', reply: expect.stringContaining('Usage') })
  // The action sets the review's args itself.
  const reserved = await admit(review(pull.number, { body: '/ralph echo --review hi' }).id)
  expect(reserved).toMatchObject({
    kind: 'refuse',
    reason: expect.stringMatching(/`--review` is set by the action/)
  })
})

test("the action's own account reviewing starts nothing (its replies in a thread are reviews too)", async () => {
  const pull = pullRequest()
  const plan = await admit(
    review(pull.number, { user: 'github-actions[bot]', state: 'COMMENTED', body: '/ralph' }).id
  )
  expect(plan).toMatchObject({ kind: 'skip', reason: expect.stringMatching(/a loop never starts a loop/) })
})

test('a branch the action may not push onto (protected) runs nothing rather than open a second pull request', async () => {
  const pull = pullRequest()
  w.api.state.protectedBranches.add('ralph/issue-1')
  expect(await admit(review(pull.number).id)).toMatchObject({
    kind: 'refuse',
    reason: expect.stringMatching(/is protected.*never opens a second one/)
  })
  expect(w.api.state.pulls).toHaveLength(1)
})

/** A review of pull request `number` admitted by a workflow that sets no default ralph. */
async function admitWithoutDefaultRalph(number: number) {
  const { defaultRalph: _, ...rest } = settings
  return admitReview(
    parseTriggerEvent(
      'pull_request_review',
      w.api.events.pullRequestReview(review(number).id)
    ) as PullRequestReviewTrigger,
    rest,
    w.octokit
  )
}

test('without a default ralph, nor a ralph-less loop, the workflow is at fault: the step fails, no one is told no', async () => {
  const pull = pullRequest()
  const plan = await admitWithoutDefaultRalph(pull.number)
  expect(plan).toEqual({
    kind: 'refuse',
    reason: 'no ralph was named, and the workflow sets no default (the ralph input)'
  })
})

test("without a default ralph, a review on a person's pull request is still skipped quietly: the ralph is chosen only for the action's own", async () => {
  const persons = pullRequest({ user: 'alice' })
  const plan = await admitWithoutDefaultRalph(persons.number)
  expect(plan).toMatchObject({ kind: 'skip', reason: expect.stringMatching(/is not the action's own/) })
})

test('a review GitHub cannot give back is a check that could not be made, not a no', async () => {
  const pull = pullRequest()
  const r = review(pull.number)
  w.api.state.failures.next.push({ operationId: 'pulls/get-review', status: 404 })
  expect(await admit(r.id)).toEqual({
    kind: 'refuse',
    reason: `review ${r.id} could not be read (HTTP 404)`,
    unchecked: true
  })
})
