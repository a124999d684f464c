// Budget enforcement latency: from the moment the time budget runs out (--max-time 2) to the agent's whole
// process tree being gone (goal ≤ 5 s, the 3 s SIGTERM → SIGKILL grace included).
//
// Two clocks: the engine's own figure (enforcement.latencyMs in status.json: from the deadline to the end of
// the interrupted iteration), and an outside one: the agent's scripts write every pid of the tree to a
// file, and this process polls /proc for them every 10 ms; the tree is gone when the last one has no
// /proc entry or is a zombie (dead, waiting to be reaped). The deadline is the run's startedAt in
// status.json + 2 s (the engine sets it from the same wall clock).
import { readFileSync } from 'node:fs'
import path from 'node:path'
import {
  expectExit,
  median,
  ms,
  progress,
  readStatus,
  runCli,
  tempDir,
  writeRalph,
  writeScript
} from './lib.mjs'

export const title = 'Budget enforcement: deadline → agent tree gone (--max-time 2)'

const MAX_TIME_S = 2
const GOAL_MS = 5000
const POLL_MS = 10
const REPEATS = 3

/** The whole tree ignores SIGTERM (SIG_IGN is inherited across fork and exec): only SIGKILL ends it. */
const stubbornAgent = pids => `#!/bin/bash
trap '' TERM
cat > /dev/null
echo $$ >> ${pids}
bash -c 'trap "" TERM; sleep 600 & echo $! >> ${pids}; echo $$ >> ${pids}; wait' &
sleep 600 &
echo $! >> ${pids}
wait
`

/** A tree that stops on SIGTERM: the latency is then the engine's reaction time alone. */
const politeAgent = pids => `#!/bin/bash
cat > /dev/null
echo $$ >> ${pids}
bash -c 'sleep 600 & echo $! >> ${pids}; echo $$ >> ${pids}; wait' &
sleep 600 &
echo $! >> ${pids}
wait
`
const TREE_SIZE = 4

function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}

function readPids(file) {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number)
  } catch {
    return []
  }
}

async function once(label, agentScript) {
  const work = tempDir('enforcement')
  const pidFile = path.join(work, 'pids')
  const agent = writeScript(path.join(work, 'agent.sh'), agentScript(pidFile))
  writeRalph(path.join(work, 'r'), { agent, body: 'Work forever.' })
  const recordDir = path.join(tempDir('enforcement-record'), 'record')

  // Poll the tree while the CLI runs: the time of the last look at which any member was alive.
  let lastAlive = 0
  let seen = []
  const poll = setInterval(() => {
    seen = readPids(pidFile)
    if (seen.some(alive)) lastAlive = Date.now()
  }, POLL_MS)
  progress(`enforcement: ${label}`)
  const result = await runCli(['run', 'r', '--max-time', String(MAX_TIME_S), '--record-dir', recordDir], {
    cwd: work
  })
  clearInterval(poll)
  expectExit(result, [3], `the CLI (${label})`)
  const pids = readPids(pidFile)
  if (pids.length !== TREE_SIZE)
    throw new Error(`the agent's tree wrote ${pids.length} pids, not ${TREE_SIZE}`)
  if (pids.some(alive)) throw new Error(`the agent's tree outlived the CLI: ${pids.filter(alive).join(' ')}`)

  const status = readStatus(recordDir)
  if (status.stopReason !== 'timeout')
    throw new Error(`the run stopped with ${status.stopReason}, not timeout`)
  const deadline = Date.parse(status.startedAt) + MAX_TIME_S * 1000
  return {
    label,
    engineLatencyMs: status.enforcement?.latencyMs,
    // The tree was seen alive at lastAlive and gone POLL_MS later at the latest: count the whole interval.
    externalLatencyMs: lastAlive + POLL_MS - deadline,
    crossedAtMatches: status.enforcement?.crossedAt === new Date(deadline).toISOString(),
    killed: status.enforcement?.killed
  }
}

export async function run() {
  const stubborn = []
  for (let i = 1; i <= REPEATS; i++)
    stubborn.push(await once(`SIGTERM-ignoring tree, run ${i} of ${REPEATS}`, stubbornAgent))
  const polite = await once('SIGTERM-respecting tree', politeAgent)

  const external = median(stubborn.map(r => r.externalLatencyMs))
  const engine = median(stubborn.map(r => r.engineLatencyMs))
  const worst = Math.max(...stubborn.map(r => r.externalLatencyMs))
  const rows = [
    {
      figure: 'a tree that ignores SIGTERM (3 s grace, then SIGKILL)',
      display: ms(external),
      goal: `≤ ${GOAL_MS / 1000} s`,
      met: worst <= GOAL_MS,
      detail:
        `outside: median ${ms(external)}, worst ${ms(worst)} of ${REPEATS}; the engine's ` +
        `enforcement.latencyMs: median ${ms(engine)} (${stubborn.map(r => r.engineLatencyMs).join(', ')} ms)`
    },
    {
      figure: 'a tree that stops on SIGTERM',
      display: ms(polite.externalLatencyMs),
      goal: `≤ ${GOAL_MS / 1000} s`,
      met: polite.externalLatencyMs <= GOAL_MS,
      detail: `outside ${ms(polite.externalLatencyMs)}; enforcement.latencyMs ${ms(polite.engineLatencyMs)}`
    }
  ]
  const notes = [
    `Method: an agent script (bash, TERM ignored, a child bash and two sleeps: ${TREE_SIZE} processes) writes`,
    `its pids to a file; this process polls /proc every ${POLL_MS} ms; gone = no /proc entry or a zombie.`,
    `Latency = the last look at which a member lived + ${POLL_MS} ms − (startedAt in status.json + ${MAX_TIME_S} s).`,
    "The engine's figure (enforcement.latencyMs) runs to the end of the interrupted iteration, record included.",
    'The goal is met when the worst run is within it.'
  ]
  return { rows, notes, data: { maxTimeSeconds: MAX_TIME_S, goalMs: GOAL_MS, stubborn, polite } }
}
