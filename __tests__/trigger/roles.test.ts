// A role decides by its name first, in any case: a read, none or triage role_name refuses even when the legacy
// permission says write (GitHub reports a custom role's base there). In-process against the stand-in; the end
// to end test of the rule is in action/security-round-two.e2e.test.ts.
import { createServer, type AddressInfo } from 'node:net'
import { getOctokit } from '@actions/github'
import { admitEvent } from '../../src/trigger/admission.js'
import type { Octokit } from '../../src/github/client.js'
import { useWorld } from './world.js'

const w = useWorld()

test.each(['Read', 'read', 'None', 'TRIAGE', 'triage'])(
  'role_name %s refuses, whatever its case, though the legacy permission says write',
  async roleName => {
    w.api.state.addUser('cas', { role: { roleName, base: 'write' } })
    const created = w.api.state.addIssue({ title: 'Crash on save', body: 'It crashes.' })
    const comment = w.api.state.addComment(created.number, { body: '/ralph echo', user: 'cas' })
    const plan = await w.plan('issue_comment', w.api.events.issueComment(comment.id))
    expect(plan).toMatchObject({
      kind: 'refuse',
      reason: expect.stringMatching(new RegExp(`\`cas\` has the ${roleName} role`))
    })
  }
)

test('a check that cannot be made is no refusal: unchecked, said as GitHub not answering, no status made up, no reply', async () => {
  // A port just closed: the request gets no answer at all (as with an unreachable or mistyped GITHUB_API_URL).
  const port = await new Promise<number>(resolve => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
  const silent = getOctokit('ghs_token', {
    baseUrl: `http://127.0.0.1:${port}`,
    request: { retries: 0 }
  }) as Octokit
  const created = w.api.state.addIssue({ title: 'Crash on save', body: 'It crashes.' })
  const comment = w.api.state.addComment(created.number, { body: '/ralph echo', user: 'octocat' })
  const plan = await admitEvent(
    { eventName: 'issue_comment', payload: w.api.events.issueComment(comment.id) },
    w.settings,
    silent
  )
  expect(plan).toMatchObject({ kind: 'refuse', unchecked: true })
  expect(plan).not.toHaveProperty('reply')
  const reason = (plan as { reason: string }).reason
  expect(reason).toMatch(
    /^could not check whether `octocat` may start a loop: the GitHub API did not answer \(.*ECONNREFUSED.*\)$/
  )
  expect(reason).not.toMatch(/HTTP \d/)
})
