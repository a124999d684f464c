// The triggers wired into the action, run as the runner runs it: `mode: list` for a matrix, a `/ralph`
// comment from someone with write access (👀, a tracking comment edited per iteration and finalised with
// the pull request), a refusal that runs no agent, and a tracking comment the post step finalises as
// cancelled.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { ChildProcess } from 'node:child_process'
import path from 'node:path'
import { expect, test } from '@jest/globals'
import { DONE, FIX, RALPH_DIR, WRONG_FIX, agentScript, projectFiles, ralph } from './fixtures.js'
import { runAction, waitForFile } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()
const { project, expectClean, fixingAgent } = e2e

test('mode: list outputs the installed ralphs as matrix JSON and their count, and runs nothing', async () => {
  const agent = fixingAgent()
  const p = await project({
    ...projectFiles(agent.script),
    '.agents/ralphs/docs/RALPH.md': ralph(),
    '.agents/ralphs/has space/RALPH.md': ralph()
  })
  const run = await runAction(p, e2e.stand(), { inputs: { mode: 'list' } })
  expect(run.main.exitCode).toBe(0)
  expect(JSON.parse(run.outputs.matrix)).toEqual({ ralph: ['docs', 'fix-tests'] })
  expect(run.outputs.count).toBe('2')
  expect(run.main.commands.filter(c => c.command === 'warning').map(c => c.message)).toEqual([
    expect.stringContaining('"has space"')
  ])
  expect(existsSync(agent.ran)).toBe(false)
  expect(run.post?.exitCode).toBe(0)
  expectClean(p)
})

test('a write-access human comments /ralph: 👀, the loop runs, the tracking comment ends with the PR link', async () => {
  const agent = fixingAgent()
  const p = await project(projectFiles(agent.script))
  p.api.state.addUser('maintainer', { role: 'write' })
  const issue = p.api.state.addIssue({ title: 'add() subtracts', body: 'It should add.', user: 'maintainer' })
  const comment = p.api.state.addComment(issue.number, {
    body: '/ralph fix-tests -- please',
    user: 'maintainer'
  })
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    eventName: 'issue_comment',
    event: p.api.events.issueComment(comment.id)
  })
  expect(run.main.exitCode).toBe(0)
  expect(existsSync(agent.ran)).toBe(true)
  expect(p.api.state.reactionsOn('comment', comment.id).map(r => r.content)).toEqual(['eyes'])
  expect(run.outputs.branch).toBe(`ralph/issue-${issue.number}`)
  const [pr] = p.api.state.pulls
  expect(pr.body).toContain(`Closes #${issue.number}`)

  const tracking = p.api.state.comments.filter(c => c.issueNumber === issue.number && c.id !== comment.id)
  expect(tracking).toHaveLength(1)
  expect(tracking[0].body).toContain('state=final')
  expect(tracking[0].body).toContain(run.outputs['pr-url'])
  expect(run.main.state.tracking).toBeDefined()
  // The ralph does not use {{ args.task }}: the task is appended to its prompt, so there is nothing to warn of.
  expect(run.main.commands.filter(c => c.command === 'warning')).toEqual([])
  expectClean(p)
})

test('a second /ralph on the same issue continues ralph/issue-<N> and updates its pull request', async () => {
  const worker = agentScript({ any: `fs.appendFileSync('NOTES.md', 'pass\\n')`, 1: `${FIX}\n${DONE}` })
  const p = await project(projectFiles(worker))
  p.api.state.addUser('maintainer', { role: 'write' })
  const issue = p.api.state.addIssue({ title: 'add() subtracts', body: 'b', user: 'maintainer' })
  const ask = (body: string) => {
    const comment = p.api.state.addComment(issue.number, { body, user: 'maintainer' })
    return runAction(p, e2e.stand(), {
      inputs: { ralph: 'fix-tests' },
      eventName: 'issue_comment',
      event: p.api.events.issueComment(comment.id)
    })
  }
  const first = await ask('/ralph')
  expect(first.outputs['pr-operation']).toBe('created')
  const second = await ask('/ralph -- and add a note')
  expect(second.main.exitCode).toBe(0)
  expect(second.outputs).toMatchObject({
    branch: `ralph/issue-${issue.number}`,
    'pr-operation': 'updated',
    'pr-number': first.outputs['pr-number']
  })
  expect(p.api.state.pulls).toHaveLength(1)
  expect(p.remoteGit('show', `ralph/issue-${issue.number}:NOTES.md`)).toBe('pass\npass\n')
  expect(p.api.state.pulls[0].body).toContain(`Closes #${issue.number}`)
  expectClean(p)
})

