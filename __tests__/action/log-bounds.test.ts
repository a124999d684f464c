// The job log is bounded: of an agent that prints 300 MB, the log gets the head and the tail with one line
// saying how much was left out and where all of it is, while the record's agent.log keeps every byte.
import { statSync } from 'node:fs'
import path from 'node:path'
import { actionLogger, AGENT_ECHO_SHARE_BYTES } from '../../src/action/log.js'
import { harness, type Harness } from '../loop/harness.js'

let h: Harness
beforeEach(() => (h = harness()))
afterEach(() => h.cleanup())

const MB300 = 300_000_000

/** Everything written to the job log (our writer and @actions/core's lines), while `fn` runs. */
async function jobLog(fn: (write: (text: string) => void) => Promise<void>): Promise<string> {
  let log = ''
  const write = (text: string): void => {
    log += text
  }
  const real = process.stdout.write.bind(process.stdout)
  process.stdout.write = ((chunk: string | Uint8Array): boolean => {
    write(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
    return true
  }) as typeof process.stdout.write
  try {
    await fn(write)
  } finally {
    process.stdout.write = real
  }
  return log
}

test('300 MB of agent output: the job log gets its head and tail and one line naming the record file; agent.log has all of it', async () => {
  // A forged workflow command at each end: still defused in what the log shows.
  const agent = h.script(
    'agent',
    `cat > /dev/null
printf 'FIRST LINE\\n::error::forged at the head\\n'
yes 'the agent keeps talking' | head -c ${MB300 - 200}
printf '\\n::warning::forged at the tail\\nLAST LINE\\n'`
  )
  h.writeRalph(`agent: ${agent}`, 'Talk a lot.')
  let result!: Awaited<ReturnType<Harness['run']>>['result']
  const log = await jobLog(async write => {
    const config = h.config({ maxIterations: 1 })
    const logger = actionLogger(config, { write }, { artifactName: 'ralph-record' })
    ;({ result } = await h.run({ maxIterations: 1 }, { emit: logger.emit }))
    logger.close()
  })
  const agentLog = result.iterations[0].agent?.log ?? ''
  expect(agentLog).toBe('logs/iteration-001/agent.log')
  const printed = statSync(path.join(h.record, agentLog)).size
  // The record keeps every byte the agent printed.
  expect(printed).toBeGreaterThan(MB300 - 300)
  // The log: at most the two shares and our own lines.
  expect(Buffer.byteLength(log)).toBeLessThan(2 * AGENT_ECHO_SHARE_BYTES + 64 * 1024)
  expect(log).toContain('FIRST LINE')
  expect(log).toContain('LAST LINE')
  expect(log).not.toMatch(/^::error::forged/m)
  expect(log).not.toMatch(/^::warning::forged/m)
  expect(log).toContain('forged at the head')
  expect(log).toContain('forged at the tail')
  const leftOut = log.split('\n').filter(line => line.includes("of the agent's output left out here"))
  expect(leftOut).toHaveLength(1)
  expect(leftOut[0]).toContain(
    'all of it is in the run record (artifact ralph-record): logs/iteration-001/agent.log'
  )
  // The line says how much: what was printed less what the log shows (in MB, to one decimal).
  const shown = (printed - 2 * AGENT_ECHO_SHARE_BYTES) / 1e6
  expect(leftOut[0]).toContain(`${shown.toFixed(1)} MB`)
  // Head, then the line, then the tail.
  expect(log.indexOf('FIRST LINE')).toBeLessThan(log.indexOf(leftOut[0]))
  expect(log.indexOf(leftOut[0])).toBeLessThan(log.indexOf('LAST LINE'))
}, 300_000)

test('an agent that prints less than the two shares is echoed whole, with no line about left-out output', async () => {
  const agent = h.script('agent', `cat > /dev/null\nfor i in $(seq 1 10000); do echo "line $i"; done`)
  h.writeRalph(`agent: ${agent}`, 'Talk a little.')
  const log = await jobLog(async write => {
    const logger = actionLogger(h.config({ maxIterations: 1 }), { write }, { agentEchoShareBytes: 64 * 1024 })
    await h.run({ maxIterations: 1 }, { emit: logger.emit })
    logger.close()
  })
  expect(log).not.toContain('left out here')
  const lines = log.split('\n').filter(line => /^line \d+$/.test(line))
  expect(lines).toHaveLength(10000)
  expect(lines[9999]).toBe('line 10000')
})

test("a failing check's 5 MB and a command's 5 MB: the log gets the check's last lines and one line naming each log in the record", async () => {
  const agent = h.script('agent', 'cat > /dev/null; echo working')
  h.writeRalph(
    [
      `agent: ${agent}`,
      'commands:',
      '  - name: listing',
      '    run: seq 1 700000',
      'checks:',
      '  - name: big',
      "    run: 'seq 1 700000; echo the real error; exit 1'",
      '  - name: small',
      "    run: 'echo only this; exit 1'"
    ].join('\n'),
    'Fix it.\n\n{{ commands.listing }}'
  )
  const log = await jobLog(async write => {
    // No baseline: the gates run once, in iteration 1.
    const logger = actionLogger(h.config({ maxIterations: 1, baseline: false }), { write })
    await h.run({ maxIterations: 1, baseline: false }, { emit: logger.emit })
    logger.close()
  })
  expect(Buffer.byteLength(log)).toBeLessThan(64 * 1024)
  expect(log).toMatch(
    /command listing: exit 0 \(.*\); its output \(4\.\d MB\) is in the run record: logs\/iteration-001\/commands\/listing\.log/
  )
  const big = log.split('\n').filter(line => line.includes('left out here'))
  expect(big).toHaveLength(1)
  expect(big[0]).toMatch(
    /^ {4}… 4\.\d MB of its output left out here; all of it is in the run record: logs\/iteration-001\/checks\/big\.log$/
  )
  expect(log).toContain('    the real error')
  expect(log).toContain('    only this')
})

test('the cut falls between characters: the head stops before a split one, the tail starts after it, and the count is exact', async () => {
  h.writeRalph('agent: cat', 'Do it.')
  const text = 'héllo wörld, ünïcode all the way to é theend\n'
  const bytes = Buffer.from(text)
  const log = await jobLog(async write => {
    const logger = actionLogger(h.config(), { write }, { agentEchoShareBytes: 9 })
    logger.emit({
      type: 'agent_started',
      iteration: 1,
      argv: ['cat'],
      promptFile: 'logs/iteration-001/prompt.md',
      log: 'logs/iteration-001/agent.log'
    })
    // Three bytes at a time: characters are split across chunks too.
    for (let i = 0; i < bytes.length; i += 3)
      logger.emit({ type: 'agent_output', iteration: 1, stream: 'stdout', chunk: bytes.subarray(i, i + 3) })
    logger.close()
  })
  // 9 bytes end inside 'ö', the last 9 start inside 'é': neither half-character is shown.
  const left = bytes.length - 18
  expect(log).toContain(`héllo w\n`)
  expect(log).toContain(
    `… ${left} bytes of the agent's output left out here (the log shows its first and last 9 bytes); all of it is in the run record: logs/iteration-001/agent.log\n`
  )
  expect(log).toMatch(/\n theend\n/)
  expect(log).not.toContain('\uFFFD')
})
