// The spawner experiment (bench/spawner/README.md): would a long-lived lightweight process that forks the
// children for us bring the plain loop within the issue's 1.5× of the bash floor? The engine runs the same
// ralph twice from one bundle (bench/spawner/loop.ts, built here with ncc): processes started by Node's
// spawn, as today, and by the helper (bench/spawner/helper.py). Not in the default `npm run bench`: it builds
// a bundle (ncc, ~20 s) and measures a prototype, not the product.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { BODY, COMMANDS, bashReplay, replay, trace } from './overhead.mjs'
import { ROOT, expectExit, median, ms, progress, readStatus, runTimed, tempDir, writeRalph } from './lib.mjs'

export const title = 'Spawn cost: Node spawning each process next to a long-lived helper (experiment)'

const ITERATIONS = 100
const REPEATS = 5
const MICRO_PROCESSES = 300
const HELPER = path.join(ROOT, 'bench', 'spawner', 'helper.py')
const seconds = value => `${(value / 1000).toFixed(2)} s`

function build() {
  const out = tempDir('spawner-build')
  progress('spawner: building bench/spawner/loop.ts (ncc)')
  execFileSync('npx', ['ncc', 'build', path.join('bench', 'spawner', 'loop.ts'), '-o', out, '-q'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit']
  })
  return path.join(out, 'index.js')
}

export async function run() {
  const program = build()
  const env = { ...process.env, SPAWNER_HELPER: HELPER }
  const work = tempDir('spawner-plain')
  writeRalph(path.join(work, 'r'), { agent: 'cat', commands: COMMANDS, body: BODY })
  progress(`spawner: tracing ${ITERATIONS} plain iterations`)
  const plan = await trace(
    work,
    rec => ['run', 'r', '-n', String(ITERATIONS), '--record-dir', rec],
    'cat',
    ITERATIONS
  )
  const planFile = path.join(tempDir('spawner-plan'), 'plan.json')
  writeFileSync(planFile, JSON.stringify(plan))
  const script = bashReplay(plan, path.join(path.dirname(planFile), 'floor.sh'))

  const runs = { node: [], helper: [], bash: [] }
  const loopMs = { node: [], helper: [] }
  let helperRssKb
  for (let i = 1; i <= REPEATS; i++) {
    progress(`spawner: ${ITERATIONS} plain iterations, run ${i} of ${REPEATS}`)
    for (const runner of ['node', 'helper']) {
      const recordDir = path.join(tempDir('spawner-record'), 'record')
      const args = [program, 'r', String(ITERATIONS), recordDir, ...(runner === 'helper' ? ['--helper'] : [])]
      const result = expectExit(await runTimed(process.execPath, args, { cwd: work, env }), [0], runner)
      const summary = JSON.parse(result.stdout.trim().split('\n').at(-1))
      if (summary.iterations !== ITERATIONS) throw new Error(`the ${runner} run made ${summary.iterations}`)
      helperRssKb ??= summary.helperRssKb
      runs[runner].push(result.wallMs)
      loopMs[runner].push(readStatus(recordDir).durationMs)
    }
    runs.bash.push((await replay('bash', [script], work)).wallMs)
  }
  progress(`spawner: ${MICRO_PROCESSES} runs of true through each runner`)
  const micro = JSON.parse(
    expectExit(
      await runTimed(process.execPath, [program, '--micro', String(MICRO_PROCESSES)], { cwd: work, env }),
      [0],
      'the micro run'
    ).stdout.trim()
  )
  const m = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, median(v)]))
  const loop = Object.fromEntries(Object.entries(loopMs).map(([k, v]) => [k, median(v)]))
  const processes = plan.setup.length + plan.loop.length
  const row = (runner, label) => ({
    figure: label,
    display: `${(m[runner] / m.bash).toFixed(2)}× floor`,
    goal: '≤ 1.5× floor',
    met: m[runner] / m.bash <= 1.5,
    detail:
      `${seconds(m[runner])} (the loop itself ${seconds(loop[runner])}) vs ${seconds(m.bash)} for bash spawning ` +
      `the same ${processes} processes: ${((m[runner] - m.bash) / ITERATIONS).toFixed(1)} ms an iteration above it.`
  })
  return {
    rows: [
      row('node', `${ITERATIONS} plain iterations, processes from Node's spawn`),
      row('helper', `  the same, processes from the helper`),
      {
        figure: '  one process (true), start to reaped, from Node',
        display: ms(micro.node),
        goal: '—',
        met: null,
        detail: `runProcess: own process group, pipes, log-less; median of ${MICRO_PROCESSES} interleaved runs.`
      },
      {
        figure: '  the same, from the helper',
        display: ms(micro.helper),
        goal: '—',
        met: null,
        detail:
          `a JSON request, posix_spawn in the helper, frames back; the helper's own RSS ` +
          `${helperRssKb ? `${(helperRssKb / 1024).toFixed(1)} MB` : 'unknown'}.`
      }
    ],
    notes: [
      'Method: bench/spawner/loop.ts runs the engine (runLoop, as the CLI does, without the console) with',
      'ports.runProcess = runProcess (Node forks itself for each process) or the helper (a python3 process',
      'that posix_spawns each child on request and streams its output back in frames). Same bundle, same',
      'ralph (agent cat + 3 commands, no gates), interleaved with the bash floor of overhead.mjs.',
      'git calls (none in this ralph but the 2 at start) do not go through ports.runProcess: a gated loop',
      'would need src/git to use the helper too. See bench/spawner/README.md for what the prototype keeps and',
      'what it would cost to make it the engine’s runner.'
    ],
    data: { iterations: ITERATIONS, repeats: REPEATS, wallMs: runs, loopMs, mediansMs: m, micro, helperRssKb }
  }
}