test('the tracking comment is edited after every iteration, then finalised', async () => {
  const twice = agentScript({ 1: `say('looking')`, 2: `${FIX}\n${DONE}` })
  const p = await project(projectFiles(twice))
  p.api.state.addUser('maintainer', { role: 'maintain' })
  const issue = p.api.state.addIssue({ title: 'add() subtracts', body: 'b', user: 'maintainer' })
  const comment = p.api.state.addComment(issue.number, { body: '/ralph', user: 'maintainer' })
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    eventName: 'issue_comment',
    event: p.api.events.issueComment(comment.id)
  })
  expect(run.main.exitCode).toBe(0)
  expect(run.outputs.iterations).toBe('2')
  const [tracking] = p.api.state.comments.filter(c => c.issueNumber === issue.number && c.id !== comment.id)
  const edits = p.api.requests.filter(
    r => r.method === 'PATCH' && r.path.endsWith(`/comments/${tracking.id}`)
  )
  // One edit per iteration, then the final one.
  expect(edits).toHaveLength(3)
  // Created as starting; each edit says how far it got, the gates, the cost so far and where the run is.
  const created = p.api.requests.find(r => r.method === 'POST' && r.operationId === 'issues/create-comment')
  expect((created?.body as { body: string }).body).toMatch(/is working… \(starting\)/)
  const [afterOne, afterTwo] = edits.map(r => (r.body as { body: string }).body)
  expect(afterOne).toMatch(/is working… \(1 iteration done of at most \d+\)/)
  expect(afterOne).toMatch(/\| 1 \|[^\n]*✗ `tests`/)
  expect(afterOne).toContain('Cost so far:')
  expect(afterOne).toMatch(
    /\[The run\]\(http:\/\/github\.localhost:\d+\/octo-org\/octo-repo\/actions\/runs\/\d+\)/
  )
  expect(afterTwo).toMatch(/\(2 iterations done/)
  expect(afterTwo).toMatch(/\| 2 \|[^\n]*✓ `tests`/)
  expect(tracking.body).toContain('state=final')
  expect(tracking.body).toContain(run.outputs['pr-url'])
  // The post step leaves a comment main finalised alone.
  expect(run.post?.stdout).toContain('The main step finished')
  expectClean(p)
})

test('/ralph on a same-repository pull request pushes onto its branch and updates it: no new PR, no Closes', async () => {
  const agent = fixingAgent()
  const p = await project(projectFiles(agent.script))
  p.remoteGit('branch', 'feature', 'main')
  p.api.state.addUser('maintainer', { role: 'write' })
  const pull = p.api.state.addPull({
    title: 'My feature',
    body: 'What I meant to do.',
    head: 'feature',
    base: 'main',
    user: 'maintainer'
  })
  const comment = p.api.state.addComment(pull.number, { body: '/ralph fix-tests', user: 'maintainer' })
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    eventName: 'issue_comment',
    event: p.api.events.issueComment(comment.id)
  })
  expect(run.main.exitCode).toBe(0)
  expect(run.outputs).toMatchObject({
    branch: 'feature',
    'pr-operation': 'updated',
    'pr-number': String(pull.number)
  })
  expect(p.api.state.pulls).toHaveLength(1)
  // The pull request is its author's: the push updates it, its title and description stay theirs.
  expect(p.api.state.pulls[0]).toMatchObject({ title: 'My feature', body: 'What I meant to do.' })
  expect(p.api.requests.filter(r => r.method === 'PATCH' && r.path.includes('/pulls/'))).toEqual([])
  expect(p.remoteGit('show', 'feature:calc.js')).toContain('a + b')
  // The tracking comment on its conversation links it.
  const tracking = p.api.state.comments.filter(c => c.issueNumber === pull.number && c.id !== comment.id)
  expect(tracking.map(c => c.body)).toEqual([expect.stringContaining(run.outputs['pr-url'])])
  expectClean(p)
})

