// Without gates the loop behaves like the reference runtime: commands, the exact prompt, the agent,
// max iterations, --stop-on-error, --delay, the per-run timeout, and "Run crashed" ends.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { CREDIT_TRAILER } from '../../src/ralph/index.js'
import { countRuns, harness, type Harness } from './harness.js'

let h: Harness
beforeEach(() => {
  h = harness()
})
afterEach(() => h.cleanup())

test('a ralph without gates pipes exactly the reference prompt to the agent, every iteration', async () => {
  const agent = h.script('agent.sh', `${countRuns(h.tools)}\ncat > '${h.tools}/prompt-'$n.txt`)
  writeFileSync(path.join(h.ralphDir, 'local.sh'), '#!/usr/bin/env bash\npwd\nprintf "err" >&2\n')
  chmodSync(path.join(h.ralphDir, 'local.sh'), 0o755)
  h.writeRalph(
    `agent: ${agent}
commands:
  - name: greet
    run: echo hello {{ args.who }}
  - name: local
    run: ./local.sh
  - name: unused
    run: touch '${h.tools}/unused-ran'
args: [who]`,
    `
<!-- a comment with {{ commands.greet }} -->
# Task {{ ralph.name }} {{ ralph.iteration }}/{{ ralph.max_iterations }}

Greeting: {{ commands.greet }}
Local: {{ commands.local }}
Not ours: {{ env.HOME }} [{{ ralph.nope }}] [{{ ralph.checks }}]
`
  )
  const { result } = await h.run({ maxIterations: 2, userArgs: { who: 'big; $(world)' } })
  expect(result.stopReason).toBe('max_iterations')
  expect(result.iterations).toHaveLength(2)
  for (const n of [1, 2]) {
    const expected =
      `# Task fixer ${n}/2\n\nGreeting: hello big; $(world)\n\nLocal: ${h.ralphDir}\nerr\n` +
      'Not ours: {{ env.HOME }} [] []' +
      CREDIT_TRAILER
    expect(readFileSync(path.join(h.tools, `prompt-${n}.txt`), 'utf8')).toBe(expected)
    expect(h.readRecord(`logs/iteration-00${n}/prompt.md`)).toBe(expected)
  }
  // An unreferenced command still runs, and every command has its log.
  expect(readFileSync(path.join(h.tools, 'unused-ran'), 'utf8')).toBe('')
  expect(h.readRecord('logs/iteration-001/commands/local.log')).toContain(h.ralphDir)
})

test('max_iterations undefined with a tag never given keeps going until another stop (here: stop-on-error)', async () => {
  const agent = h.script('agent.sh', `${countRuns(h.tools)}\ncat >/dev/null\n[ $n -lt 4 ]`)
  h.writeRalph(`agent: ${agent}`, 'Work.')
  const { result } = await h.run({ stopOnError: true })
  expect(result.stopReason).toBe('agent_error')
  expect(result.iterations.map(it => it.verdict)).toEqual(['ran', 'ran', 'ran', 'agent_failed'])
  expect(result.stopDetail).toContain('stop-on-error')
  expect(result.success).toBe(false)
})

test('a failing agent without --stop-on-error does not stop the loop', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null; exit 3')
  h.writeRalph(`agent: ${agent}`, 'Work.')
  const { result } = await h.run({ maxIterations: 3 })
  expect(result.stopReason).toBe('max_iterations')
  expect(result.iterations.map(it => it.agent?.exitCode)).toEqual([3, 3, 3])
})

// The timeout is seconds, so the loaded machine has printed the partial line before it fires.
test('a command that times out keeps its partial output, followed by the reference marker', async () => {
  const agent = h.script('agent.sh', `cat > '${h.tools}/prompt.txt'`)
  const slow = h.script('slow.sh', 'echo partial; sleep 30')
  h.writeRalph(
    `agent: ${agent}
commands:
  - name: slow
    run: ${slow}
    timeout: 2`,
    '{{ commands.slow }}'
  )
  const { result } = await h.run({ maxIterations: 1 })
  expect(readFileSync(path.join(h.tools, 'prompt.txt'), 'utf8')).toBe(
    "partial\n\n\n[Command 'slow' timed out after 2.0s — output may be incomplete]" + CREDIT_TRAILER
  )
  expect(result.iterations[0].commands[0]).toMatchObject({ name: 'slow', timedOut: true, exitCode: null })
})

