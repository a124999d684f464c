// install-agent through dist/index.js, offline: a CLI the runner's tool cache already holds is used as it is
// (no npm, no cache service), an agent ralph-action does not install is refused in one line before anything
// runs, and a runner without npm is told how to fix it. (The install from the real npm registry and the
// restore from the Actions cache are in the live tier: __tests__/agents-live/install.test.ts.)
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { arch } from 'node:os'
import path from 'node:path'
import { expect, test } from '@jest/globals'
import { agentCli } from '../../src/agents/clis.js'
import { FIX, projectFiles, ralph } from './fixtures.js'
import { GITHUB_TOKEN, runAction, type Project } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()
const gemini = agentCli('gemini')!

function project(agent: string): Promise<Project> {
  return e2e.project(projectFiles('', ralph({ agent })))
}

/**
 * A runner whose tool cache holds gemini at the tested version, laid out as install-agent leaves it; its
 * program is a stand-in that fixes calc.js and prints a gemini stream-json (it is run as `gemini`).
 */
function toolCacheWithGemini(): string {
  const toolCache = mkdtempSync(path.join(e2e.scratch(), 'tool-cache-'))
  const dir = path.join(toolCache, 'ralph-action-agent-gemini', gemini.version, arch())
  const pkg = path.join(dir, 'node_modules', '@google', 'gemini-cli')
  mkdirSync(pkg, { recursive: true })
  writeFileSync(
    path.join(pkg, 'package.json'),
    JSON.stringify({ name: gemini.package, version: gemini.version })
  )
  mkdirSync(path.join(dir, 'node_modules', '.bin'))
  const bin = path.join(dir, 'node_modules', '.bin', 'gemini')
  const events = [
    { type: 'init', session_id: 's', model: 'gemini-2.5-flash' },
    { type: 'message', role: 'assistant', content: 'Fixed add.\n\n<promise>COMPLETE</promise>', delta: true },
    {
      type: 'result',
      status: 'success',
      stats: { input_tokens: 1000, output_tokens: 50, total_tokens: 1050 }
    }
  ]
  writeFileSync(
    bin,
    [
      '#!/usr/bin/env node',
      "import fs from 'node:fs'",
      "fs.readFileSync(0, 'utf8')",
      FIX,
      `fs.writeFileSync(${JSON.stringify(path.join(e2e.scratch(), 'gemini-argv'))}, process.argv.slice(2).join(' '))`,
      `process.stdout.write(${JSON.stringify(events.map(e => JSON.stringify(e)).join('\n') + '\n')})`,
      ''
    ].join('\n')
  )
  chmodSync(bin, 0o755)
  writeFileSync(`${dir}.complete`, '')
  return toolCache
}

test('a CLI already in the tool cache is used as it is: no npm, no cache service, on PATH for the agent', async () => {
  const p = await project('gemini -y')
  const before = e2e.stand().artifacts.requests.length
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'install-agent': 'true' },
    env: { RUNNER_TOOL_CACHE: toolCacheWithGemini(), npm_config_registry: 'http://127.0.0.1:9/' }
  })
  expect(run.main.exitCode).toBe(0)
  expect(run.main.stdout).toMatch(/^gemini 0\.61\.0 is on PATH \(.*\), from the tool cache in [\d.]+ s\.$/m)
  expect(run.outputs).toMatchObject({ 'stop-reason': 'all_checks_passed', 'cost-source': 'estimated' })
  expect(readFileSync(path.join(e2e.scratch(), 'gemini-argv'), 'utf8')).toBe('-y --output-format stream-json')
  expect(
    e2e
      .stand()
      .artifacts.requests.slice(before)
      .map(r => r.method)
  ).not.toContain('GetCacheEntryDownloadURL')
})

/**
 * A stand-in `npm` that installs a fake qwen (its package.json and a program that prints its version, and a
 * stream when run as the agent) and writes the environment it was given to `npm-env`, as a postinstall could.
 */
