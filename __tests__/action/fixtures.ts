// Projects for the end-to-end scenarios: a tiny package with a failing node:test, a ralph, and scripted
// agents (node scripts that read the prompt on stdin and do one scripted thing per iteration).
import { readFileSync } from 'node:fs'
import type { Files } from './harness.js'

export const RALPH_DIR = '.agents/ralphs/fix-tests'

const calc = 'export function add(a, b) {\n  return a - b\n}\n'
const calcTest = [
  "import { test } from 'node:test'",
  "import assert from 'node:assert/strict'",
  "import { add } from './calc.js'",
  '',
  "test('add returns the sum', () => {",
  '  assert.equal(add(1, 2), 3)',
  '})',
  ''
].join('\n')

export function ralph(
  options: { agent?: string; checks?: string[]; body?: string; extra?: string } = {}
): string {
  const checks = options.checks ?? ['node --test --test-reporter=spec']
  return [
    '---',
    `agent: ${options.agent ?? `node ${RALPH_DIR}/agent.mjs`}`,
    'checks:',
    ...checks.map((run, i) => `  - name: ${i === 0 ? 'tests' : `gate-${i + 1}`}\n    run: ${run}`),
    ...(options.extra ? [options.extra] : []),
    '---',
    '',
    options.body ?? 'Fix the failing tests in calc.js.\n\nThis is iteration {{ ralph.iteration }}.',
    ''
  ].join('\n')
}

/**
 * The agent's script: `steps` maps an iteration number to JavaScript run with `prompt`, `iteration`, `fs`
 * and `say(text)` in scope; iterations without a step do nothing. Say `<promise>COMPLETE</promise>` to finish.
 */
export function agentScript(steps: Partial<Record<number | 'any', string>>, prelude = ''): string {
  const cases = Object.entries(steps)
    .filter(([n]) => n !== 'any')
    .map(([n, code]) => `  case ${n}: {\n${code}\n    break\n  }`)
    .join('\n')
  return [
    "import fs from 'node:fs'",
    "const prompt = fs.readFileSync(0, 'utf8')",
    'const iteration = Number(/iteration (\\d+)/.exec(prompt)?.[1] ?? 0)',
    'const say = text => process.stdout.write(text + "\\n")',
    prelude,
    steps.any ?? '',
    'switch (iteration) {',
    cases,
    '}',
    ''
  ].join('\n')
}

export const FIX = "fs.writeFileSync('calc.js', 'export function add(a, b) {\\n  return a + b\\n}\\n')"
export const WRONG_FIX =
  "fs.writeFileSync('calc.js', fs.readFileSync('calc.js', 'utf8').replace('a - b', 'a * b'))"
export const DONE = "say('Fixed.\\n\\n<promise>COMPLETE</promise>')"

/** The project: a failing test, the ralph, and its agent. */
export function projectFiles(agent: string, ralphText = ralph()): Files {
  return {
    'package.json': '{ "name": "calc", "private": true, "type": "module" }\n',
    'calc.js': calc,
    'calc.test.js': calcTest,
    [`${RALPH_DIR}/RALPH.md`]: ralphText,
    [`${RALPH_DIR}/agent.mjs`]: agent
  }
}

/**
 * For the fault-injection runs: the action waits a hundredth of production (backoffs, retry-after, rate-limit
 * resets), and a request with no answer in 3 s is a stall (the servers stall 30 s).
 */
export const FAULT_TIMING = { RALPH_ACTION_TEST_WAIT_SCALE: '0.01', RALPH_ACTION_TEST_TIMEOUT_MS: '3000' }

/**
 * The bytes a step passed to write() (Linux /proc io accounting: a node process that runs the step and, once it
 * has reaped it, reads its own counters, which then hold its children's): what the step can have put on disk,
 * in RUNNER_TEMP or anywhere. `wrap` goes to RunOptions.wrap (not a shell: it would drop the INPUT_* variables
 * whose names hold a dash); `main()` reads main's figure (post's comes after).
 */
export function writesOf(file: string): { wrap: string[]; main: () => number } {
  const script = [
    "const { spawnSync } = require('node:child_process')",
    "const fs = require('node:fs')",
    'const [program, ...args] = process.argv.slice(1)',
    "const ran = spawnSync(program, args, { stdio: 'inherit' })",
    `fs.appendFileSync(${JSON.stringify(file)}, /^wchar: \\d+$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))[0] + '\\n')`,
    'process.exit(ran.status ?? 1)'
  ].join('\n')
  return {
    wrap: [process.execPath, '-e', script],
    main: () => Number(/^wchar: (\d+)$/m.exec(readFileSync(file, 'utf8'))?.[1])
  }
}
