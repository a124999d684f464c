// Agent runs, not milliseconds: how many iterations (each a paid agent run) a loop needs to reach green, and
// how long its gates keep it waiting, with the baseline on and off and the gates one after another or
// together; and skip-if-green on a green tree. The fixture (bench/fixtures/three-gates) has three gates
// that sleep 1, 2 and 3 s, and a scripted agent that fixes exactly what its prompt names.
import { cpSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { ROOT, expectExit, initRepo, median, progress, readStatus, runCli, tempDir } from './lib.mjs'

export const title = 'Agent runs and gate time: the baseline, parallel gates, skip-if-green'

const FIXTURE = path.join(ROOT, 'bench', 'fixtures', 'three-gates')
const REPEATS = Number(process.env.BENCH_ITERATIONS_REPEATS ?? 3)
/** Parallel gates may wait at most this much longer than their slowest gate. */
const PARALLEL_GOAL = 1.2
const seconds = ms => `${(ms / 1000).toFixed(1)} s`

/** The fixture in a fresh git repository; `green` applies the three fixes first. */
async function project(green) {
  const dir = tempDir('iterations')
  cpSync(FIXTURE, dir, { recursive: true })
  if (green) {
    writeFileSync(path.join(dir, 'src', 'add.js'), 'export function add(a, b) {\n  return a + b\n}\n')
    writeFileSync(
      path.join(dir, 'src', 'greet.js'),
      "export function greet(name) {\n  const greeting = 'Hello, ' + name\n  return greeting\n}\n"
    )
    writeFileSync(
      path.join(dir, 'src', 'parse.js'),
      'export function parse(value) {\n  return Number(value)\n}\n'
    )
  }
  return initRepo(dir)
}

const SCENARIOS = [
  { key: 'on-seq', label: 'baseline on, gates one after another', flags: [] },
  { key: 'off-seq', label: 'baseline off, gates one after another', flags: ['--no-baseline'] },
  { key: 'on-par', label: 'baseline on, gates together', flags: ['--parallel-checks'] },
  { key: 'off-par', label: 'baseline off, gates together', flags: ['--no-baseline', '--parallel-checks'] },
  { key: 'green', label: 'skip-if-green on a green tree', flags: ['--skip-if-green'], green: true }
]

/** One run of the CLI on a fresh copy of the fixture; the figures come from its record. */
async function runOnce(scenario) {
  const dir = await project(scenario.green === true)
  const recordDir = path.join(tempDir('iterations-record'), 'record')
  const result = expectExit(
    await runCli(['run', 'ralph', '-n', '5', ...scenario.flags, '--record-dir', recordDir], { cwd: dir }),
    [0],
    `the CLI (${scenario.label})`
  )
  const status = readStatus(recordDir)
  // A round of gates: the baseline's, then each iteration's.
  const rounds = [status.baseline, ...status.iterations].filter(round => round && round.checks.length > 0)
  return {
    stopReason: status.stopReason,
    iterations: status.iterations.length,
    agentRuns: status.iterations.filter(it => it.agent).length,
    wallMs: result.wallMs,
    rounds: rounds.map(round => ({
      wallMs: round.checksMs,
      slowestMs: Math.max(...round.checks.map(check => check.durationMs)),
      sumMs: round.checks.reduce((sum, check) => sum + check.durationMs, 0)
    }))
  }
}

export async function run() {
  const runs = Object.fromEntries(SCENARIOS.map(s => [s.key, []]))
  // Interleaved, so a change in the machine's load falls on every scenario alike.
  for (let i = 1; i <= REPEATS; i++)
    for (const scenario of SCENARIOS) {
      progress(`iterations: ${scenario.label}, run ${i} of ${REPEATS}`)
      runs[scenario.key].push(await runOnce(scenario))
    }
  const m = Object.fromEntries(
    Object.entries(runs).map(([key, list]) => [
      key,
      {
        iterations: median(list.map(r => r.iterations)),
        agentRuns: median(list.map(r => r.agentRuns)),
        wallMs: median(list.map(r => r.wallMs)),
        stopReasons: [...new Set(list.map(r => r.stopReason))]
      }
    ])
  )
  const gateRounds = key => runs[key].flatMap(r => r.rounds)
  const seqRound = median(
    gateRounds('on-seq')
      .concat(gateRounds('off-seq'))
      .map(r => r.wallMs)
  )
  const parRounds = gateRounds('on-par').concat(gateRounds('off-par'))
  const parRound = median(parRounds.map(r => r.wallMs))
  const slowest = median(parRounds.map(r => r.slowestMs))
  const parRatio = median(parRounds.map(r => r.wallMs / r.slowestMs))
  const saved = m['off-seq'].iterations - m['on-seq'].iterations
  const savedPar = m['off-par'].iterations - m['on-par'].iterations
  const green = m.green

  const rows = [
    {
      figure: 'iterations to green (agent runs), baseline on / off',
      display: `${m['on-seq'].iterations} / ${m['off-seq'].iterations}`,
      goal: 'on saves ≥ 1',
      met: saved >= 1 && savedPar >= 1,
      detail:
        `gates one after another: ${m['on-seq'].agentRuns} vs ${m['off-seq'].agentRuns} agent runs; gates together: ` +
        `${m['on-par'].agentRuns} vs ${m['off-par'].agentRuns}. Without the baseline the first agent run is told nothing and ` +
        'changes nothing; with it, the first prompt holds all three failures.'
    },
    {
      figure: '  wall time to green, gates one after another (on / off)',
      display: `${seconds(m['on-seq'].wallMs)} / ${seconds(m['off-seq'].wallMs)}`,
      goal: '—',
      met: null,
      detail:
        'the whole CLI process. The scripted agent takes well under a second, so this is gate time: the baseline ' +
        'costs one round of gates and saves one round plus one agent run.'
    },
    {
      figure: '  wall time to green, gates together (on / off)',
      display: `${seconds(m['on-par'].wallMs)} / ${seconds(m['off-par'].wallMs)}`,
      goal: '—',
      met: null,
      detail: 'as above, with --parallel-checks.'
    },
    {
      figure: 'gate wall time a round: one after another / together',
      display: `${seconds(seqRound)} / ${seconds(parRound)}`,
      goal: '—',
      met: null,
      detail:
        `checksMs of each round (the baseline's and each iteration's) in status.json, median over ` +
        `${gateRounds('on-seq').length + gateRounds('off-seq').length} and ${parRounds.length} rounds; ` +
        `the gates sleep 1 + 2 + 3 s.`
    },
    {
      figure: '  together, against the slowest gate of the round',
      display: `${parRatio.toFixed(2)}×`,
      goal: `≤ ${PARALLEL_GOAL}×`,
      met: parRatio <= PARALLEL_GOAL,
      detail: `median of (round wall time / its slowest gate's durationMs); the slowest gate's median is ${seconds(slowest)}.`
    },
    {
      figure: 'skip-if-green on a green tree: agent runs',
      display: String(green.agentRuns),
      goal: '0',
      met: green.agentRuns === 0 && green.stopReasons.join() === 'already_green',
      detail: `stop reason ${green.stopReasons.join(', ')}; wall time ${seconds(green.wallMs)} (one round of gates, one after another, and the CLI's start).`
    }
  ]
  const notes = [
    `Method: each scenario runs the built CLI (\`run ralph -n 5\`) on a fresh git copy of bench/fixtures/three-gates,`,
    `${REPEATS} times, interleaved with the others; figures are medians. Iterations and agent runs come from`,
    'status.json; a real agent run is minutes and dollars, so each one saved is worth far more than these seconds.',
    "Gate times include bash starting and the machine's load: with the load average above the CPU count, a",
    '`sleep 1` gate takes more than a second.'
  ]
  return {
    rows,
    notes,
    data: {
      repeats: REPEATS,
      runs,
      medians: m,
      gateRoundMs: { sequential: seqRound, parallel: parRound, slowest, parallelRatio: parRatio }
    }
  }
}
