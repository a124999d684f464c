// What the agent prints, and the names it gives files, reach the job log with every terminal control shown as
// a visible character, never acted on (issue #35): no colour (a green "✓ gate passed" painted by the agent), no
// OSC 8 link whose target is not its text, no title, no cursor move. Through dist/index.js as the runner runs
// it: the agent's echoed output (the log's filter), a warning naming its file, and an annotation made from a
// failing gate's output, which the agent's code writes (any line, at the sink).
import { expect, test } from '@jest/globals'
import { agentScript, DONE, FIX, projectFiles, ralph, RALPH_DIR } from './fixtures.js'
import { runAction } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()

/** Every control character (Unicode's Cc) but tab and the line breaks: what starts or ends a sequence. */
const CONTROL = /(?![\t\n\r])\p{Cc}/u

const PAINTED = '\u001b[32m✓ gate passed\u001b[0m'
const LINKS = [
  '\u001b]8;;https://evil.example/st\u001b\\the gate log\u001b]8;;\u001b\\',
  '\u001b]8;;https://evil.example/bel\u0007the gate log\u001b]8;;\u0007',
  '\u009d8;;https://evil.example/c1\u009cthe gate log\u009d8;;\u009c'
]
/** A file the agent leaves over max-file-size (a name holds no slash): the warning that says so names it. */
const NAME = '\u001b]8;;https:evil.example\u0007big\u001b]8;;\u0007.bin'

const painter = agentScript({
  1: [
    ...[PAINTED, ...LINKS, '\u001b]0;a title\u0007\u009b2J'].map(line => `say(${JSON.stringify(line)})`),
    `fs.writeFileSync(${JSON.stringify(NAME)}, Buffer.alloc(4096, 7))`,
    FIX,
    DONE
  ].join('\n')
})

/** A gate that fails with a tsc-style error whose message holds an OSC 8 link ended by ST (ESC \\). */
const LINT = `process.stdout.write('calc.js(1,1): error TS2322: ' + ${JSON.stringify(LINKS[0].replace('/st', '/tsc'))} + '\\n'); process.exit(1)\n`

test('an agent that paints “✓ gate passed” green, prints OSC 8 links and names a file with one: the job log shows every control, acts on none', async () => {
  const checks = ['node --test --test-reporter=spec', `node ${RALPH_DIR}/lint.mjs`]
  const p = await e2e.project({
    ...projectFiles(painter, ralph({ checks })),
    [`${RALPH_DIR}/lint.mjs`]: LINT
  })
  const run = await runAction(p, e2e.stand(), {
    inputs: {
      ralph: 'fix-tests',
      'max-iterations': '1',
      'max-file-size': '1 KB',
      'upload-artifacts': 'false'
    }
  })
  expect(run.outputs['stop-reason']).toBe('max_iterations')
  for (const step of [run.main, run.post]) {
    const log = `${step?.stdout ?? ''}${step?.stderr ?? ''}`
    expect(log.split('\n').filter(line => CONTROL.test(line))).toEqual([])
  }
  // Shown, for people: the agent's words with each control as its picture.
  const log = run.main.stdout
  expect(log).toContain('␛[32m✓ gate passed␛[0m')
  expect(log).toContain('␛]8;;https://evil.example/st␛\\the gate log␛]8;;␛\\')
  expect(log).toContain('␛]8;;https://evil.example/bel␇the gate log␛]8;;␇')
  expect(log).toContain('\ufffd8;;https://evil.example/c1\ufffdthe gate log')
  // A warning of ours that names the agent's file: one line, its name escaped as every path of the tree is
  // in the log (showPath: git's quoting), so no control of it reaches the log.
  const warnings = run.main.commands.filter(c => c.command === 'warning').map(c => c.message)
  expect(warnings).toContainEqual(
    expect.stringContaining(
      '"\\u{001b}]8;;https:evil.example\\u{0007}big\\u{001b}]8;;\\u{0007}.bin": 4096 bytes is over max-file-size'
    )
  )
  // The failing gate's annotation: its message as the gate printed it, the link shown.
  expect(run.main.errors.filter(e => e.properties.file === 'calc.js').map(e => e.message)).toEqual([
    '␛]8;;https://evil.example/tsc␛\\the gate log␛]8;;␛\\'
  ])
  e2e.expectClean(p)
}, 240_000)