test('/ralph on a pull request whose gates never pass pushes nothing onto its branch, whatever on-failure says', async () => {
  const p = await project(projectFiles(agentScript({ any: `${WRONG_FIX}` })))
  p.remoteGit('branch', 'feature', 'main')
  const before = p.remoteGit('rev-parse', 'feature').trim()
  p.api.state.addUser('maintainer', { role: 'write' })
  const pull = p.api.state.addPull({ title: 'Mine', head: 'feature', base: 'main', user: 'maintainer' })
  const comment = p.api.state.addComment(pull.number, { body: '/ralph fix-tests', user: 'maintainer' })
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'max-iterations': '1', 'on-failure': 'draft-pr' },
    eventName: 'issue_comment',
    event: p.api.events.issueComment(comment.id)
  })
  expect(run.main.exitCode).not.toBe(0)
  expect(run.outputs['pr-operation']).toBe('none')
  expect(p.remoteGit('rev-parse', 'feature').trim()).toBe(before)
  const [tracking] = p.api.state.comments.filter(c => c.issueNumber === pull.number && c.id !== comment.id)
  expect(tracking.body).toMatch(/nothing was pushed onto pull request #\d+'s branch/)
  expectClean(p)
})

test('a read-only commenter gets a reply saying why, and no agent runs', async () => {
  const agent = fixingAgent()
  const p = await project(projectFiles(agent.script))
  p.api.state.addUser('passer-by', { role: 'read' })
  const issue = p.api.state.addIssue({ title: 'Please', body: '$(touch pwned)', user: 'passer-by' })
  const comment = p.api.state.addComment(issue.number, { body: '/ralph fix-tests', user: 'passer-by' })
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    eventName: 'issue_comment',
    event: p.api.events.issueComment(comment.id)
  })
  expect(run.main.exitCode).toBe(0)
  expect(existsSync(agent.ran)).toBe(false)
  expect(p.api.state.pulls).toEqual([])
  const replies = p.api.state.comments.filter(c => c.issueNumber === issue.number && c.id !== comment.id)
  expect(replies).toHaveLength(1)
  expect(replies[0].body).toMatch(/@passer-by/)
  expect(run.main.commands.some(c => c.command === 'warning' && /^Refused/.test(c.message))).toBe(true)
  expect(p.api.state.reactionsOn('comment', comment.id)).toEqual([])
  expect(p.git('branch', '--list', 'ralph/*').trim()).toBe('')
  expect(run.post?.exitCode).toBe(0)
  expectClean(p)
})

test('a comment that is not /ralph is skipped quietly', async () => {
  const agent = fixingAgent()
  const p = await project(projectFiles(agent.script))
  p.api.state.addUser('maintainer', { role: 'write' })
  const issue = p.api.state.addIssue({ title: 'x', body: 'y', user: 'maintainer' })
  const comment = p.api.state.addComment(issue.number, { body: 'thanks! /ralph later', user: 'maintainer' })
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    eventName: 'issue_comment',
    event: p.api.events.issueComment(comment.id)
  })
  expect(run.main.exitCode).toBe(0)
  expect(existsSync(agent.ran)).toBe(false)
  expect(p.api.state.comments).toHaveLength(1)
  expectClean(p)
})

/** A /ralph whose agent waits a minute after it starts; `stop` signals main once the agent runs. */
async function stoppedMidAgent(name: string, stop: (child: ChildProcess) => Promise<void>) {
  const started = path.join(e2e.scratch(), `${name}-started`)
  const slow = agentScript({
    any: `fs.writeFileSync(${JSON.stringify(started)}, 'x'); await new Promise(r => setTimeout(r, 60000))`
  })
  const p = await project(projectFiles(slow))
  p.api.state.addUser('maintainer', { role: 'admin' })
  const issue = p.api.state.addIssue({ title: 'slow', body: 'b', user: 'maintainer' })
  const comment = p.api.state.addComment(issue.number, { body: '/ralph', user: 'maintainer' })
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    eventName: 'issue_comment',
    event: p.api.events.issueComment(comment.id),
    duringMain: async child => {
      await waitForFile(started)
      await stop(child)
    }
  })
  const tracking = p.api.state.comments.filter(c => c.issueNumber === issue.number && c.id !== comment.id)
  return { p, run, tracking }
}

