// Loop overhead: what the engine costs beyond the processes it spawns.
//
// The floor is not written by hand: a traced run of the CLI (every program it starts resolved through
// logging shims on PATH) records each process it spawned, in order, with its arguments. The floor then
// replays exactly those processes from a bash script (the issue's "shell loop spawning the same
// processes"), and again from a Node script (bench/replay.mjs), so the figures follow the engine when it
// changes how many git calls an iteration makes. Our runs are timed without shims.
import { accessSync, constants, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import {
  expectExit,
  initRepo,
  ms,
  progress,
  readStatus,
  runCli,
  runTimed,
  tempDir,
  writeRalph,
  writeScript,
  median,
  ROOT
} from './lib.mjs'

export const title = 'Loop overhead: our time next to the processes we spawn'

const PLAIN_ITERATIONS = 100
const GATED_ITERATIONS = 50
const REPEATS = 3
const GATED_GOAL_MS = 15
/** What the engine controls: its own work an iteration beyond Node spawning the same processes. */
const ENGINE_GOAL_MS = 10
/** Every program the benchmark's ralphs make the CLI start. */
const SHIMMED = ['git', 'bash', 'true', 'echo', 'date', 'cat', 'tee']
export const COMMANDS = [
  ['t', 'true'],
  ['hi', 'echo hi'],
  ['date', 'date +%s%N']
]
export const BODY = 'Iteration {{ ralph.iteration }}.\n{{ commands.t }}{{ commands.hi }}{{ commands.date }}'
const REPLAY = path.join(ROOT, 'bench', 'replay.mjs')

/**
 * The reference runtime, when RALPHIFY names its command (e.g. `ralph`, or `uv run --project ../ralphify
 * ralph`): split on white space, started without a shell. Answers undefined when it is not set.
 */
function referenceRuntime() {
  const command = process.env.RALPHIFY?.trim()
  return command ? { command, argv: command.split(/\s+/) } : undefined
}

const sq = text => `'${text.replace(/'/g, `'\\''`)}'`
const isHash = text => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(text)
const seconds = value => `${(value / 1000).toFixed(2)} s`

const found = new Map()

function findProgram(name) {
  if (found.has(name)) return found.get(name)
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir || '.', name)
    try {
      accessSync(file, constants.X_OK)
      found.set(name, file)
      return file
    } catch {
      // Not here.
    }
  }
  throw new Error(`${name} is not on PATH`)
}

/**
 * Runs the CLI once with logging shims first on PATH and answers the plan of what it spawned: the setup
 * calls and the loop's calls (from the first command or agent on), each with its kind.
 */
export async function trace(work, cliArgs, agentName, iterations) {
  const shims = tempDir('shims')
  const log = path.join(shims, 'calls.log')
  const outputs = path.join(shims, 'out')
  mkdirSync(outputs)
  // git's output is kept (in a file named in its log line): the hashes it prints (trees, commits) are
  // arguments of later calls.
  const logLine = (name, outFile) =>
    `{ printf '%s\\037' ${name} "\${GIT_INDEX_FILE:+scratch}" ${outFile} "$@"; printf '\\n'; } >> ${sq(log)}\n`
  for (const name of SHIMMED)
    writeScript(
      path.join(shims, name),
      '#!/bin/sh\n' +
        (name === 'git'
          ? `f=${sq(outputs)}/$$; while [ -e "$f" ]; do f="$f+"; done\n` +
            logLine(name, '"${f##*/}"') +
            `${sq(findProgram(name))} "$@" > "$f"; code=$?\n${sq(findProgram('cat'))} "$f"\nexit $code\n`
          : logLine(name, '-') + `exec ${sq(findProgram(name))} "$@"\n`)
    )
  const recordDir = path.join(tempDir('trace-record'), 'record')
  const env = { ...process.env, PATH: `${shims}${path.delimiter}${process.env.PATH}` }
  await runCli(cliArgs(recordDir), { cwd: work, env })
  const status = readStatus(recordDir)
  if (status.iterations.length !== iterations)
    throw new Error(`the traced run made ${status.iterations.length} iterations, not ${iterations}`)
  const kindOf = name =>
    name === 'git' ? 'git' : name === 'bash' ? 'check' : name === agentName ? 'agent' : 'command'
  let agentRuns = 0
  const calls = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(line => {
      const [name, scratch, outFile, ...args] = line.split('\x1f').slice(0, -1)
      const call = { name, kind: kindOf(name), scratch: scratch === 'scratch', args }
      if (name === 'git') {
        const hashes = readFileSync(path.join(outputs, outFile), 'utf8').split('\n').filter(isHash)
        if (hashes.length > 0) call.outs = hashes
      }
      if (call.kind === 'agent') {
        const n = String(++agentRuns).padStart(3, '0')
        call.stdin = path.join(recordDir, 'logs', `iteration-${n}`, 'prompt.md')
      }
      return call
    })
  const first = calls.findIndex(c => c.kind === 'command' || c.kind === 'agent')
  return { usesScratch: calls.some(c => c.scratch), setup: calls.slice(0, first), loop: calls.slice(first) }
}

/**
 * The bash floor: one line a process, timed per kind with $EPOCHREALTIME; prints the same JSON as replay.mjs.
 * A hash a traced git call printed (a tree, a commit) is captured from the replayed call and passed on to
 * the later calls that used it, so the replay makes the same commits in its own repository.
 */
export function bashReplay(plan, file) {
  const captured = new Map()
  const arg = value => (captured.has(value) ? `"${captured.get(value)}"` : sq(value))
  const line = (call, index) => {
    const command =
      (call.scratch ? 'GIT_INDEX_FILE="$scratch/index" ' : '') +
      // By path, as the engine starts them: bash would run `true` and `echo` as built-ins, starting nothing.
      [sq(findProgram(call.name)), ...call.args.map(arg)].join(' ') +
      ` < ${call.stdin ? sq(call.stdin) : '/dev/null'}`
    if (!call.outs) return `${command} > /dev/null 2>&1`
    call.outs.forEach((hash, k) => captured.set(hash, `\${out${index}[${k}]}`))
    return `out${index}=($(${command} 2>/dev/null))`
  }
  const now = '${EPOCHREALTIME/./}'
  const lines = [
    '#!/bin/bash',
    '# Generated by bench/overhead.mjs: every process a traced run of the CLI spawned, in order.',
    'declare -A spent=([git]=0 [command]=0 [agent]=0 [check]=0)'
  ]
  if (plan.usesScratch)
    lines.push('scratch=$(mktemp -d)', 'cp "$(git rev-parse --git-path index)" "$scratch/index"')
  lines.push(...plan.setup.map(line), `start=${now}`)
  plan.loop.forEach((call, i) =>
    lines.push(
      `s=${now}; ${line(call, plan.setup.length + i)}; spent[${call.kind}]=$((spent[${call.kind}] + ${now} - s))`
    )
  )
  lines.push(
    `end=${now}`,
    'echo "{\\"loopUs\\": $((end - start)), \\"spentUs\\": {\\"git\\": ${spent[git]}, \\"command\\": ' +
      '${spent[command]}, \\"agent\\": ${spent[agent]}, \\"check\\": ${spent[check]}}}"'
  )
  if (plan.usesScratch) lines.push('rm -rf "$(dirname "$scratch/index")"')
  return writeScript(file, lines.join('\n') + '\n')
}

export async function replay(command, args, cwd) {
  const result = expectExit(await runTimed(command, args, { cwd }), [0], `the floor (${command})`)
  return { wallMs: result.wallMs, ...JSON.parse(result.stdout.trim().split('\n').at(-1)) }
}

async function commitCount(dir) {
  const result = await runTimed('git', ['rev-list', '--count', 'HEAD'], { cwd: dir })
  return Number(result.stdout.trim())
}

/** `true · echo hi · git add -A (scratch index) · …`: the processes of one iteration, for people. */
function describeIteration(loop) {
  // Iterations start with the ralph's first command; the second one shows the steady state.
  const starts = loop.flatMap((c, i) => (c.kind === loop[0].kind && c.name === loop[0].name ? [i] : []))
  return loop
    .slice(starts[1], starts[2])
    .map(
      c =>
        [c.name, ...c.args]
          .join(' ')
          .replace(/\b[0-9a-f]{40}\b/g, '<hash>')
          .replace(/-m (commit: )?ralph .*?(?= HEAD|$)/, '-m …') + (c.scratch ? ' (scratch index)' : '')
    )
    .join(' · ')
}

const countByKind = (loop, iterations) => {
  const counts = {}
  for (const call of loop) counts[call.kind] = (counts[call.kind] ?? 0) + 1 / iterations
  return counts
}

/** 100 iterations, agent `cat`, three trivial commands, no gates: whole CLI wall time against the floor. */
async function plainLoop() {
  const n = PLAIN_ITERATIONS
  const work = tempDir('overhead-plain')
  writeRalph(path.join(work, 'r'), { agent: 'cat', commands: COMMANDS, body: BODY })
  const cliArgs = recordDir => ['run', 'r', '-n', String(n), '--record-dir', recordDir]
  progress(`overhead: tracing ${n} plain iterations`)
  const plan = await trace(work, cliArgs, 'cat', n)
  const planFile = path.join(tempDir('plan'), 'plan.json')
  writeFileSync(planFile, JSON.stringify(plan))
  const script = bashReplay(plan, path.join(path.dirname(planFile), 'floor.sh'))

  const reference = referenceRuntime()
  const runs = { ours: [], loop: [], bash: [], node: [], ...(reference ? { ralphify: [] } : {}) }
  for (let i = 1; i <= REPEATS; i++) {
    progress(`overhead: ${n} plain iterations, run ${i} of ${REPEATS}`)
    const recordDir = path.join(tempDir('overhead-record'), 'record')
    const ours = expectExit(await runCli(cliArgs(recordDir), { cwd: work }), [0], 'the CLI (plain loop)')
    const status = readStatus(recordDir)
    if (status.iterations.length !== n)
      throw new Error(`the plain loop made ${status.iterations.length} iterations`)
    runs.ours.push(ours.wallMs)
    runs.loop.push(status.durationMs)
    runs.bash.push((await replay('bash', [script], work)).wallMs)
    runs.node.push((await replay(process.execPath, [REPLAY, planFile], work)).wallMs)
    if (reference) {
      const theirs = await runTimed(
        reference.argv[0],
        [...reference.argv.slice(1), 'run', 'r', '-n', String(n)],
        {
          cwd: work
        }
      )
      runs.ralphify.push(expectExit(theirs, [0], `RALPHIFY (${reference.command})`).wallMs)
    }
  }
  const m = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, median(v)]))
  const ratio = m.ours / m.bash
  const processes = plan.setup.length + plan.loop.length
  const referenceRows = reference
    ? [
        {
          figure: '  the same, against the reference runtime (RALPHIFY)',
          display: `${(m.ours / m.ralphify).toFixed(2)}× ralphify`,
          goal: '—',
          met: null,
          detail:
            `\`${reference.command} run r -n ${n}\` in the same folder, interleaved with ours: ${seconds(m.ralphify)} ` +
            `against our ${seconds(m.ours)} (${((m.ours - m.ralphify) / n).toFixed(1)} ms an iteration apart).`
        }
      ]
    : []
  return {
    rows: [
      {
        figure: `${n} iterations, agent cat + 3 commands, no gates`,
        display: `${ratio.toFixed(2)}× floor`,
        goal: '—',
        met: null,
        detail:
          `ours ${seconds(m.ours)} (the loop itself ${seconds(m.loop)}; the rest is Node's start-up and ` +
          `setup) vs ${seconds(m.bash)} for bash spawning the same ${processes} processes ` +
          `(${(processes / n).toFixed(1)} an iteration): ${((m.ours - m.bash) / n).toFixed(1)} ms an iteration above it.`
      },
      {
        figure: '  the same, beyond Node spawning those processes: an iteration',
        display: ms((m.ours - m.node) / n),
        goal: `≤ ${ENGINE_GOAL_MS} ms`,
        met: (m.ours - m.node) / n <= ENGINE_GOAL_MS,
        detail:
          `Node spawning the same processes (bench/replay.mjs, Node's start-up included): ${seconds(m.node)}, ` +
          `${(m.node / m.bash).toFixed(2)}× bash; ours is ${((m.ours - m.node) / n).toFixed(1)} ms an ` +
          "iteration above it: the engine's own work."
      },
      ...referenceRows
    ],
    data: {
      iterations: n,
      repeats: REPEATS,
      runsMs: runs,
      mediansMs: m,
      ratio,
      processes,
      ...(reference ? { ralphify: reference.command } : {})
    },
    sample: describeIteration(plan.loop)
  }
}

