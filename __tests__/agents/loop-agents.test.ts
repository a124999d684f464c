// The presets inside the real loop, with stand-in agents (scripts named like the real CLIs) that print
// the recorded streams: failures, usage limits, denials, generic cost reports, transcripts, argv.
import { chmodSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { harness, countRuns, type Harness } from '../loop/harness.js'
import { STREAMS } from './replay.js'

let h: Harness
beforeEach(() => {
  h = harness()
})
afterEach(() => h.cleanup())

const q = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`

/** A stand-in for `name` (the preset is chosen by the program's name) running `body`; answers its path. */
function standIn(name: string, body: string): string {
  const bin = path.join(h.tools, 'bin')
  mkdirSync(bin, { recursive: true })
  const script = h.script(
    `${name}-stand-in.sh`,
    `echo "$@" > ${q(path.join(h.tools, `${name}.argv`))}\ncat >/dev/null\n${body}`
  )
  const link = path.join(bin, name)
  symlinkSync(script, link)
  return link
}

const printFixture = (name: string, exitCode = 0): string =>
  `cat ${q(path.join(STREAMS, name))}\nexit ${exitCode}`

test('claude saying is_error with exit code 0 fails the iteration, with the API error named', async () => {
  h.writeRalph(`agent: ${standIn('claude', printFixture('claude-api-error.jsonl', 0))} -p`, 'Work.')
  const { result } = await h.run({ maxIterations: 1 })
  const it = result.iterations[0]
  expect(it.verdict).toBe('agent_failed')
  expect(it.agent).toMatchObject({
    exitCode: 0,
    success: false,
    isError: true,
    failure: { kind: 'api_error' }
  })
  expect(it.agent?.failure?.message).toMatch(/^API Error: 529/)
  expect(h.readRecord('logs/iteration-001/agent.log')).toContain('[result] success (error)')
  expect(h.readRecord('progress.md')).toContain('- Agent failure (api error): API Error: 529')
})

/** A claude stand-in that hits a usage limit lifting `seconds` from now, on its first run only. */
function limitedClaude(seconds: number | undefined): string {
  const info =
    seconds === undefined
      ? '{"status":"rejected"}'
      : `{"status":"rejected","resetsAt":'$(( $(date +%s) + ${seconds} ))'}`
  return standIn(
    'claude',
    `${countRuns(h.tools)}
if [ "$n" = 1 ]; then
  echo '{"type":"rate_limit_event","rate_limit_info":${info}}'
  echo '{"type":"result","subtype":"success","is_error":true,"result":"You have hit your limit","total_cost_usd":0}'
  exit 1
fi
echo '{"type":"result","subtype":"success","is_error":false,"result":"done <promise>COMPLETE</promise>","total_cost_usd":0.01}'`
  )
}

test('a usage limit that lifts within the time budget is waited for, then the loop goes on', async () => {
  h.writeRalph(`agent: ${limitedClaude(1)} -p`, 'Work.')
  const started = Date.now()
  const { result, events } = await h.run({ maxIterations: 3, maxTimeSeconds: 60 })
  expect(result.stopReason).toBe('completed')
  expect(result.iterations).toHaveLength(2)
  expect(result.iterations[0].agent?.failure).toMatchObject({
    kind: 'usage_limit',
    resetsAt: expect.any(String)
  })
  const waited = events.find(e => e.type === 'waiting')
  expect(waited).toBeDefined()
  expect(Date.now() - started).toBeGreaterThanOrEqual(2000)
  expect(
    result.warnings.some(w => w.startsWith('the agent hit a usage limit; waiting until it lifts at'))
  ).toBe(true)
})

test('a usage limit that lifts after the time budget ends stops the loop at once, naming it', async () => {
  h.writeRalph(`agent: ${limitedClaude(3600)} -p`, 'Work.')
  const started = Date.now()
  const { result } = await h.run({ maxIterations: 3, maxTimeSeconds: 60 })
  expect(result.stopReason).toBe('agent_error')
  expect(result.stopDetail).toMatch(/usage limit that lifts at .+, after the time budget ends/)
  expect(result.iterations).toHaveLength(1)
  // At once: not an hour's wait (how fast is not this test's business on a loaded machine).
  expect(Date.now() - started).toBeLessThan(30_000)
})

test('a usage limit without a reset time stops the loop, naming it', async () => {
  h.writeRalph(`agent: ${limitedClaude(undefined)} -p`, 'Work.')
  const { result } = await h.run({ maxIterations: 3 })
  expect(result.stopReason).toBe('agent_error')
  expect(result.stopDetail).toMatch(/usage limit and did not say when it lifts/)
})

test('two iterations in a row with denied permissions open the circuit, naming the tools', async () => {
  h.writeRalph(`agent: ${standIn('claude', printFixture('claude-permission-denied.jsonl'))} -p`, 'Work.')
  const { result } = await h.run({ maxIterations: 5 })
  expect(result.stopReason).toBe('circuit_open')
  expect(result.breaker).toMatchObject({ rule: 'permission_denials', count: 2 })
  expect(result.stopDetail).toContain('tools: Write')
  expect(h.readRecord('progress.md')).toContain('- Permission denied: Write (/etc/ralph-live-denied.txt)')
  expect(result.iterations.map(it => it.agent?.permissionDenials)).toEqual([
    [{ tool: 'Write', detail: '/etc/ralph-live-denied.txt' }],
    [{ tool: 'Write', detail: '/etc/ralph-live-denied.txt' }]
  ])
})

test('codex: --json is added, the raw stream and a readable transcript are kept, the tokens are priced', async () => {
  const codex = standIn('codex', printFixture('codex-success.jsonl'))
  h.writeRalph(`agent: ${codex} exec -m gpt-5.5 -`, 'Work.')
  const { result, events } = await h.run({ maxIterations: 1 })
  const agent = result.iterations[0].agent!
  expect(readFileSync(path.join(h.tools, 'codex.argv'), 'utf8').trim()).toBe('exec --json -m gpt-5.5 -')
  expect(agent).toMatchObject({
    preset: 'codex',
    success: true,
    finalMessage: 'I created hello.txt; missing.txt does not exist.'
  })
  expect(agent.usage).toEqual({
    input: 2750,
    output: 295,
    cache_read: 22200,
    cache_write: 0,
    cost_usd: expect.closeTo((2750 * 5 + 295 * 30 + 22200 * 0.5) / 1e6, 12),
    cost_source: 'estimated'
  })
  expect(h.readRecord('logs/iteration-001/agent.jsonl')).toBe(
    readFileSync(path.join(STREAMS, 'codex-success.jsonl'), 'utf8')
  )
  const log = h.readRecord('logs/iteration-001/agent.log')
  expect(log).toContain("→ exec /bin/bash -lc 'ls -a'\n")
  expect(log).not.toContain('"type"')
  expect(events.filter(e => e.type === 'agent_transcript').length).toBeGreaterThan(5)
})

test('the agent is told its working directory in PWD too (opencode works where PWD says, not where it runs)', async () => {
  // A node program, not bash: bash replaces an inherited PWD that is not its working directory.
  const agent = path.join(h.tools, 'agent.mjs')
  writeFileSync(
    agent,
    `#!/usr/bin/env node\nimport fs from 'node:fs'\nfs.readFileSync(0)\nfs.writeFileSync(${JSON.stringify(path.join(h.tools, 'pwd'))}, process.env.PWD)\n`
  )
  chmodSync(agent, 0o755)
  h.writeRalph(`agent: ${agent}`, 'Work.')
  expect(process.env.PWD).not.toBe(realpathSync(h.repo.dir))
  await h.run({ maxIterations: 1 })
  expect(realpathSync(readFileSync(path.join(h.tools, 'pwd'), 'utf8'))).toBe(realpathSync(h.repo.dir))
})