test('cancelled mid-agent: the post step finalises the tracking comment as cancelled', async () => {
  const { p, run, tracking } = await stoppedMidAgent('cancelled', async child => {
    child.kill('SIGINT')
    await new Promise(r => setTimeout(r, 500))
    child.kill('SIGTERM')
  })
  expect(run.main.exitCode).not.toBe(0)
  expect(tracking).toHaveLength(1)
  expect(tracking[0].body).toContain('state=final')
  expect(tracking[0].body).toMatch(/Cancelled/)
  expect(run.post?.stdout).toMatch(/tracking comment on #\d+: finalised/)
  expectClean(p)
})

test('main killed outright (SIGKILL) mid-agent: the post step still finalises the tracking comment', async () => {
  const { p, run, tracking } = await stoppedMidAgent('killed', async child => {
    child.kill('SIGKILL')
  })
  expect(run.main.signal ?? run.main.exitCode).not.toBe(0)
  expect(tracking).toHaveLength(1)
  expect(tracking[0].body).toContain('state=final')
  expect(tracking[0].body).toMatch(/Cancelled/)
  expect(run.post?.exitCode).toBe(0)
  expect(run.post?.stdout).toMatch(/tracking comment on #\d+: finalised/)
  // The agent outlived main (nothing was left to kill it): post did.
  expect(run.post?.stdout).toMatch(/Killed what the loop left running: pid \d+/)
  expectClean(p)
})

test("two nightly runs leave one pull request, updated: the second continues the first one's branch", async () => {
  const hunter = agentScript({ any: `fs.appendFileSync('NOTES.md', 'hunted\\n')`, 1: `${FIX}\n${DONE}` })
  const p = await project(projectFiles(hunter))
  // The hunter's notes are more than its gates: continuing is what is tested here, so a green branch still runs.
  const nightly = () =>
    runAction(p, e2e.stand(), {
      inputs: { ralph: 'fix-tests', 'skip-if-green': 'false' },
      eventName: 'schedule',
      event: p.api.events.schedule()
    })
  const first = await nightly()
  expect(first.main.exitCode).toBe(0)
  expect(first.outputs['pr-operation']).toBe('created')
  const second = await nightly()
  expect(second.main.exitCode).toBe(0)
  expect(second.outputs).toMatchObject({ 'pr-operation': 'updated', 'pr-number': first.outputs['pr-number'] })
  expect(p.api.state.pulls).toHaveLength(1)
  // Continued, not recreated: both nights' commits are on the branch.
  expect(p.remoteGit('rev-list', '--count', 'main..ralph/fix-tests').trim()).toBe('2')
  expect(p.remoteGit('show', 'ralph/fix-tests:NOTES.md')).toBe('hunted\nhunted\n')
  expect(second.main.stdout).toContain('Continuing ralph/fix-tests')
  expectClean(p)
})

test('a nightly hunt whose branch is already green runs no agent (skip-if-green auto): its pull request is left as it is', async () => {
  const runs = path.join(e2e.scratch(), 'green-hunt-runs')
  const hunter = agentScript({
    any: `fs.appendFileSync(${JSON.stringify(runs)}, 'run\\n')`,
    1: `${FIX}\n${DONE}`
  })
  const p = await project(projectFiles(hunter))
  const nightly = () =>
    runAction(p, e2e.stand(), {
      inputs: { ralph: 'fix-tests' },
      eventName: 'schedule',
      event: p.api.events.schedule()
    })
  const first = await nightly()
  expect(first.outputs).toMatchObject({ 'stop-reason': 'all_checks_passed', 'pr-operation': 'created' })
  const tip = p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()
  const second = await nightly()
  expect(second.main.exitCode).toBe(0)
  expect(second.outputs).toMatchObject({
    'stop-reason': 'already_green',
    'pr-operation': 'none',
    iterations: '0'
  })
  expect(second.main.stdout).toContain('Continuing ralph/fix-tests')
  // One agent run in two nights: the first fixed the tests, the second found them green.
  expect(readFileSync(runs, 'utf8')).toBe('run\n')
  expect(p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()).toBe(tip)
  expect(p.api.state.pulls).toHaveLength(1)
  expectClean(p)
})

test('workflow_dispatch runs are hunts too: a second dispatch continues the open pull request, not a new one', async () => {
  const hunter = agentScript({ any: `fs.appendFileSync('NOTES.md', 'by hand\\n')`, 1: `${FIX}\n${DONE}` })
  const p = await project(projectFiles(hunter))
  const dispatch = () =>
    runAction(p, e2e.stand(), {
      inputs: { ralph: 'fix-tests', 'skip-if-green': 'false' },
      eventName: 'workflow_dispatch',
      event: p.api.events.workflowDispatch()
    })
  const first = await dispatch()
  expect(first.outputs['pr-operation']).toBe('created')
  const second = await dispatch()
  expect(second.main.exitCode).toBe(0)
  expect(second.outputs).toMatchObject({ 'pr-operation': 'updated', 'pr-number': first.outputs['pr-number'] })
  expect(p.api.state.pulls).toHaveLength(1)
  // The first dispatch's commit is kept: the branch was continued, not rebuilt and force-pushed.
  expect(p.remoteGit('show', 'ralph/fix-tests:NOTES.md')).toBe('by hand\nby hand\n')
  expectClean(p)
})

test('a hunt dispatched from another branch still continues its pull request against main: never a second PR', async () => {
  const hunter = agentScript({ any: `fs.appendFileSync('NOTES.md', 'hunted\\n')`, 1: `${FIX}\n${DONE}` })
  const p = await project(projectFiles(hunter))
  const first = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    eventName: 'schedule',
    event: p.api.events.schedule()
  })
  expect(first.outputs['pr-operation']).toBe('created')
  // Someone runs the workflow by hand from `dev`: that is what is checked out.
  // (The remote is served from this process: the test's git must not talk to it synchronously.)
  p.remoteGit('branch', 'dev', 'main')
  p.git('checkout', '--quiet', '-b', 'dev')
  const second = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'skip-if-green': 'false' },
    eventName: 'workflow_dispatch',
    event: { ...p.api.events.workflowDispatch(), ref: 'refs/heads/dev' },
    env: { GITHUB_REF: 'refs/heads/dev', GITHUB_REF_NAME: 'dev' }
  })
  expect(second.main.exitCode).toBe(0)
  expect(second.outputs).toMatchObject({ 'pr-operation': 'updated', 'pr-number': first.outputs['pr-number'] })
  expect(p.api.state.pulls.map(pr => [pr.head, pr.base])).toEqual([['ralph/fix-tests', 'main']])
  expect(p.remoteGit('show', 'ralph/fix-tests:NOTES.md')).toBe('hunted\nhunted\n')
  expectClean(p)
})