/** 50 iterations with `--check true` and `--commit` in a git repo: per-iteration time beyond the floor. */
async function gatedLoop() {
  const n = GATED_ITERATIONS
  // The agent writes its prompt (which names the iteration) to a file: every iteration has a change to commit.
  const repo = async label => {
    const dir = tempDir(label)
    writeRalph(path.join(dir, 'r'), { agent: 'tee out.txt', commands: COMMANDS, body: BODY })
    return initRepo(dir)
  }
  // Gates pass but the completion tag is never given, so the loop runs to its cap (exit 3).
  const gates = ['--check', 'true', '--commit']
  const cliArgs = recordDir => ['run', 'r', '-n', String(n), ...gates, '--record-dir', recordDir]
  progress(`overhead: tracing ${n} iterations with a check and --commit`)
  const traceRepo = await repo('trace')
  const plan = await trace(traceRepo, cliArgs, 'tee', n)
  const tracedCommits = await commitCount(traceRepo)
  const planFile = path.join(tempDir('plan'), 'plan.json')
  writeFileSync(planFile, JSON.stringify(plan))
  const script = bashReplay(plan, path.join(path.dirname(planFile), 'floor.sh'))

  const runs = { ours: [], bash: [], node: [] }
  const spent = { bash: [], node: [] }
  for (let i = 1; i <= REPEATS; i++) {
    progress(`overhead: ${n} iterations with a check and --commit, run ${i} of ${REPEATS}`)
    const recordDir = path.join(tempDir('overhead-record'), 'record')
    const work = await repo('gated')
    expectExit(await runCli(cliArgs(recordDir), { cwd: work }), [3], 'the CLI (gated loop)')
    const status = readStatus(recordDir)
    if (status.iterations.length !== n)
      throw new Error(`the gated loop made ${status.iterations.length} iterations`)
    if ((await commitCount(work)) !== n + 1) throw new Error('the gated loop did not commit every iteration')
    // From the first iteration's start to the end: every iteration and the record writes between them.
    runs.ours.push((Date.parse(status.finishedAt) - Date.parse(status.iterations[0].startedAt)) / n)
    for (const [name, command, args] of [
      ['bash', 'bash', [script]],
      ['node', process.execPath, [REPLAY, planFile]]
    ]) {
      const floorRepo = await repo(`floor-${name}`)
      const floor = await replay(command, args, floorRepo)
      if ((await commitCount(floorRepo)) !== tracedCommits)
        throw new Error(`the ${name} floor did not replay the traced run's commits`)
      runs[name].push(floor.loopUs / 1000 / n)
      spent[name].push(floor.spentUs)
    }
  }
  const m = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, median(v)]))
  const overhead = m.ours - m.bash
  const counts = countByKind(plan.loop, n)
  // The bash run whose total is the median, for its split by kind.
  const mid = spent.bash[runs.bash.indexOf(m.bash)] ?? spent.bash[0]
  const split = Object.entries(counts)
    .map(([kind, count]) => `${kind} ${ms(mid[kind] / 1000 / n)} (${count.toFixed(count % 1 ? 1 : 0)})`)
    .join(', ')
  return {
    rows: [
      {
        figure: `${n} iterations, a check and --commit: overhead an iteration`,
        display: ms(overhead),
        goal: `≤ ${GATED_GOAL_MS} ms`,
        met: overhead <= GATED_GOAL_MS,
        detail:
          `ours ${ms(m.ours)} an iteration vs ${ms(m.bash)} for bash spawning the same ` +
          `${(plan.loop.length / n).toFixed(1)} processes an iteration (by kind, time and count: ${split}).`
      },
      {
        figure: '  of which beyond Node spawning those processes',
        display: ms(m.ours - m.node),
        goal: `≤ ${ENGINE_GOAL_MS} ms`,
        met: m.ours - m.node <= ENGINE_GOAL_MS,
        detail:
          `Node spawning the same processes one after the other: ${ms(m.node)} an iteration ` +
          `(${ms(m.node - m.bash)} more than bash: Node forks itself for each); what is left, ` +
          `${ms(m.ours - m.node)}, is the engine's own work (prompt, record, bookkeeping).`
      }
    ],
    data: {
      iterations: n,
      repeats: REPEATS,
      perIterationMs: runs,
      mediansMs: m,
      overheadMs: overhead,
      processesPerIteration: counts,
      floorSpentUs: spent
    },
    sample: describeIteration(plan.loop)
  }
}

