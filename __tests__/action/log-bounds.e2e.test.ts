// The job log is bounded, through dist/index.js as the runner runs it: an agent that prints 300 MB leaves the
// step's stdout at its head and tail and one line saying how much was left out and where all of it is, while
// the record on the runner keeps every byte.
import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from '@jest/globals'
import { agentScript, projectFiles } from './fixtures.js'
import { runAction } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()

const BYTES = 300_000_000

/** Prints a first line and a forged command, ~300 MB of lines, then a forged command and a last line. */
const loudAgent = agentScript({
  any: [
    'const write = text => { const buf = Buffer.from(text); let off = 0',
    "  while (off < buf.length) { try { off += fs.writeSync(1, buf, off) } catch (e) { if (e.code !== 'EAGAIN') throw e } } }",
    "write('FIRST LINE\\n::error::forged at the head\\n')",
    "const block = 'the agent keeps talking\\n'.repeat(4096)",
    `for (let n = 0; n < ${BYTES}; n += block.length) write(block)`,
    "write('::warning::forged at the tail\\nLAST LINE\\n')"
  ].join('\n')
})

test("an agent that prints 300 MB: the step's log gets its head and tail and one line naming the record's agent.log, which holds all of it", async () => {
  const p = await e2e.project(projectFiles(loudAgent))
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'max-iterations': '1', 'upload-artifacts': 'false' }
  })
  const log = run.main.stdout
  expect(Buffer.byteLength(log)).toBeLessThan(1_000_000)
  expect(log).toContain('FIRST LINE')
  expect(log).toContain('LAST LINE')
  // Still defused at both ends.
  expect(run.main.commands.filter(c => /forged/.test(c.message))).toEqual([])
  const leftOut = log.split('\n').filter(line => line.includes("of the agent's output left out here"))
  expect(leftOut).toHaveLength(1)
  expect(leftOut[0]).toMatch(
    /^… \d+\.\d MB of the agent's output left out here .*: logs\/iteration-001\/agent\.log$/
  )
  expect(log.indexOf('FIRST LINE')).toBeLessThan(log.indexOf(leftOut[0]))
  expect(log.indexOf(leftOut[0])).toBeLessThan(log.indexOf('LAST LINE'))
  // The record (left on the runner: no upload) keeps every byte.
  const temp = readdirSync(p.runnerTemp).filter(name => name.startsWith('ralph-record-'))
  const sizes = temp.map(
    dir => statSync(path.join(p.runnerTemp, dir, 'logs', 'iteration-001', 'agent.log')).size
  )
  expect(sizes).toHaveLength(1)
  expect(sizes[0]).toBeGreaterThan(BYTES)
}, 300_000)