test("opencode: the transcript in agent.log ends with the run's [done] line (steps and reported dollars)", async () => {
  const opencode = standIn('opencode', printFixture('opencode-success.jsonl'))
  h.writeRalph(`agent: ${opencode} run`, 'Work.')
  const { result } = await h.run({ maxIterations: 1 })
  expect(result.iterations[0].agent).toMatchObject({ preset: 'opencode', usage: { cost_source: 'reported' } })
  const lines = h.readRecord('logs/iteration-001/agent.log').trimEnd().split('\n')
  expect(lines.at(-1)).toBe('[done] 2 steps · $0.0164')
})

test("reference flags: codex runs as written (ralphify's argv), as plain text; a dollar budget adds --json", async () => {
  const codex = standIn('codex', 'echo "plain answer"')
  h.writeRalph(`agent: ${codex} exec -`, 'Work.')
  const plain = await h.run({ maxIterations: 1, presetFlags: 'reference' })
  expect(readFileSync(path.join(h.tools, 'codex.argv'), 'utf8').trim()).toBe('exec -')
  expect(plain.result.iterations[0].agent).toMatchObject({ preset: 'codex', finalMessage: 'plain answer' })
  await h.run({ maxIterations: 1, presetFlags: 'reference', maxCostUsd: 5 })
  expect(readFileSync(path.join(h.tools, 'codex.argv'), 'utf8').trim()).toBe('exec --json -')
})