test("pull_request synchronize: the loop's own push (with a push-token) does not start another loop", async () => {
  const runs = path.join(e2e.scratch(), 'pr-runs')
  const worker = agentScript({
    any: `fs.appendFileSync(${JSON.stringify(runs)}, 'run\\n')`,
    1: `${FIX}\n${DONE}`
  })
  const p = await project(projectFiles(worker))
  p.remoteGit('branch', 'feature', 'main')
  p.api.state.addUser('maintainer', { role: 'write' })
  const pull = p.api.state.addPull({ title: 'Mine', head: 'feature', base: 'main', user: 'maintainer' })
  // The push-token is a machine user's PAT: GitHub names that user as the sender of what it pushes.
  const pat = 'ghp_StandInPersonalAccessToken0123456789'
  p.gitServer.tokens.set(pat, 'write')
  p.api.state.addUser('ralph-machine', { role: 'write' })
  p.api.state.tokens.set(pat, 'ralph-machine')
  const onPull = (action: string, sender = 'maintainer') =>
    runAction(p, e2e.stand(), {
      inputs: { ralph: 'fix-tests', 'push-token': pat },
      eventName: 'pull_request',
      event: p.api.events.pullRequest(pull.number, action, { sender })
    })
  const opened = await onPull('opened')
  expect(opened.main.exitCode).toBe(0)
  expect(opened.outputs['pr-operation']).toBe('updated')
  expect(p.remoteGit('log', '-1', '--format=%ce', 'feature').trim()).toBe(
    '41898282+github-actions[bot]@users.noreply.github.com'
  )
  // GitHub sends synchronize for that push (a PAT's pushes start workflows), from the token's user: it
  // ends without an agent, whatever committer the commits name.
  const echo = await onPull('synchronize', 'ralph-machine')
  expect(echo.main.exitCode).toBe(0)
  expect(echo.main.stdout).toMatch(
    /Nothing to do: ralph-machine, the account the action pushes and opens pull requests with, sent this event/
  )
  // And when the tip is the loop's own commit, whoever sent the event.
  const again = await onPull('synchronize')
  expect(again.main.exitCode).toBe(0)
  expect(again.main.stdout).toMatch(
    /Nothing to do: the tip of feature \([0-9a-f]{12}\) is a loop's own commit/
  )
  expect(readFileSync(runs, 'utf8')).toBe('run\n')
  // A person's push to it does start one.
  p.pushToRemote('feature', { 'README.md': 'mine\n' }, 'my own change')
  const human = await onPull('synchronize')
  expect(human.main.exitCode).toBe(0)
  expect(readFileSync(runs, 'utf8')).toBe('run\nrun\n')
  expectClean(p)
})