export async function run() {
  const plain = await plainLoop()
  const gated = await gatedLoop()
  const notes = [
    'Method: a traced run (logging shims first on PATH) records every process the CLI spawns; the floors',
    'replay exactly those processes, in order and with the same arguments, from a bash script and from a',
    'Node script (pipes, own process group, as the engine does). The bash floor starts each program by its',
    'path (/usr/bin/true, not the built-in `true`), so it starts every process the engine starts. Our runs are',
    'timed without shims. Each',
    `figure is the median of ${REPEATS} runs, interleaved with the floors'.`,
    `- Plain loop: the whole CLI process (Node start-up included) against the whole bash replay.`,
    '  With RALPHIFY set to a command that runs the reference runtime (e.g. RALPHIFY=ralph), its `run r -n N`',
    '  is timed in the same folder, interleaved with ours, for one more row and the ratio.',
    `  One iteration spawns: ${plain.sample}`,
    "- Gated loop: ours = (finishedAt − the first iteration's startedAt in status.json) / iterations;",
    "  floor = the replay of the loop's processes, timed inside the script; overhead = ours − bash floor.",
    '  The agent (tee) writes the prompt to a file, so every iteration commits; the check passes but the',
    '  completion tag is never given, so the loop runs to its cap.',
    `  One iteration spawns: ${gated.sample}`,
    "- Why the Node floor is above bash's: child_process.spawn forks the whole Node process (its page tables",
    '  grow with its RSS) synchronously on the main thread, a few ms a process here; bash forks a small process.'
  ]
  return { rows: [...plain.rows, ...gated.rows], notes, data: { plain: plain.data, gated: gated.data } }
}
