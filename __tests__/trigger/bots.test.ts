// Issue #35: bots never drive the action unless allowed-bots names them, whatever the event. The events that
// check who asked through the API (comments, labels, pull requests) refused bots already; a push, a dispatch
// or a schedule whose sender is a bot started a paid loop. Decided in admission, event by event, against the
// OpenAPI-checked GitHub stand-in, with payloads as GitHub writes them (the sender's login and type).
import { useWorld } from './world.js'
import type { Admission } from '../../src/trigger/types.js'

const w = useWorld()

const settings = { defaultRalph: '.agents/ralphs/echo/RALPH.md' }
type Json = Record<string, unknown>

/** Each event kind as `sender` makes it. `schedule` names no sender on GitHub; here one is added to it. */
const EVENTS: Record<string, (sender: string) => { eventName: string; payload: Json }> = {
  push: sender => ({ eventName: 'push', payload: w.api.events.push('main', { sender }) }),
  workflow_dispatch: sender => ({
    eventName: 'workflow_dispatch',
    payload: w.api.events.workflowDispatch({}, { sender })
  }),
  schedule: sender => ({
    eventName: 'schedule',
    payload: { ...w.api.events.schedule(), sender: w.api.events.push('main', { sender }).sender }
  }),
  issue_comment: sender => {
    const issue = w.api.state.addIssue({ title: 'Crash on save', body: 'It crashes.' })
    const comment = w.api.state.addComment(issue.number, { body: '/ralph echo', user: sender })
    return { eventName: 'issue_comment', payload: w.api.events.issueComment(comment.id) }
  },
  issues: sender => {
    const issue = w.api.state.addIssue({ title: 'Crash on save', body: 'It crashes.' })
    return {
      eventName: 'issues',
      payload: w.api.events.issues(issue.number, 'labeled', { label: 'ralph', sender })
    }
  },
  pull_request: sender => {
    const pull = w.api.state.addPull({ title: 'Bump x', head: 'main', base: 'release', user: sender })
    return { eventName: 'pull_request', payload: w.api.events.pullRequest(pull.number, 'opened', { sender }) }
  },
  workflow_run: sender => ({
    eventName: 'workflow_run',
    payload: { action: 'completed', sender: w.api.events.push('main', { sender }).sender }
  })
}

const plan = async (kind: string, sender: string): Promise<Admission> => {
  const { eventName, payload } = EVENTS[kind](sender)
  return w.plan(eventName, payload, settings)
}

describe('a bot that sends an event', () => {
  beforeEach(() => {
    w.repo.git('branch', 'release')
    w.api.state.addUser('renovate[bot]', { type: 'Bot', role: 'write' })
    w.api.state.addUser('trusted-app[bot]', { type: 'Bot', role: 'write' })
    // An App's account whose login has no [bot] suffix: its type says what it is.
    w.api.state.addUser('Copilot', { type: 'Bot', role: 'admin' })
  })

  // What each event does with a bot allowed-bots does not name: no loop, whoever gave it a role.
  test.each([
    [
      'push',
      'skip',
      /^this push event was sent by `renovate\[bot\]`, a bot \(a GitHub App\), and bots may start a loop only when the workflow names them in the allowed-bots input$/
    ],
    ['workflow_dispatch', 'skip', /^this workflow_dispatch event was sent by `renovate\[bot\]`, a bot/],
    ['schedule', 'skip', /^this schedule event was sent by `renovate\[bot\]`, a bot/],
    ['workflow_run', 'skip', /^this workflow_run event was sent by `renovate\[bot\]`, a bot/],
    ['issue_comment', 'refuse', /`renovate\[bot\]` is a bot \(a GitHub App\)/],
    ['issues', 'refuse', /`renovate\[bot\]` is a bot \(a GitHub App\)/],
    ['pull_request', 'skip', /`renovate\[bot\]` is a bot \(a GitHub App\)/]
  ])('%s: no loop (%s)', async (kind, outcome, why) => {
    const admission = await plan(kind, 'renovate[bot]')
    expect(admission).toMatchObject({ kind: outcome, reason: expect.stringMatching(why) })
    // Those with no permission check decide from the payload alone: no API call.
    if (outcome === 'skip' && kind !== 'pull_request') expect(w.api.requests).toEqual([])
    await w.execute(admission)
    expect(w.agentRan()).toBe(false)
  })

  test.each(['push', 'workflow_dispatch', 'schedule', 'issue_comment', 'issues', 'pull_request'])(
    '%s: an App whose login has no [bot] suffix is a bot all the same',
    async kind => {
      expect(await plan(kind, 'Copilot')).toMatchObject({
        kind: expect.stringMatching(/^(skip|refuse)$/),
        reason: expect.stringMatching(/`Copilot`(,| is) a bot/)
      })
    }
  )

  test.each(['push', 'workflow_dispatch', 'schedule', 'issue_comment', 'issues', 'pull_request'])(
    '%s: a bot allowed-bots names starts a loop',
    async kind => {
      expect(await plan(kind, 'trusted-app[bot]')).toMatchObject({ kind: 'run' })
    }
  )
})

test('people need no check on a push, a dispatch or a schedule; a schedule names no sender at all', async () => {
  w.api.state.addUser('alice', { role: 'read' })
  expect(await plan('push', 'alice')).toMatchObject({ kind: 'run', actor: { login: 'alice' } })
  expect(await plan('workflow_dispatch', 'alice')).toMatchObject({ kind: 'run', actor: { login: 'alice' } })
  expect(await w.plan('schedule', w.api.events.schedule(), settings)).toMatchObject({ kind: 'run' })
})
