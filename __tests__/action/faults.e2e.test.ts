// GitHub's bad minutes never cost a finished loop. The action runs as the runner runs it (dist/index.js)
// while the GitHub stand-in, the git server and the artifact service fail on schedule: 5xx, 429 with
// retry-after, secondary and primary rate limits, reset connections, connections closed with no answer, 30 s
// stalls, and work done whose answer is dropped. In every scenario the pull request exists exactly once, the
// branch is on the remote, the record is uploaded or its absence stated, the outputs are right and the exit
// code is the loop's verdict. Answers that mean no fail at once with today's message, and are asked once.
import { expect, test } from '@jest/globals'
import type { FaultKind, FaultSchedule } from '../support/faults.js'
import { DONE, FAULT_TIMING, FIX, WRONG_FIX, agentScript, projectFiles, ralph } from './fixtures.js'
import { runAction, type ActionRun, type Project } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()

type Server = 'api' | 'git' | 'artifacts'
type Fault = [Server, string, number, FaultKind]

interface Scenario {
  name: string
  faults: Fault[]
  /** A `/ralph` comment on an issue (tracking comment, 👀), or workflow_dispatch (default). */
  comment?: boolean
  /** The agent fixes the code (default) or makes it worse: the loop's verdict. */
  fails?: boolean
  inputs?: Record<string, string>
  /** pr-operation. */
  pr: 'created' | 'none'
  /** Whether the branch must be on the remote at the output commit (default: when a PR is expected). */
  pushed?: boolean
  /** Default uploaded. */
  record?: 'uploaded' | 'absent'
  /** Lines main must print. */
  says?: RegExp[]
  check?: (p: Project, run: ActionRun) => void | Promise<void>
}

const fixes = agentScript({ any: `${FIX}\n${DONE}` })
const worsens = agentScript({ any: `${WRONG_FIX}\nsay('Tried.')` })
// A gate that costs nothing: the verdict is what the scenario needs, not a test run.
const cheapRalph = ralph({ checks: ["grep -q 'a + b' calc.js"] })

function schedules(p: Project): Record<Server, FaultSchedule> {
  return { api: p.api.faults, git: p.gitServer.faults, artifacts: e2e.stand().artifacts.faults }
}

async function play(s: Scenario): Promise<{ p: Project; run: ActionRun }> {
  const p = await e2e.project(projectFiles(s.fails ? worsens : fixes, cheapRalph))
  const servers = schedules(p)
  servers.artifacts.clear()
  // The checkout's own fetch was counted: calls are numbered from the action's first.
  servers.git.clear()
  for (const [server, route, call, kind] of s.faults) servers[server].add(route, call, kind)
  let event: { eventName: string; event: Record<string, unknown> } | undefined
  if (s.comment) {
    p.api.state.addUser('maintainer', { role: 'write' })
    const issue = p.api.state.addIssue({
      title: 'add() subtracts',
      body: 'It should add.',
      user: 'maintainer'
    })
    const comment = p.api.state.addComment(issue.number, { body: '/ralph fix-tests', user: 'maintainer' })
    event = { eventName: 'issue_comment', event: p.api.events.issueComment(comment.id) }
  }
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'max-iterations': '2', ...s.inputs },
    env: FAULT_TIMING,
    ...event
  })
  return { p, run }
}

async function expectDelivered(s: Scenario, p: Project, run: ActionRun): Promise<void> {
  const log = run.main.stdout
  // Every fault planned was met: the scenario tested what it says.
  for (const [name, schedule] of Object.entries(schedules(p)))
    expect({ [name]: schedule.unused() }).toEqual({ [name]: [] })
  expect(run.main.exitCode).toBe(s.fails ? 1 : 0)
  expect(run.outputs).toMatchObject({
    success: String(!s.fails),
    'stop-reason': s.fails ? 'max_iterations' : 'all_checks_passed',
    'pr-operation': s.pr
  })
  const branch = run.outputs.branch
  const pulls = p.api.state.pulls.filter(pr => pr.head === branch)
  expect(pulls).toHaveLength(s.pr === 'none' ? 0 : 1)
  if (s.pr !== 'none') expect(run.outputs['pr-number']).toBe(String(pulls[0].number))
  if (s.pushed ?? s.pr !== 'none')
    expect(p.remoteGit('rev-parse', `refs/heads/${branch}`).trim()).toBe(run.outputs.commit)
  if ((s.record ?? 'uploaded') === 'uploaded') {
    const id = run.outputs['artifact-id']
    expect(
      e2e
        .stand()
        .artifacts.listArtifacts()
        .map(a => String(a.id))
    ).toContain(id)
  } else {
    expect(run.outputs['artifact-id']).toBe('')
    expect(run.summary).toMatch(
      /The run record could not be uploaded as an artifact: .+ until the job ends\./
    )
  }
  for (const line of s.says ?? []) expect(log).toMatch(line)
  expect(p.api.violations).toEqual([])
  expect(p.api.unimplemented).toEqual([])
  expect(p.api.responseProblems).toEqual([])
  expect(e2e.stand().artifacts.violations).toEqual([])
  await s.check?.(p, run)
}