test('max-open-prs: a hunt at the cap with no pull request of its own runs no agent', async () => {
  const agent = fixingAgent()
  const p = await project(projectFiles(agent.script))
  p.api.state.addPull({
    title: 'other hunt',
    head: 'ralph/docs',
    base: 'main',
    user: 'github-actions[bot]',
    body: '<!-- ralph-action:pull-request -->\nthe docs hunt'
  })
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'max-open-prs': '1' },
    eventName: 'schedule',
    event: p.api.events.schedule()
  })
  expect(run.main.exitCode).toBe(0)
  expect(existsSync(agent.ran)).toBe(false)
  expect(run.main.commands.some(c => c.command === 'notice' && /max-open-prs is 1/.test(c.message))).toBe(
    true
  )
  expectClean(p)
})

test('report-issue: a failed hunt opens one issue labelled ralph, the next failure updates it (no duplicate)', async () => {
  const p = await project(projectFiles(agentScript({ any: `say('nothing found')` })))
  const nightly = (inputs: Record<string, string> = {}) =>
    runAction(p, e2e.stand(), {
      inputs: { ralph: 'fix-tests', 'report-issue': 'true', 'max-iterations': '1', ...inputs },
      eventName: 'schedule',
      event: p.api.events.schedule()
    })
  const first = await nightly()
  expect(first.main.exitCode).not.toBe(0)
  expect(p.api.state.issues).toHaveLength(1)
  const [report] = p.api.state.issues
  expect(report.labels).toEqual(['ralph'])
  expect(report.body).toContain('failures=1')
  await nightly()
  expect(p.api.state.issues).toHaveLength(1)
  expect(p.api.state.issues[0].body).toContain('failures=2')
  expect(p.api.state.issues[0].state).toBe('open')
  expectClean(p)
})

test('report-issue: a hunt that succeeds after failing closes its failure report, linking the pull request', async () => {
  const fixed = path.join(e2e.scratch(), 'hunt-can-fix')
  const p = await project(
    projectFiles(
      agentScript({
        any: `if (fs.existsSync(${JSON.stringify(fixed)})) { ${FIX}; ${DONE} } else say('nothing')`
      })
    )
  )
  const nightly = () =>
    runAction(p, e2e.stand(), {
      inputs: { ralph: 'fix-tests', 'report-issue': 'true', 'max-iterations': '1' },
      eventName: 'schedule',
      event: p.api.events.schedule()
    })
  expect((await nightly()).main.exitCode).not.toBe(0)
  const [report] = p.api.state.issues
  expect(report.state).toBe('open')
  writeFileSync(fixed, 'yes')
  const good = await nightly()
  expect(good.main.exitCode).toBe(0)
  expect(p.api.state.issues).toHaveLength(1)
  expect(p.api.state.issues[0].state).toBe('closed')
  const closing = p.api.state.comments.filter(c => c.issueNumber === report.number).at(-1)
  expect(closing?.body).toContain(`opened ${good.outputs['pr-url']}`)
  expect(good.main.stdout).toContain(`Closed the failure report #${report.number}`)
  expectClean(p)
})

void RALPH_DIR
