// install-agent: how long the action takes to put an agent CLI on PATH on a fresh runner, cold (from the npm
// registry, with an empty npm cache, then saved in the Actions cache) and on a cache hit (restored from the
// Actions cache). Measured by the live tier's end-to-end test (__tests__/agents-live/install.test.ts: the
// action's bundle, the real registry, the results-service stand-in on azurite), which reports the times the
// action itself logs. BENCH_INSTALL_AGENTS picks the CLIs (default gemini,claude: the smallest and the largest).
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { ROOT, progress, tempDir } from './lib.mjs'

export const title = 'install-agent: the agent CLI on PATH on a fresh runner'

const AGENTS = (process.env.BENCH_INSTALL_AGENTS ?? 'gemini,claude').split(',').filter(Boolean)
const seconds = value => `${value.toFixed(1)} s`

export async function run() {
  const rows = []
  const data = {}
  for (const agent of AGENTS) {
    progress(`install: ${agent} (cold from the npm registry, then from the Actions cache)`)
    const out = path.join(tempDir('install'), 'figures.json')
    const jest = spawnSync(
      'npx',
      ['jest', '-c', 'jest.agents.config.js', '--runInBand', '__tests__/agents-live/install.test.ts'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: {
          ...process.env,
          NODE_OPTIONS: '--experimental-vm-modules',
          INSTALL_AGENT: agent,
          INSTALL_BENCH_JSON: out
        }
      }
    )
    if (jest.status !== 0)
      throw new Error(`the install test for ${agent} failed:\n${(jest.stdout + jest.stderr).slice(-3000)}`)
    const figures = JSON.parse(readFileSync(out, 'utf8'))
    const size = `${Math.round(figures.cacheBytes / 1e6)} MB in the cache`
    rows.push(
      {
        figure: `${agent} ${figures.version}: cold (npm registry, saved in the cache)`,
        display: seconds(figures.coldSeconds),
        goal: '—',
        met: null,
        detail: `npm install with an empty npm cache, --version checked, then the tool folder saved (${size})`
      },
      {
        figure: `${agent} ${figures.version}: cache hit (restored from the cache)`,
        display: seconds(figures.cacheHitSeconds),
        goal: `< cold`,
        met: figures.cacheHitSeconds < figures.coldSeconds,
        detail: 'download and unpack of the saved tool folder; npm is not reachable in this run'
      }
    )
    data[agent] = figures
  }
  const notes = [
    'Method: the live tier’s end-to-end test, once per CLI: two jobs on fresh runners (an empty tool cache each),',
    'the first with an empty npm cache; the times are those the action logs for the install step. The cache',
    'service is the stand-in in front of azurite on loopback: on GitHub the download is over the network.'
  ]
  return { rows, notes, data }
}
