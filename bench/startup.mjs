// Cold start of the CLI: `--version` to exit, and `run` to its first line of output (median of 10, after
// one untimed run that warms the file cache). Later figures (the action's `node dist/index.js` to its first
// log line) belong here as more entries of COLD_STARTS.
import path from 'node:path'
import { expectExit, median, ms, progress, runCli, runTimed, tempDir, writeRalph } from './lib.mjs'

export const title = 'Cold start of the CLI'

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
  }
]

export async function run() {
  const rows = []
  const data = {}
  for (const start of COLD_STARTS) {
    progress(`startup: ${start.figure}`)
    const times = []
    for (let i = 0; i <= RUNS; i++) {
      const result = expectExit(await start.start(), [0], start.figure)
      if (i > 0) times.push(start.take(result))
    }
    const sorted = [...times].sort((a, b) => a - b)
    rows.push({
      figure: start.figure,
      display: ms(median(times)),
      goal: '—',
      met: null,
      detail: `median of ${RUNS}; fastest ${ms(sorted[0])}, slowest ${ms(sorted.at(-1))}`
    })
    data[start.figure] = { runsMs: times, medianMs: median(times) }
  }
  const notes = [
    `Method: ${RUNS} timed runs after one untimed one; wall time from spawn to exit, or to the first`,
    'complete line on stdout. `node -e 0` shows what Node itself takes to start on this machine.'
  ]
  return { rows, notes, data }
}
