// A role decides by its name first, in any case: a read, none or triage role_name refuses even when the legacy
// permission says write (GitHub reports a custom role's base there). In-process against the stand-in; the end
// to end test of the rule is in action/security-round-two.e2e.test.ts.
import { world, type World } from './world.js'

let w: World
beforeEach(async () => {
  w = await world()
})
afterEach(async () => {
  w.expectClean()
  await w.close()
})

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
