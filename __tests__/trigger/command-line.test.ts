// Issue #26: the command is the first line as posted. It is parsed before anything is sanitised or cut; a
// command line that hides text from a reader (an invisible or bidi character, an HTML comment that closes
// on a later line) is refused with a reply; the actor is checked before the rest is sanitised, and every
// sanitiser pass is linear, so an outsider's hostile comment costs what a plain one of its size does.
import { parseRalphCommand } from '../../src/trigger/grammar.js'
import { sanitizeText } from '../../src/trigger/sanitize.js'
import { REFUSAL_MARKER } from '../../src/trigger/replies.js'
import { useWorld, world } from './world.js'

describe('the command line as posted', () => {
  test.each([
    [
      'an HTML comment opened on it and closed on a later line',
      '/ralph echo <!--\nhidden\n-->--focus=HIDDEN',
      /an HTML comment that does not close on that line/
    ],
    [
      'a right-to-left override (renders as `/ralph lpt`)',
      '/ralph \u202Etpl\u202C',
      /an invisible or bidi character \(U\+202E\)/
    ],
    ['a zero-width space inside a name', '/ralph ec\u200Bho', /an invisible or bidi character \(U\+200B\)/],
    [
      'a zero-width space written as a reference',
      '/ralph echo --focus=a&#8203;b',
      /a character reference to an invisible character/
    ],
    [
      'a next-line character inside a quoted value',
      '/ralph echo --focus "a\u0085b"',
      /an invisible or bidi character \(U\+0085\)/
    ]
  ])('%s is refused', (_what, body, why) => {
    expect(parseRalphCommand(body)).toEqual({ kind: 'invalid', problem: expect.stringMatching(why) })
  })

  test('an HTML comment that closes on the command line is removed, as a reader sees it; the lines below are free text', () => {
    expect(parseRalphCommand('/ralph echo <!-- note --> --focus=a\nbelow <!-- x')).toEqual({
      kind: 'command',
      name: 'echo',
      args: { focus: 'a' },
      freeText: 'below <!-- x'
    })
  })

  test('a long command line is parsed whole, never cut first (3,000 args)', () => {
    const line = `/ralph echo ${Array.from({ length: 3000 }, (_, i) => `--a${i} v${i}`).join(' ')}`
    expect(line.length).toBeGreaterThan(24000)
    const command = parseRalphCommand(`${line}\n${'x'.repeat(40000)}`)
    expect(command).toMatchObject({ kind: 'command', name: 'echo' })
    expect(command.kind === 'command' && Object.keys(command.args)).toHaveLength(3000)
  })
})

/** This process's CPU time since `since` (another process's load does not count, as it does in wall time). */
const cpuMsSince = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since)
  return (used.user + used.system) / 1000
}

describe('cost before the permission check', () => {
  const w = useWorld()

  test("an outsider's 64 KB hostile comment is refused as fast as a plain one of the same size", async () => {
    w.api.state.addUser('rob', { role: 'read' })
    const issue = w.api.state.addIssue({ title: 'x', body: 'y' })
    const timed = async (body: string) => {
      const comment = w.api.state.addComment(issue.number, { body, user: 'rob' })
      const started = process.cpuUsage()
      const plan = await w.plan('issue_comment', w.api.events.issueComment(comment.id))
      const ms = cpuMsSince(started)
      expect(plan).toMatchObject({ kind: 'refuse', reason: expect.stringMatching(/`rob` has the read role/) })
      return ms
    }
    const size = 64 * 1024
    const plain = await timed(`/ralph echo\n${'a'.repeat(size)}`)
    const hostile = await timed(`/ralph echo\n${'<!--'.repeat(size / 4)}`)
    expect(hostile).toBeLessThan(1.5 * plain + 40)
    expect(w.api.state.comments.filter(c => c.body.startsWith(REFUSAL_MARKER))).toHaveLength(0)
  })

  test('every sanitiser pass is linear: 64 KB of hostile markup (unclosed <!--, <script, <style, tags, math, links) costs what prose of that size does', () => {
    const size = 64 * 1024
    const timed = (text: string) => {
      const started = process.cpuUsage()
      sanitizeText(text)
      return cpuMsSince(started)
    }
    const prose = 'Some *words*, <b>bold</b>, `code` and a [link](https://x.test "t").\n'
    const plain = timed(prose.repeat(Math.ceil(size / prose.length)))
    for (const unit of [
      '<!--',
      '<script',
      '<style>',
      '<script><!--',
      '<a ',
      '$x',
      '![a',
      '](x "',
      '<a\n'
    ] as const) {
      const hostile = timed(unit.repeat(Math.floor(size / unit.length)))
      expect({ unit, slow: hostile > 5 * plain + 20 }).toEqual({ unit, slow: false })
    }
    // What they remove is unchanged.
    expect(sanitizeText('a<!-- x -->b<!-->c<!--->d<!-- open')).toBe('abcd')
    expect(sanitizeText('a<script src=x>evil()</script >b<STYLE>x</style>c<script>unclosed')).toBe(
      'abc<script>unclosed'
    )
  })
})

test('a refused command line gets a reply that says why, and no agent runs', async () => {
  const w = await world()
  try {
    w.api.state.addUser('alice', { role: 'write' })
    const issue = w.api.state.addIssue({ title: 'x', body: 'y' })
    const comment = w.api.state.addComment(issue.number, {
      body: '/ralph echo <!--\nhidden\n-->--focus=HIDDEN',
      user: 'alice'
    })
    const plan = await w.plan('issue_comment', w.api.events.issueComment(comment.id))
    expect(plan).toMatchObject({
      kind: 'refuse',
      reason: expect.stringMatching(/does not close on that line/)
    })
    await w.execute(plan)
    expect(w.agentRan()).toBe(false)
    expect(w.api.state.comments.filter(c => c.body.startsWith(REFUSAL_MARKER))).toEqual([
      expect.objectContaining({ body: expect.stringMatching(/does not close on that line/) })
    ])
    w.expectClean()
  } finally {
    await w.close()
  }
})
