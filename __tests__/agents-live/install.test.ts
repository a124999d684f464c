// install-agent end to end: the action (node dist/index.js, as the runner starts it) installs gemini from the
// real npm registry into a fresh tool cache and saves it in the Actions cache (the results service stand-in on
// azurite); a second run, on a fresh runner with npm pointed nowhere, restores it from the cache. Both runs
// then drive the installed CLI against the scripted Gemini server to a passing gate and a pull request.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { agentCli } from '../../src/agents/clis.js'
import { liveSetup } from '../support/agents.js'
import {
  byPrompt,
  startGeminiServer,
  text,
  toolCall,
  type ScriptedServer
} from '../support/model-server/index.js'
import { projectFiles, ralph } from '../action/fixtures.js'
import {
  GITHUB_TOKEN,
  createProject,
  runAction,
  startStand,
  type ActionRun,
  type Stand
} from '../action/harness.js'

const gemini = agentCli('gemini')!
const KEY = `ralph-action-agent-gemini-${gemini.version}-${process.platform}-${process.arch}`
const FIXED = 'export function add(a, b) {\n  return a + b\n}\n'

let stand: Stand
let server: ScriptedServer
/** The runner's tool cache: the same path on every runner (as /opt/hostedtoolcache), empty on a fresh one. */
let toolCache: string

beforeAll(async () => {
  toolCache = mkdtempSync(path.join(tmpdir(), 'ralph-tool-cache-'))
  stand = await startStand()
  server = await startGeminiServer({
    script: byPrompt([
      [
        /This is iteration 1\./,
        [
          toolCall('run_shell_command', {
            command: `printf '${FIXED.replace(/\n/g, '\\n')}' > calc.js`,
            description: 'fix add'
          }),
          text('Fixed add.\n\n<promise>COMPLETE</promise>')
        ]
      ]
    ])
  })
}, 120_000)

afterAll(async () => {
  await server?.close()
  await stand?.close()
  rmSync(toolCache, { recursive: true, force: true })
})

/** One job on a fresh runner (its own tool cache) with install-agent: true and a bare `gemini` agent. */
async function job(env: Record<string, string> = {}): Promise<{ run: ActionRun; installLine: string }> {
  // @actions/cache hashes the cached path into the entry's version: a restore needs the same path.
  rmSync(toolCache, { recursive: true, force: true })
  const p = await createProject(projectFiles('', ralph({ agent: 'gemini -y' })))
  try {
    const setup = liveSetup('gemini', server.url, p.home)
    const run = await runAction(p, stand, {
      inputs: { ralph: 'fix-tests', 'install-agent': 'true', 'max-cost': '1' },
      env: { ...(setup.env as Record<string, string>), GITHUB_TOKEN, RUNNER_TOOL_CACHE: toolCache, ...env }
    })
    const installLine = /^gemini \S+ is on PATH \(.*\), from the .*$/m.exec(run.main.stdout)?.[0]
    if (!installLine)
      throw new Error(`no install line in the main step's log:\n${run.main.stdout.slice(-4000)}`)
    // On PATH for the job's later steps too.
    const added = readFileSync(path.join(run.stepDir, 'add_path'), 'utf8')
    expect(added).toContain(path.join(toolCache, 'ralph-action-agent-gemini', gemini.version))
    return { run, installLine }
  } finally {
    await p.cleanup()
  }
}

test('the first run installs gemini from the npm registry and caches it; the second restores it from the cache', async () => {
  const first = await job()
  expect(first.run.main.exitCode).toBe(0)
  expect(first.installLine).toMatch(/from the npm registry in [\d.]+ s\.$/)
  expect(first.run.outputs).toMatchObject({ 'stop-reason': 'all_checks_passed', 'cost-source': 'estimated' })
  expect(stand.artifacts.listCacheEntries().map(entry => entry.key)).toEqual([KEY])

  // npm pointed at a closed port: only the cache can provide gemini now.
  const second = await job({ npm_config_registry: 'http://127.0.0.1:9/' })
  expect(second.run.main.exitCode).toBe(0)
  expect(second.installLine).toMatch(/from the Actions cache in [\d.]+ s\.$/)
  expect(second.run.outputs).toMatchObject({ 'stop-reason': 'all_checks_passed' })
  // Restored, not saved again: no second reservation of the key.
  expect(stand.artifacts.listCacheEntries()).toHaveLength(1)
  expect(stand.artifacts.violations).toEqual([])
  expect(server.problems).toEqual([])
  console.info(`install-agent (gemini ${gemini.version}): ${first.installLine}\n${second.installLine}`)
}, 900_000)
