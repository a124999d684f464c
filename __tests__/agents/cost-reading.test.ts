// Which agent, model and proxy combinations let a dollar budget hold, decided before the agent runs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  costReading,
  costWarning,
  modelNamed,
  presetFor,
  type AgentCostOptions
} from '../../src/agents/index.js'

let home: string
beforeAll(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'cost-reading-'))
})
afterAll(() => rmSync(home, { recursive: true, force: true }))

/** How a command line's cost is read, with max-cost set (which asks every preset for its JSON output). */
function readingOf(argv: string[], proxied = false, cost?: AgentCostOptions, env: NodeJS.ProcessEnv = {}) {
  const preset = presetFor(argv, { presets: true, flags: 'all', cost })
  const model = modelNamed(preset.name, argv, { HOME: home, ...env })
  return costReading({ preset, model, proxied, cost })
}

test.each([
  // Behind the proxy every request is priced at the wire, whatever the agent or its model.
  [['claude', '-p'], true, 'metered'],
  [['codex', 'exec', '-'], true, 'metered'],
  [['gemini', '-m', 'gemini-9-ultra'], true, 'metered'],
  // Dollars in the output.
  [['claude', '-p'], false, 'reported'],
  [['opencode', 'run', '-m', 'openai/some-new-model'], false, 'reported'],
  [['aider', '--message', 'x'], false, 'reported'],
  // Tokens of a model the table prices; gemini and qwen name theirs in the stream.
  [['codex', 'exec', '-m', 'gpt-5', '-'], false, 'reported'],
  [['codex', 'exec', '-c', 'model="gpt-5.4"', '-'], false, 'reported'],
  [['gemini', '-y'], false, 'reported'],
  [['gemini', '-m', 'gemini-2.5-pro'], false, 'reported'],
  [['qwen', '-y'], false, 'reported'],
  // Nothing that can be priced.
  [['codex', 'exec', '-'], false, 'unknown'],
  [['codex', 'exec', '-m', 'gpt-9-turbo', '-'], false, 'unknown'],
  [['gemini', '--model', 'gemini-9-ultra'], false, 'unknown'],
  [['qwen', '-m', 'qwen9-max'], false, 'unknown'],
  [['gemini', '-o', 'text'], false, 'unknown'],
  [['opencode', 'run', '--format', 'default'], false, 'unknown'],
  // A generic agent: only what it reports.
  [['./my-agent.sh'], false, 'if_reported']
] as const)('%j, proxied %s: its cost is %s', (argv, proxied, how) => {
  expect(readingOf([...argv], proxied).how).toBe(how)
})

test("codex's model in its config.toml is priced like one on its command line", () => {
  const codexHome = path.join(home, 'codex-home')
  mkdirSync(codexHome)
  writeFileSync(path.join(codexHome, 'config.toml'), 'model = "gpt-5"\n')
  expect(readingOf(['codex', 'exec', '-'], false, undefined, { CODEX_HOME: codexHome }).how).toBe('reported')
})

test('a generic agent given a cost pattern or a cost file of its own reports by its settings', () => {
  expect(readingOf(['./my-agent.sh'], false, { pattern: 'spent \\$(?<usd>[\\d.]+)' }).how).toBe('reported')
  expect(readingOf(['./my-agent.sh'], false, { fileEnv: 'MY_COST_FILE' }).how).toBe('reported')
  expect(readingOf(['./my-agent.sh'], false, { fileEnv: '' }).how).toBe('if_reported')
})

test('the warning names the budget, why it cannot hold and the fixes: the model proxy for the five CLIs', () => {
  const line = costWarning(readingOf(['codex', 'exec', '-']), 5)
  expect(line).toBe(
    "the agent's cost cannot be known (codex names no model (-m, or model in config.toml), so its tokens cannot be priced): " +
      'the $5 budget (max-cost) cannot be enforced, only time and iteration limits; to enforce it, run it behind the model ' +
      'proxy (model-proxy: true; the CLI: --model-proxy), which meters every request, or name a model the price table holds (-m gpt-5)'
  )
  expect(costWarning(readingOf(['gemini', '-m', 'gemini-9-ultra']), 2.5)).toMatch(
    /model gemini-9-ultra is not in the price table.*\$2\.5 budget.*model-proxy: true; the CLI: --model-proxy/
  )
})

test('the warning for a generic agent names the cost line, the cost file and the cost pattern', () => {
  const line = costWarning(readingOf(['./my-agent.sh']), 1)
  expect(line).toMatch(/^the \$1 budget \(max-cost\) holds only if the agent reports its cost/)
  expect(line).toContain('`ralph-cost: usd=…` line')
  expect(line).toContain('$RALPH_COST_FILE')
  expect(line).toContain('--cost-pattern')
  expect(line).not.toContain('model-proxy')
})

test('no warning where the budget holds', () => {
  for (const argv of [['claude', '-p'], ['aider'], ['codex', 'exec', '-m', 'gpt-5', '-']])
    expect(costWarning(readingOf(argv), 1)).toBeUndefined()
  expect(costWarning(readingOf(['codex', 'exec', '-'], true), 1)).toBeUndefined()
})
