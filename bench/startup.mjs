// Cold start of the CLI (`--version` to exit, and `run` to its first line of output) and of the action
// (`node dist/index.js` to its first log line): median of 10, after one untimed run that warms the file cache.
import path from 'node:path'
import { startAction } from './action.mjs'
import { loadGitHubApi } from './github-api.mjs'
import {
  ACTION_NODE,
  expectExit,
  median,
  ms,
  progress,
  runCli,
  runTimed,
  tempDir,
  writeRalph
} from './lib.mjs'

/**
 * The action's main step as the runner starts it, in dry-run mode (no agent): a workflow_dispatch event, so
 * it plans a hunt and asks the local GitHub API stand-in for the ralph's open pull request, as on GitHub.
 */
async function startDryRun(api, env = {}) {
  const work = tempDir('startup-action')
  writeRalph(path.join(work, 'r'), { agent: 'cat', body: 'Say hello.' })
  const { result } = await startAction(api, {
    work,
    eventName: 'workflow_dispatch',
    event: api.events.workflowDispatch(),
    inputs: { ralph: 'r', 'dry-run': 'true', 'open-pr': 'true' },
    env
  })
  return result
}

let cacheDir
const compileCache = () => (cacheDir ??= tempDir('compile-cache'))

export const title = 'Cold start of the CLI and the action'

const RUNS = 10

const COLD_STARTS = [
  {
    figure: 'node -e 0 (Node alone, for scale)',
    start: () => runTimed(process.execPath, ['-e', '0']),
    take: result => result.wallMs
  },
  {
    figure: 'ralph-action --version (to exit)',
    start: () => runCli(['--version'], { cwd: tempDir('startup') }),
    take: result => result.wallMs
  },
  {
    figure: 'ralph-action run (to its first output line)',
    start: () => {
      const work = tempDir('startup')
      writeRalph(path.join(work, 'r'), { agent: 'cat', body: 'Say hello.' })
      const recordDir = path.join(tempDir('startup-record'), 'record')
      return runCli(['run', 'r', '-n', '1', '--record-dir', recordDir], { cwd: work })
    },
    take: result => result.firstLineMs
  },
  {
    figure: `${path.basename(path.dirname(path.dirname(ACTION_NODE)))} -e 0 (the action's Node alone)`,
    start: () => runTimed(ACTION_NODE, ['-e', '0']),
    take: result => result.wallMs
  },
  {
    figure: 'node dist/index.js, the action (to its first log line)',
    start: startDryRun,
    take: result => result.firstLineMs,
    goalMs: 200
  },
  {
    // Node 22.1+ caches compiled code in NODE_COMPILE_CACHE: what the action's start would gain from it.
    figure: '  the same with a warm NODE_COMPILE_CACHE',
    start: api => startDryRun(api, { NODE_COMPILE_CACHE: compileCache() }),
    take: result => result.firstLineMs
  },
  {
    figure: "  the action's whole dry run (to exit)",
    start: startDryRun,
    take: result => result.wallMs
  }
]

export async function run() {
  const rows = []
  const data = {}
  const startGitHubApi = await loadGitHubApi()
  const api = await startGitHubApi({ owner: 'octo-org', repo: 'octo-repo' })
  try {
    for (const start of COLD_STARTS) {
      progress(`startup: ${start.figure}`)
      // One figure that cannot run is an error row; the others are still measured.
      try {
        const times = []
        for (let i = 0; i <= RUNS; i++) {
          const result = expectExit(await start.start(api), [0], start.figure)
          if (i > 0) times.push(start.take(result))
        }
        const sorted = [...times].sort((a, b) => a - b)
        rows.push({
          figure: start.figure,
          display: ms(median(times)),
          goal: start.goalMs ? `≤ ${start.goalMs} ms` : '—',
          met: start.goalMs ? median(times) <= start.goalMs : null,
          detail: `median of ${RUNS}; fastest ${ms(sorted[0])}, slowest ${ms(sorted.at(-1))}`
        })
        data[start.figure.trim()] = { runsMs: times, medianMs: median(times) }
      } catch (error) {
        rows.push({
          figure: start.figure,
          display: 'error',
          goal: '',
          met: false,
          detail: error.message.split('\n')[0]
        })
        data[start.figure.trim()] = { error: error.message }
      }
    }
  } finally {
    await api.close()
  }
  const requests = api.requests.map(r => `${r.method} ${r.path}`)
  const notes = [
    `Method: ${RUNS} timed runs after one untimed one; wall time from spawn to exit, or to the first`,
    'complete line on stdout. `node -e 0` shows what Node itself takes to start on this machine.',
    `The action runs on ${ACTION_NODE === process.execPath ? `this Node (${process.version}; npm run test:e2e fetches Node 24)` : 'Node 24 (.tool-cache/node24), the runtime action.yml names'},`,
    "as a workflow_dispatch dry run against the local GitHub API stand-in (the tests'",
    `__tests__/support/github-api, transpiled into node_modules/.cache); it asked: ${[...new Set(requests)].join(', ') || 'nothing'}` +
      (api.violations.length > 0 ? `; requests GitHub would refuse: ${api.violations.length}` : '.')
  ]
  return { rows, notes, data }
}