function fakeNpm(): string {
  const bin = mkdtempSync(path.join(e2e.scratch(), 'fake-npm-'))
  const qwen = agentCli('qwen')!
  const program = [
    '#!/usr/bin/env node',
    "import fs from 'node:fs'",
    `if (process.argv[2] === '--version') { console.log(${JSON.stringify(qwen.version)}); process.exit(0) }`,
    "fs.readFileSync(0, 'utf8')",
    FIX,
    `fs.writeFileSync(${JSON.stringify(path.join(e2e.scratch(), 'qwen-env'))}, JSON.stringify(process.env))`,
    `console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'Fixed.\\n\\n<promise>COMPLETE</promise>', usage: { input_tokens: 10, output_tokens: 5 } }))`,
    ''
  ].join('\n')
  const npm = [
    '#!/usr/bin/env node',
    "import fs from 'node:fs'",
    "import path from 'node:path'",
    `fs.writeFileSync(${JSON.stringify(path.join(e2e.scratch(), 'npm-env'))}, JSON.stringify(process.env))`,
    "const pkg = path.join('node_modules', '@qwen-code', 'qwen-code')",
    'fs.mkdirSync(pkg, { recursive: true })',
    `fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ version: ${JSON.stringify(qwen.version)} }))`,
    "fs.mkdirSync(path.join('node_modules', '.bin'), { recursive: true })",
    `fs.writeFileSync(path.join('node_modules', '.bin', 'qwen'), ${JSON.stringify(program)}, { mode: 0o755 })`,
    ''
  ].join('\n')
  writeFileSync(path.join(bin, 'npm'), npm, { mode: 0o755 })
  return bin
}

test('the install (npm, then the CLI itself) and the agent never see the job’s GitHub token', async () => {
  const p = await project('qwen -y')
  const bin = fakeNpm()
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'install-agent': 'true' },
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      RUNNER_TOOL_CACHE: mkdtempSync(path.join(e2e.scratch(), 'tool-cache-qwen-')),
      GITHUB_TOKEN,
      GH_TOKEN: GITHUB_TOKEN
    }
  })
  expect(run.main.exitCode).toBe(0)
  expect(run.main.stdout).toMatch(/^qwen 0\.24\.4 is on PATH \(.*\), from the npm registry in [\d.]+ s\.$/m)
  for (const file of ['npm-env', 'qwen-env']) {
    const env = readFileSync(path.join(e2e.scratch(), file), 'utf8')
    expect(env).not.toContain(GITHUB_TOKEN)
    expect(Object.keys(JSON.parse(env) as object)).not.toContain('ACTIONS_RUNTIME_TOKEN')
  }
})

test('install-agent for an agent ralph-action does not install fails in one line before anything runs', async () => {
  const p = await project('./my-agent.sh --fast')
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', 'install-agent': 'true' } })
  expect(run.main.exitCode).toBe(1)
  expect(run.main.errors.map(e => e.message)).toEqual([
    "Input 'install-agent' is true, but the agent command starts with './my-agent.sh', not one of the CLIs ralph-action installs (claude, codex, gemini, opencode, qwen): name the CLI (install-agent: claude), or install the agent in an earlier step."
  ])
  expect(run.outputs).toEqual({})
})

test('without npm on PATH the first install fails naming the fix (and no agent runs)', async () => {
  const p = await project('qwen -y')
  // node for the ralph's check (preflight finds it), and no npm beside it.
  const emptyPath = mkdtempSync(path.join(e2e.scratch(), 'no-npm-'))
  symlinkSync(process.execPath, path.join(emptyPath, 'node'))
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'install-agent': 'true' },
    env: { PATH: emptyPath, RUNNER_TOOL_CACHE: mkdtempSync(path.join(e2e.scratch(), 'empty-tool-cache-')) }
  })
  expect(run.main.exitCode).toBe(1)
  expect(run.main.errors.map(e => e.message)).toContain(
    'install-agent needs npm on PATH to install @qwen-code/qwen-code: add actions/setup-node before this step.'
  )
})
