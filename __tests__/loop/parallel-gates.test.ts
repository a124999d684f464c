// Gates in parallel: they run together (proved by a rendezvous no sequential run can pass), each with its
// own log, their failures in the order declared whatever order they finish in, and a cancel or a budget
// kills every gate's tree.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { loadRalph, RalphError } from '../../src/ralph/index.js'
import { pausedClock } from '../support/clock.js'
import { harness, isAlive, pidsIn, waitFor, type Harness } from './harness.js'

let h: Harness
beforeEach(() => {
  h = harness()
})
afterEach(() => h.cleanup())

/** An agent that keeps its prompt and changes nothing. */
const quietAgent = (): string => h.script('agent.sh', `cat > '${h.tools}/prompt.txt'`)

/**
 * A gate that says it started (`<name>.started`), then waits (at most 20 s) until every other gate has
 * started too: only gates running at the same time can all pass.
 */
function rendezvous(name: string, others: string[]): string {
  const wait = others.map(o => `[ -f '${h.tools}/${o}.started' ]`).join(' && ')
  return `touch '${h.tools}/${name}.started'; for i in $(seq 200); do if ${wait}; then echo "${name} met the others"; exit 0; fi; sleep 0.1; done; echo "${name} waited alone" >&2; exit 1`
}

/** One iteration, no baseline, the gates together, the gates alone deciding. */
const ONE_ROUND_TOGETHER = { maxIterations: 1, completionTag: '', baseline: false, parallelChecks: true }

const gates = (list: [string, string][]): string =>
  `checks:\n${list.map(([name, run]) => `  - name: ${name}\n    run: ${JSON.stringify(run)}\n    timeout: 60`).join('\n')}`

test('with parallelChecks the gates run together: three gates that wait for each other all pass', async () => {
  h.writeRalph(
    `agent: ${quietAgent()}\n${gates([
      ['lint', rendezvous('lint', ['types', 'tests'])],
      ['types', rendezvous('types', ['lint', 'tests'])],
      ['tests', rendezvous('tests', ['lint', 'types'])]
    ])}`,
    'Work.'
  )
  const { result } = await h.run({ ...ONE_ROUND_TOGETHER })
  expect(result.stopReason).toBe('all_checks_passed')
  const checks = result.iterations[0].checks
  expect(checks.map(c => [c.name, c.passed])).toEqual([
    ['lint', true],
    ['types', true],
    ['tests', true]
  ])
  // Each gate has its own log with its own output only.
  for (const name of ['lint', 'types', 'tests'])
    expect(h.readRecord(`logs/iteration-001/checks/${name}.log`)).toBe(`${name} met the others\n`)
  // The gates' wall time is one gate's, not their sum (their durations overlap).
  const slowest = Math.max(...checks.map(c => c.durationMs))
  expect(result.iterations[0].checksMs).toBeGreaterThanOrEqual(slowest - 1)
  expect(h.readRecord('progress.md')).toMatch(/- Checks: 3\/3 passing \(gates \d+\.\ds\)/)
})

test('the same gates one after another cannot meet: the first waits alone (what parallel changes)', async () => {
  h.writeRalph(
    `agent: ${quietAgent()}\n${gates([
      ['lint', rendezvous('lint', ['types']).replace('seq 200', 'seq 5')],
      ['types', rendezvous('types', ['lint'])]
    ])}`,
    'Work.'
  )
  const { result } = await h.run({ maxIterations: 1, completionTag: '', baseline: false })
  expect(result.iterations[0].checks.map(c => [c.name, c.passed])).toEqual([
    ['lint', false],
    ['types', true]
  ])
})

test('failures are listed in the order declared, whatever order the gates finish in', async () => {
  const done = path.join(h.tools, 'second.done')
  // The agent clears the marker, so every round of gates (the baseline's too) finishes in the same order.
  const agent = h.script('agent.sh', `cat > '${h.tools}/prompt.txt'; rm -f '${done}'`)
  h.writeRalph(
    `agent: ${agent}\n${gates([
      // The first gate fails only after the loop has seen the second finish failing (its event, not a
      // file the second writes: the loop may take the second's exit after the first's on a busy machine).
      [
        'first',
        `for i in $(seq 200); do [ -f '${done}' ] && break; sleep 0.1; done; echo "first failed last"; exit 1`
      ],
      ['second', `echo "second failed first"; exit 2`]
    ])}`,
    'Failures:\n{{ ralph.failures }}'
  )
  const { result, events } = await h.run(
    { maxIterations: 2, completionTag: '', parallelChecks: true },
    {
      emit: event => {
        if (event.type === 'check_finished' && event.check.name === 'second') writeFileSync(done, '')
      }
    }
  )
  for (const iteration of [0, 1, 2])
    expect(
      events.flatMap(e => (e.type === 'check_finished' && e.iteration === iteration ? [e.check.name] : []))
    ).toEqual(['second', 'first'])
  expect(result.baseline?.checks.map(c => c.name)).toEqual(['first', 'second'])
  expect(result.iterations[0].checks.map(c => c.name)).toEqual(['first', 'second'])
  const prompt = readFileSync(path.join(h.tools, 'prompt.txt'), 'utf8')
  expect(prompt).toMatch(
    /^Failures:\n`first` failed \(exit code 1\)[\s\S]*first failed last[\s\S]*`second` failed \(exit code 2\)[\s\S]*second failed first/
  )
})