test('the per-run agent timeout fails the iteration and the loop goes on', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null; sleep 30')
  h.writeRalph(`agent: ${agent}`, 'Work.')
  const { result } = await h.run({ maxIterations: 2, agentTimeoutSeconds: 0.3 })
  expect(result.stopReason).toBe('max_iterations')
  expect(result.iterations.map(it => it.verdict)).toEqual(['agent_timed_out', 'agent_timed_out'])
  expect(result.iterations[0].agent).toMatchObject({ timedOut: true, success: false })
  expect(result.iterations[0].agent?.killedBy).toBeUndefined()
})

test('the delay waits between iterations but not after the last one', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null')
  h.writeRalph(`agent: ${agent}`, 'Work.')
  const started = Date.now()
  const { result, events } = await h.run({ maxIterations: 2, delaySeconds: 0.4 })
  expect(result.stopReason).toBe('max_iterations')
  expect(events.filter(e => e.type === 'waiting')).toHaveLength(1)
  expect(Date.now() - started).toBeGreaterThanOrEqual(400)
})

test('a command whose program is missing ends the run like the reference\'s "Run crashed", record written', async () => {
  const agent = h.script('agent.sh', `touch '${h.tools}/agent-ran'`)
  h.writeRalph(
    `agent: ${agent}
commands:
  - name: ok
    run: echo fine
  - name: broken
    run: no-such-program-xyz --flag`,
    'Work.'
  )
  const { result } = await h.run({ maxIterations: 3 })
  expect(result.stopReason).toBe('agent_error')
  expect(result.error).toBe(
    "Command 'broken' binary not found: 'no-such-program-xyz --flag'. Check the 'commands' field in your RALPH.md frontmatter."
  )
  expect(result.stopDetail).toBe(`Run crashed: ${result.error}`)
  expect(result.iterations).toHaveLength(1)
  expect(result.iterations[0].verdict).toBe('crashed')
  expect(() => readFileSync(path.join(h.tools, 'agent-ran'))).toThrow()
  expect(h.status()).toMatchObject({ state: 'finished', stopReason: 'agent_error' })
  expect(h.readRecord('progress.md')).toContain("Crashed: Command 'broken' binary not found")
})

test('a run string that does not split ends the run with the reference message', async () => {
  h.writeRalph(
    `agent: cat
commands:
  - name: quote
    run: echo "unclosed`,
    'Work.'
  )
  const { result } = await h.run({ maxIterations: 1 })
  expect(result.error).toBe(
    `Command 'quote' has invalid syntax: 'echo "unclosed'. Check the 'commands' field in your RALPH.md frontmatter.`
  )
})

test('an agent that cannot be started ends the run', async () => {
  h.writeRalph('agent: ./missing-agent.sh', 'Work.')
  const { result } = await h.run({ maxIterations: 2 })
  expect(result.stopReason).toBe('agent_error')
  expect(result.error).toBe(
    "Agent command not found: './missing-agent.sh'. Check the 'agent' field in your RALPH.md frontmatter."
  )
})

test('RALPH.md broken during the run crashes that iteration; the body is re-read every iteration', async () => {
  const file = path.join(h.ralphDir, 'RALPH.md')
  const agent = h.script(
    'agent.sh',
    `${countRuns(h.tools)}\ncat > '${h.tools}/prompt-'$n.txt\nif [ $n -eq 1 ]; then printf -- '---\\nagent: x\\n---\\nSecond body' > '${file}'; fi\nif [ $n -eq 2 ]; then printf -- '---\\nagent: [\\n---\\n' > '${file}'; fi`
  )
  h.writeRalph(`agent: ${agent}`, 'First body')
  const { result } = await h.run({ maxIterations: 5 })
  expect(readFileSync(path.join(h.tools, 'prompt-1.txt'), 'utf8')).toBe('First body' + CREDIT_TRAILER)
  // The agent stays the one validated at the start; only the body changes.
  expect(readFileSync(path.join(h.tools, 'prompt-2.txt'), 'utf8')).toBe('Second body' + CREDIT_TRAILER)
  expect(result.stopReason).toBe('agent_error')
  expect(result.iterations.map(it => it.verdict)).toEqual(['ran', 'ran', 'crashed'])
  expect(result.error).toMatch(/RALPH\.md/)
})
