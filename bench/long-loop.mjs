// A long plain loop (agent `cat`, two commands): the loop process's RSS as the iterations go by, and the CPU
// an iteration costs, for our CLI and, when RALPHIFY names it, the reference runtime on the same ralph.
//
// How it is read: a small Python parent starts the loop with its stdout piped and reads it line by line. When
// `✓ Iteration N` arrives (both runtimes print it when an iteration ends) it reads the loop process's
// /proc/<pid>/status (VmRSS, RssAnon, RssFile) and /proc/<pid>/stat (its own utime+stime, and cutime+cstime:
// the programs it started and reaped). At the end it reaps the loop with os.wait4 (ru_maxrss, its whole tree's
// CPU). Nothing runs inside the measured process.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { CLI, expectExit, progress, runTimed, tempDir, writeRalph } from './lib.mjs'

const PYTHON = '/usr/bin/python3'

// argv: OUT_JSON MARKS PROGRAM ARGS…
const LOOP_SAMPLER_PY = String.raw`
import json, os, re, subprocess, sys
out, marks, argv = sys.argv[1], {int(m) for m in sys.argv[2].split(',')}, sys.argv[3:]
child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         env=dict(os.environ, PYTHONUNBUFFERED='1'))
hz = os.sysconf('SC_CLK_TCK')
def sample():
    kb = {}
    with open('/proc/%d/status' % child.pid) as f:
        for line in f:
            key = line.split(':')[0]
            if key in ('VmRSS', 'RssAnon', 'RssFile'):
                kb[key] = int(line.split()[1])
    with open('/proc/%d/stat' % child.pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return {'rssKb': kb['VmRSS'], 'anonKb': kb['RssAnon'], 'fileKb': kb['RssFile'],
            'ownCpuS': (utime + stime) / hz, 'treeCpuS': (utime + stime + cutime + cstime) / hz}
samples = {}
for line in child.stdout:
    m = re.search(rb'\xe2\x9c\x93 Iteration (\d+) ', line)
    if m and int(m.group(1)) in marks and m.group(1).decode() not in samples:
        try:
            samples[m.group(1).decode()] = sample()
        except OSError:
            pass
_, status, usage = os.wait4(child.pid, 0)
with open(out, 'w') as f:
    json.dump({'samples': samples, 'exitCode': os.waitstatus_to_exitcode(status), 'maxrssKb': usage.ru_maxrss,
               'treeCpuS': usage.ru_utime + usage.ru_stime}, f)
`

const COMMANDS = [
  ['hi', 'echo hi'],
  ['date', 'date +%s%N']
]
const BODY = 'Iteration {{ ralph.iteration }}.\n{{ commands.hi }}{{ commands.date }}'

/**
 * The reference runtime, when RALPHIFY names its command (e.g. `ralph`, or a script that runs ralphify from
 * its source): split on white space, started without a shell. Undefined when it is not set.
 */
export function referenceRuntime() {
  const command = process.env.RALPHIFY?.trim()
  return command ? { command, argv: command.split(/\s+/) } : undefined
}

/** The marks sampled: iteration 10, a few between, and the last. */
export const marksFor = iterations => [...new Set([10, 100, 500, iterations].filter(n => n <= iterations))]

/** Runs `argv` (a loop of `iterations`) under the sampler; answers its samples, peak and CPU. */
async function sampled(label, argv, cwd, iterations) {
  const out = path.join(tempDir('long-loop-out'), 'samples.json')
  progress(`memory: ${label}, ${iterations} plain iterations`)
  const result = await runTimed(
    PYTHON,
    ['-c', LOOP_SAMPLER_PY, out, marksFor(iterations).join(','), ...argv],
    {
      cwd
    }
  )
  const data = JSON.parse(readFileSync(out, 'utf8'))
  expectExit({ ...result, code: data.exitCode }, [0], label)
  const missing = marksFor(iterations).filter(n => !data.samples[n])
  if (missing.length > 0)
    throw new Error(`${label}: no "✓ Iteration N" line was seen for ${missing.join(', ')}`)
  return { label, wallMs: result.wallMs, ...data }
}

/** The same ralph for both runtimes, in a fresh folder each run. */
function plainRalph() {
  const work = tempDir('long-loop')
  writeRalph(path.join(work, 'r'), { agent: 'cat', commands: COMMANDS, body: BODY })
  return work
}

/** Our CLI on `node` (this Node, or the action's Node 24). */
export function ours(node, iterations) {
  const work = plainRalph()
  const record = path.join(tempDir('long-loop-record'), 'record')
  return sampled(
    `the CLI on Node ${node === process.execPath ? process.version : 'of the action'}`,
    [node, CLI, 'run', 'r', '-n', String(iterations), '--record-dir', record],
    work,
    iterations
  )
}

/** The reference runtime on the same ralph (it writes no record: no --log-dir, as a user runs it). */
export function theirs(reference, iterations) {
  const work = plainRalph()
  return sampled(
    'the reference runtime',
    [...reference.argv, 'run', 'r', '-n', String(iterations)],
    work,
    iterations
  )
}

const mib = kb => `${(kb / 1024).toFixed(1)} MiB`

/** `59.8 → 72.7 MiB (+21.6%)` from iteration 10 to the last. */
export function growth(run, iterations) {
  const first = run.samples[10].rssKb
  const last = run.samples[iterations].rssKb
  return { first, last, change: last / first - 1 }
}

/** CPU an iteration from iteration 10 to the last: the loop process's own, and with the programs it started. */
export function cpuPerIteration(run, iterations) {
  const a = run.samples[10]
  const b = run.samples[iterations]
  const n = iterations - 10
  return { ownMs: ((b.ownCpuS - a.ownCpuS) * 1000) / n, treeMs: ((b.treeCpuS - a.treeCpuS) * 1000) / n }
}

/** Every sample of a run, one line. */
export function trajectory(run) {
  return Object.entries(run.samples)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([n, s]) => `${n}: ${mib(s.rssKb)} (anon ${mib(s.anonKb)}, file ${mib(s.fileKb)})`)
    .join(' · ')
}

export { mib }