test("a cancel during parallel gates kills every gate's tree, children included", async () => {
  const names = ['one', 'two', 'three']
  h.writeRalph(
    `agent: ${quietAgent()}\n${gates(
      names.map(name => [name, `sleep 120 & echo $$ $! > '${h.tools}/${name}.pids'; wait`])
    )}`,
    'Work.'
  )
  const cancel = new AbortController()
  const running = h.run({ ...ONE_ROUND_TOGETHER }, { signal: cancel.signal })
  await waitFor(
    () =>
      names.every(
        name =>
          existsSync(path.join(h.tools, `${name}.pids`)) &&
          pidsIn(path.join(h.tools, `${name}.pids`)).length === 2
      ),
    'every gate starting',
    30_000
  )
  const pids = names.flatMap(name => pidsIn(path.join(h.tools, `${name}.pids`)))
  cancel.abort()
  const { result } = await running
  expect(result.stopReason).toBe('cancelled')
  expect(result.enforcement).toMatchObject({ cause: 'cancelled', killed: 'check' })
  expect(result.iterations[0].checks.map(c => [c.name, c.killedBy])).toEqual(
    names.map(name => [name, 'cancelled'])
  )
  expect(pids.filter(isAlive)).toEqual([])
})

test('a time budget that runs out during parallel gates kills them all and stops timeout', async () => {
  const names = ['one', 'two']
  h.writeRalph(
    `agent: ${quietAgent()}\n${gates(names.map(name => [name, `sleep 120 & echo $$ $! > '${h.tools}/${name}.pids'; wait`]))}`,
    'Work.'
  )
  // Time stands still until both gates run: the budget runs out while they run together, whatever the load.
  const clock = pausedClock()
  const running = h.run({ ...ONE_ROUND_TOGETHER, maxTimeSeconds: 1 }, { clock })
  const pidFiles = names.map(name => path.join(h.tools, `${name}.pids`))
  await waitFor(
    () => pidFiles.every(file => existsSync(file) && pidsIn(file).length === 2),
    'both gates',
    30_000
  )
  clock.resume()
  const { result } = await running
  expect(result.stopReason).toBe('timeout')
  expect(result.enforcement).toMatchObject({ cause: 'timeout', killed: 'check' })
  const pids = pidFiles.flatMap(pidsIn)
  expect(pids).toHaveLength(4)
  expect(pids.filter(isAlive)).toEqual([])
  expect(result.iterations[0].checks.map(c => c.killedBy)).toEqual(['timeout', 'timeout'])
})

test('checks_parallel: true in the frontmatter turns parallel gates on; anything but a boolean is refused', () => {
  h.writeRalph(`agent: cat\nchecks_parallel: true\n${gates([['a', 'true']])}`, 'Work.')
  expect(h.config().parallelChecks).toBe(true)
  expect(h.config({ parallelChecks: false }).parallelChecks).toBe(false)
  h.writeRalph(`agent: cat\n${gates([['a', 'true']])}`, 'Work.')
  expect(h.config().parallelChecks).toBe(false)
  h.writeRalph(`agent: cat\nchecks_parallel: yes please\n${gates([['a', 'true']])}`, 'Work.')
  let error: unknown
  try {
    loadRalph(path.join(h.ralphDir, 'RALPH.md'), { cwd: h.repo.dir, skipAgentLookup: true })
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(RalphError)
  expect((error as RalphError).problems[0]).toMatchObject({
    line: 3,
    message: expect.stringMatching(
      /^'checks_parallel' must be true or false, got 'yes please'\. Example: checks_parallel: true/
    )
  })
})

test('gates whose names are the same once cut to a file name keep separate logs', async () => {
  const long = 'g'.repeat(100)
  h.writeRalph(
    `agent: ${quietAgent()}\n${gates([
      [`${long}1`, 'echo one'],
      [`${long}2`, 'echo two']
    ])}`,
    'Work.'
  )
  const { result } = await h.run({ ...ONE_ROUND_TOGETHER })
  expect(result.iterations[0].checks.map(c => c.log)).toEqual([
    `logs/iteration-001/checks/${long}.log`,
    `logs/iteration-001/checks/${long}-2.log`
  ])
  expect(h.readRecord(`logs/iteration-001/checks/${long}.log`)).toBe('one\n')
  expect(h.readRecord(`logs/iteration-001/checks/${long}-2.log`)).toBe('two\n')
})