const retried = /failed \(.+\); retrying in \d+ ms \(attempt 2 of 4\)/

const scenarios: Scenario[] = [
  {
    name: 'POST /pulls answered 502 (not carried out): created on the retry',
    faults: [['api', 'pulls/create', 1, '502']],
    pr: 'created',
    // The margin kept for delivery: the loop may take 45 of max-time's 50 s.
    inputs: { 'max-time': '50s' },
    says: [/the loop stops 5s before it, to deliver in time/, /it was not carried out, so it is made again/],
    check: async (_p, run) => {
      const id = run.outputs['artifact-id']
      const name =
        e2e
          .stand()
          .artifacts.listArtifacts()
          .find(a => String(a.id) === id)?.name ?? ''
      const status = JSON.parse(
        (await e2e.stand().artifacts.downloadArtifact(name)).get('status.json')?.toString() ?? '{}'
      ) as { budgets?: { maxTimeSeconds?: number } }
      expect(status.budgets?.maxTimeSeconds).toBe(45)
    }
  },
  {
    name: 'POST /pulls carried out but its answer dropped: found by its head, reported as created',
    faults: [['api', 'pulls/create', 1, 'drop-response']],
    pr: 'created',
    says: [/GitHub had carried it out: reusing what it made/]
  },
  {
    name: 'POST /pulls stalls 30 s: cut at the timeout, made once',
    faults: [['api', 'pulls/create', 1, 'stall']],
    pr: 'created',
    says: [/no answer within 3\.0 s/]
  },
  {
    name: 'the lookup of an open pull request meets a secondary rate limit: its retry-after is honoured',
    faults: [['api', 'pulls/list', 1, 'secondary-rate-limit']],
    pr: 'created',
    says: [/GitHub's secondary rate limit on GET \/repos\/\S+\/pulls: waiting 60 s, as it asks/]
  },
  {
    name: 'POST /pulls meets the primary rate limit: waited until x-ratelimit-reset',
    faults: [['api', 'pulls/create', 1, 'rate-limit']],
    pr: 'created',
    says: [/GitHub's rate limit on POST \/repos\/\S+\/pulls: waiting 2\d s, as it asks/]
  },
  {
    name: 'labels answered 429 with retry-after, then added',
    faults: [['api', 'issues/add-labels', 1, '429']],
    inputs: { labels: 'ralph' },
    pr: 'created',
    says: [retried],
    check: p => expect(p.api.state.pulls[0].labels).toEqual(['ralph'])
  },
  {
    name: 'the push: its first connection is reset, then a 503: pushed on the third try',
    faults: [
      // (the first receive-pack-refs is the push dry run before any agent runs)
      ['git', 'receive-pack-refs', 2, 'reset'],
      ['git', 'receive-pack', 1, '503']
    ],
    pr: 'created',
    says: [/The push did not get through \(.+\); trying again in \d+ ms \(push 3 of 3\)/]
  },
  {
    name: 'the push lands but its answer is dropped: pushed once more, up to date',
    faults: [['git', 'receive-pack', 1, 'drop-response']],
    pr: 'created',
    says: [/is already at [0-9a-f]{7}/]
  },
  {
    name: 'the push stalls: cut off, pushed again',
    faults: [['git', 'receive-pack', 1, 'stall']],
    pr: 'created',
    says: [/The push did not get through \(.*(Operation too slow|timed out).*\)/]
  },
  {
    name: 'a /ralph comment: the admission check, 👀 and the tracking comment POST (carried out, answer dropped) all recover',
    comment: true,
    faults: [
      ['api', 'repos/get-collaborator-permission-level', 1, '503'],
      ['api', 'reactions/create-for-issue-comment', 1, 'reset'],
      ['api', 'issues/create-comment', 1, 'drop-response']
    ],
    pr: 'created',
    check: (p, run) => {
      const tracking = p.api.state.comments.filter(c => c.body.includes('ralph-action:tracking'))
      expect(tracking).toHaveLength(1)
      expect(tracking[0].body).toContain('state=final')
      expect(tracking[0].body).toContain(run.outputs['pr-url'])
      expect(p.api.state.reactions.map(r => r.content)).toEqual(['eyes'])
    }
  },
  {
    name: 'every edit of the tracking comment fails: warnings, and the run succeeds',
    comment: true,
    faults: [1, 2, 3, 4, 5].map(call => ['api', 'issues/update-comment', call, '502'] as Fault),
    pr: 'created',
    check: (p, run) => {
      const warnings = run.main.commands.filter(c => c.command === 'warning').map(c => c.message)
      expect(warnings).toContainEqual(
        expect.stringMatching(/^Could not edit the tracking comment \d+: HTTP 502/)
      )
      expect(p.api.state.pulls).toHaveLength(1)
    }
  },
  {
    name: 'the artifact service resets CreateArtifact once: the record is uploaded under a fresh name',
    faults: [['artifacts', 'CreateArtifact', 1, 'reset']],
    pr: 'created',
    says: [
      /The upload of ralph-fix-tests-\S+ failed \(.+\); uploading it again as ralph-fix-tests-\S+-[0-9a-z]+\./
    ]
  },
  {
    name: 'the artifact service fails both uploads: the record stays on the runner, the summary says so, the step succeeds',
    faults: [
      ['artifacts', 'CreateArtifact', 1, 'reset'],
      ['artifacts', 'CreateArtifact', 2, 'reset']
    ],
    pr: 'created',
    record: 'absent'
  },
  {
    name: 'a loop that fails, with on-failure draft-pr: faults on its push and its draft, which opens once; the step fails',
    fails: true,
    inputs: { 'on-failure': 'draft-pr' },
    faults: [
      ['git', 'receive-pack-refs', 2, '502'], // the push's, after the dry run's
      ['api', 'pulls/create', 1, 'drop-response']
    ],
    pr: 'created',
    check: p => expect(p.api.state.pulls[0].draft).toBe(true)
  },
  {
    name: "a failing hunt's report issue: its POST is carried out, the answer dropped; one issue",
    fails: true,
    inputs: { 'report-issue': 'true' },
    faults: [['api', 'issues/create', 1, 'drop-response']],
    pr: 'none',
    pushed: false,
    check: p => {
      expect(p.api.state.issues.filter(i => i.labels.includes('ralph'))).toHaveLength(1)
    }
  }
]

test.each(scenarios.map(s => [s.name, s] as const))('%s', async (_name, s) => {
  const { p, run } = await play(s)
  await expectDelivered(s, p, run)
})

// Every git command that reaches the remote before the work (the base's fetch, the ls-remote of the loop's
// branch): the ref listing (GET info/refs) and the POSTs after it, their first and their second call, answered
// 502 or 503, reset, or closed with no answer. Each is tried again, and each run delivers one pull request.
const READ_FAULTS: FaultKind[] = ['reset', '502', '503', 'empty-reply']
test.each(
  (['upload-pack-refs', 'upload-pack'] as const).flatMap(route =>
    [1, 2].flatMap(call => READ_FAULTS.map(kind => [route, call, kind] as const))
  )
)(
  'a read of the remote (%s, call %i) answered %s: tried again, and one pull request',
  async (route, call, kind) => {
    // curl itself sends a POST again whose connection was reset or closed unanswered: no retry of ours to log.
    const ours = route === 'upload-pack-refs' || kind === '502' || kind === '503'
    const s: Scenario = {
      name: `${route} ${call} ${kind}`,
      faults: [['git', route, call, kind]],
      pr: 'created',
      says: ours
        ? [/git (fetch|ls-remote) did not get through \(.+\); trying again in \d+ ms \(try 2 of 4\)\./]
        : []
    }
    const { p, run } = await play(s)
    await expectDelivered(s, p, run)
  }
)

test('a token the remote refuses (401) fails the fetch at once: one line with the fix, no retry, no agent run', async () => {
  const p = await e2e.project(projectFiles(fixes, cheapRalph))
  p.gitServer.private = true
  p.gitServer.tokens.delete(p.token)
  p.gitServer.requests.length = 0
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' }, env: FAULT_TIMING })
  expect(run.main.exitCode).toBe(1)
  const errors = run.main.errors.map(e => e.message)
  expect(errors).toEqual([
    expect.stringMatching(
      /^Preparing the branch failed: Could not fetch the base branch 'main' from 'origin': .*(could not read Username|Authentication failed).* \(the remote refused the token: /
    )
  ])
  expect(errors[0]).not.toContain('\n')
  expect(p.gitServer.requests.filter(r => r.service === 'upload-pack').map(r => r.status)).toEqual([401])
  expect(run.main.stdout).not.toMatch(/did not get through/)
  expect(run.outputs.iterations ?? '0').toBe('0')
  expect(p.api.state.pulls).toEqual([])
})

test.each([
  [
    403,
    'Resource not accessible by integration',
    /^Every gate passed, but the work was not delivered: The token may not create pull requests in octo-org\/octo-repo \(403 Resource not accessible by…\): give the job `permissions: pull-requests: write`/
  ],
  [422, 'Validation Failed', /^Every gate passed, but the work was not delivered: Validation Failed/]
])(
  'POST /pulls answered %i (%s): no retry, the step fails with the message it always had',
  async (status, message, says) => {
    const p = await e2e.project(projectFiles(fixes, cheapRalph))
    p.api.state.failures.next.push({ operationId: 'pulls/create', status, body: { message } })
    const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' }, env: FAULT_TIMING })
    expect(run.main.exitCode).toBe(1)
    expect(run.main.errors.at(-1)?.message).toMatch(says)
    expect(p.api.requests.filter(r => r.operationId === 'pulls/create')).toHaveLength(1)
    expect(run.main.stdout).not.toMatch(/retrying in|made again/)
    // The branch was pushed, and the record uploaded: only the pull request is missing.
    expect(p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()).toBe(run.outputs.commit)
    expect(run.outputs['artifact-id']).not.toBe('')
  }
)
