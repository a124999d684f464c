// install-agent end to end: the action (node dist/index.js, as the runner starts it) installs a CLI (gemini,
// or INSTALL_AGENT) from the real npm registry into a fresh tool cache and saves it in the Actions cache (the
// results-service stand-in on azurite); a second run, on a fresh runner with npm pointed nowhere, restores it
// from the cache. Both runs then drive the installed CLI against its scripted server to a passing gate.
// `npm run bench` runs this file with INSTALL_BENCH_JSON=<file> (and a fresh npm cache) for its figures.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { agentCli, type AgentCliName } from '../../src/agents/clis.js'
import { liveSetup } from '../support/agents.js'
import { byPrompt, text, type ScriptedServer } from '../support/model-server/index.js'
import { projectFiles, ralph } from '../action/fixtures.js'
import {
  GITHUB_TOKEN,
  createProject,
  runAction,
  startStand,
  type ActionRun,
  type Stand
} from '../action/harness.js'
import { DRIVERS } from './drivers.js'

const name = (process.env.INSTALL_AGENT ?? 'gemini') as AgentCliName
const cli = agentCli(name)!
const driver = DRIVERS.find(d => d.name === name)!
const KEY = `ralph-action-agent-${name}-${cli.version}-${process.platform}-${process.arch}`
const FIXED = 'export function add(a, b) {\n  return a + b\n}\n'
/** Where the bench wants the figures; it also asks for a cold npm cache. */
const BENCH_JSON = process.env.INSTALL_BENCH_JSON

let stand: Stand
let server: ScriptedServer
/** The runner's tool cache: the same path on every runner (as /opt/hostedtoolcache), empty on a fresh one. */
let toolCache: string
let npmCache: string | undefined

beforeAll(async () => {
  toolCache = mkdtempSync(path.join(tmpdir(), 'ralph-tool-cache-'))
  if (BENCH_JSON) npmCache = mkdtempSync(path.join(tmpdir(), 'ralph-npm-cache-'))
  stand = await startStand()
  server = await driver.startServer({
    script: byPrompt([
      [
        /This is iteration 1\./,
        [
          driver.shell(`printf '${FIXED.replace(/\n/g, '\\n')}' > calc.js`),
          text('Fixed add.\n\n<promise>COMPLETE</promise>')
        ]
      ]
    ])
  })
}, 120_000)

afterAll(async () => {
  await server?.close()
  await stand?.close()
  for (const dir of [toolCache, npmCache]) if (dir) rmSync(dir, { recursive: true, force: true })
})

/** One job on a fresh runner (an empty tool cache) with install-agent: true and the bare program name. */
async function job(
  env: Record<string, string> = {}
): Promise<{ run: ActionRun; seconds: number; from: string }> {
  // @actions/cache hashes the cached path into the entry's version: a restore needs the same path.
  rmSync(toolCache, { recursive: true, force: true })
  const agent = driver.name === 'claude' ? `${driver.command} --max-budget-usd 50` : driver.command
  const p = await createProject(projectFiles('', ralph({ agent })))
  try {
    const setup = liveSetup(name, server.url, p.home)
    const run = await runAction(p, stand, {
      // The action's default isolation: the agent's user runs the installed CLI with a copy of its settings.
      // model-proxy false: the CLI's key in the job would turn auto on, and codex's and opencode's scripted
      // server is named in their config files, not in OPENAI_BASE_URL; the proxy tier covers the proxy.
      inputs: { ralph: 'fix-tests', 'install-agent': 'true', 'max-cost': '1', 'model-proxy': 'false' },
      env: {
        ...(setup.env as Record<string, string>),
        GITHUB_TOKEN,
        RUNNER_TOOL_CACHE: toolCache,
        ...(npmCache ? { npm_config_cache: npmCache } : {}),
        ...env
      }
    })
    const line = new RegExp(`^${name} \\S+ is on PATH \\(.*\\), from the (.*) in ([\\d.]+) s\\.$`, 'm').exec(
      run.main.stdout
    )
    if (!line) throw new Error(`no install line in the main step's log:\n${run.main.stdout.slice(-4000)}`)
    // As root the action isolates the agent; its CLI's settings (written into the job's HOME) go with it.
    if (process.getuid?.() === 0) {
      expect(run.main.stdout).toMatch(/^The agent, the ralph's commands and the checks run as /m)
      // claude needs no settings file against the scripted server; the others' are copied.
      if (name !== 'claude') expect(run.main.stdout).toContain(`The agent's user gets a copy of ${p.home}/`)
    }
    // On PATH for the job's later steps too.
    const added = readFileSync(path.join(run.stepDir, 'add_path'), 'utf8')
    expect(added).toContain(path.join(toolCache, `ralph-action-agent-${name}`, cli.version))
    return { run, from: line[1], seconds: Number(line[2]) }
  } finally {
    await p.cleanup()
  }
}

test(`the first run installs ${name} from the npm registry and caches it; the second restores it from the cache`, async () => {
  const first = await job()
  expect(first.run.main.exitCode).toBe(0)
  expect(first.from).toBe('npm registry')
  expect(first.run.outputs).toMatchObject({
    'stop-reason': 'all_checks_passed',
    'cost-source': driver.costSource
  })
  const [entry] = stand.artifacts.listCacheEntries()
  expect(stand.artifacts.listCacheEntries().map(e => e.key)).toEqual([KEY])

  // npm pointed at a closed port: only the cache can provide the CLI now.
  const second = await job({ npm_config_registry: 'http://127.0.0.1:9/' })
  expect(second.run.main.exitCode).toBe(0)
  expect(second.from).toBe('Actions cache')
  expect(second.run.outputs).toMatchObject({ 'stop-reason': 'all_checks_passed' })
  // Restored, not saved again: no second reservation of the key.
  expect(stand.artifacts.listCacheEntries()).toHaveLength(1)
  expect(stand.artifacts.violations).toEqual([])
  expect(server.problems).toEqual([])
  const figures = {
    agent: name,
    version: cli.version,
    coldSeconds: first.seconds,
    cacheHitSeconds: second.seconds,
    cacheBytes: entry.size
  }
  console.info(`install-agent: ${JSON.stringify(figures)}`)
  if (BENCH_JSON) writeFileSync(BENCH_JSON, JSON.stringify(figures))
}, 900_000)