describe('a generic agent reporting its own cost', () => {
  it('by a ralph-cost: line', async () => {
    const agent = h.script(
      'agent.sh',
      'cat >/dev/null\necho "working"\necho "ralph-cost: usd=0.0125 input=1000 output=200 model=x" >&2\necho done'
    )
    h.writeRalph(`agent: ${agent}`, 'Work.')
    const { result } = await h.run({ maxIterations: 1, maxCostUsd: 1 })
    expect(result.iterations[0].agent?.usage).toEqual({
      input: 1000,
      output: 200,
      cache_read: 0,
      cache_write: 0,
      cost_usd: 0.0125,
      cost_source: 'reported'
    })
    expect(result.cost).toMatchObject({ source: 'reported', enforced: true, totalUsd: 0.0125 })
    // Only the word before it ran (a generic agent's cost is known only once it reports it), none after.
    expect(result.warnings).toEqual([
      expect.stringMatching(/^the \$1 budget \(max-cost\) holds only if the agent reports/)
    ])
  })

  it('by a line matching the configured pattern', async () => {
    const agent = h.script(
      'agent.sh',
      "cat >/dev/null\necho 'Total spend so far: $0.40 (1200 tokens in, 80 out)'"
    )
    h.writeRalph(`agent: ${agent}`, 'Work.')
    const { result } = await h.run({
      maxIterations: 1,
      agentCost: {
        pattern: String.raw`spend so far: \$(?<usd>[\d.]+) \((?<input>\d+) tokens in, (?<output>\d+) out\)`
      }
    })
    expect(result.iterations[0].agent?.usage).toMatchObject({
      input: 1200,
      output: 80,
      cost_usd: 0.4,
      cost_source: 'reported'
    })
  })

  it('refuses a pattern that is not a regular expression before anything runs', async () => {
    const agent = h.script('agent.sh', 'cat >/dev/null')
    h.writeRalph(`agent: ${agent}`, 'Work.')
    await expect(h.run({ maxIterations: 1, agentCost: { pattern: '(unclosed' } })).rejects.toThrow(
      /cost pattern "\(unclosed" is not a valid regular expression/
    )
  })

  it('by a JSON file at $RALPH_COST_FILE, read while it runs: the budget kills it', async () => {
    const agent = h.script(
      'agent.sh',
      `cat >/dev/null
echo $$ > '${h.tools}/pid'
for i in $(seq 1 100); do
  echo "{\\"usd\\": $i.0, \\"input\\": $(( i * 1000 )), \\"output\\": 10}" > "$RALPH_COST_FILE.tmp"
  mv "$RALPH_COST_FILE.tmp" "$RALPH_COST_FILE"
  sleep 0.1
done`
    )
    h.writeRalph(`agent: ${agent}`, 'Work.')
    const { result } = await h.run({ maxIterations: 3, maxCostUsd: 3, killGraceMs: 200 })
    expect(result.stopReason).toBe('budget_exhausted')
    const it = result.iterations[0].agent!
    expect(it.killedBy).toBe('budget_exhausted')
    expect(it.usage.cost_source).toBe('reported')
    expect(it.usage.cost_usd).toBeGreaterThanOrEqual(3)
    // Killed mid-run: the file never reached its last figure ($100).
    expect(it.usage.cost_usd).toBeLessThan(100)
    expect(result.enforcement).toMatchObject({ cause: 'budget_exhausted', killed: 'agent' })
  })

  it('the cost file lives outside the work tree and the record, and is gone afterwards', async () => {
    const agent = h.script(
      'agent.sh',
      `cat >/dev/null\necho "$RALPH_COST_FILE" > '${h.tools}/where'\necho '{"usd":0.01}' > "$RALPH_COST_FILE"`
    )
    h.writeRalph(`agent: ${agent}`, 'Work.')
    const { result } = await h.run({ maxIterations: 1 })
    const where = readFileSync(path.join(h.tools, 'where'), 'utf8').trim()
    expect(where.startsWith(h.repo.dir)).toBe(false)
    expect(where.startsWith(path.dirname(h.record))).toBe(false)
    expect(() => readFileSync(where)).toThrow()
    expect(result.iterations[0].agent?.usage.cost_usd).toBe(0.01)
  })

  it('the variable name can be changed', async () => {
    const agent = h.script('agent.sh', `cat >/dev/null\necho '{"cost_usd":0.02}' > "$MY_COST"`)
    h.writeRalph(`agent: ${agent}`, 'Work.')
    const { result } = await h.run({ maxIterations: 1, agentCost: { fileEnv: 'MY_COST' } })
    expect(result.iterations[0].agent?.usage).toMatchObject({ cost_usd: 0.02, cost_source: 'reported' })
  })
})

test('a claude agent keeps the per-iteration cost meter: tokens and reported dollars', async () => {
  h.writeRalph(`agent: ${standIn('claude', printFixture('claude-success.jsonl'))} -p`, 'Work.')
  const { result } = await h.run({ maxIterations: 1 })
  expect(result.iterations[0].agent?.usage).toEqual({
    input: 4300,
    output: 185,
    cache_read: 22000,
    cache_write: 2000,
    cost_usd: 0.029775000000000003,
    cost_source: 'reported'
  })
})
