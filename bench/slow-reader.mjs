// Peak RSS of the CLI process when what it prints goes to a pipe whose reader is slow: the runner reads a
// job's stdout through a pipe, and a reader that falls behind must pause the agent, not grow our memory.
// For the agent, a command and a check printing BENCH_SLOW_READER_BYTES (default 1 GB), each twice: the
// reader reads at full speed, and the reader starts 5 s late (goal: under 120 MB either way).
//
// How: the CLI runs under a small Python parent that owns the read end of the CLI's stdout, reads it (after
// the delay) and counts the bytes, and reaps the CLI with os.wait4(): ru_maxrss of exactly that pid (the
// producers, bash/head/tr, are a few MB, so the figure is the CLI's own), cross-checked with VmHWM polled.
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import {
  CLI,
  expectExit,
  mb,
  progress,
  readStatus,
  runTimed,
  tempDir,
  writeRalph,
  writeScript
} from './lib.mjs'

export const title = 'Slow reader: peak RSS of the CLI process when its stdout is read late'

const BYTES = Number(process.env.BENCH_SLOW_READER_BYTES ?? 1e9)
const DELAY_SECONDS = 5
const GOAL_BYTES = 120e6
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'

// argv: OUT_JSON DELAY PROGRAM ARGS…  Runs PROGRAM with its stdout on a pipe read DELAY seconds late.
const SLOW_READER_PY = String.raw`
import json, os, subprocess, sys, threading, time
out, delay, argv = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
child = subprocess.Popen(argv, stdout=subprocess.PIPE)
hwm, read, done = [0], [0], threading.Event()
def poll():
    while not done.is_set():
        try:
            with open('/proc/%d/status' % child.pid) as f:
                for line in f:
                    if line.startswith('VmHWM:'):
                        hwm[0] = max(hwm[0], int(line.split()[1]))
        except OSError:
            pass
        done.wait(0.05)
def drain():
    time.sleep(delay)
    fd = child.stdout.fileno()
    while True:
        data = os.read(fd, 1 << 16)
        if not data:
            break
        read[0] += len(data)
threading.Thread(target=poll, daemon=True).start()
reader = threading.Thread(target=drain)
reader.start()
_, status, usage = os.wait4(child.pid, 0)
done.set()
reader.join()
with open(out, 'w') as f:
    json.dump({'maxrssKb': usage.ru_maxrss, 'vmhwmKb': hwm[0], 'exitCode': os.waitstatus_to_exitcode(status), 'readBytes': read[0]}, f)
`

const producer = bytes => `head -c ${bytes} /dev/zero | tr '\\0' x`

/** Bytes printed, from the record (0 when a crashed CLI left none). */
function printed(outputBytes, recordDir) {
  try {
    return outputBytes(readStatus(recordDir), recordDir)
  } catch {
    return 0
  }
}

async function measure(label, { agent, commands, body, extraArgs = [], exitCodes }, outputBytes, delay) {
  const work = tempDir('slow-reader')
  const recordDir = path.join(tempDir('slow-reader-record'), 'record')
  const ralphDir = writeRalph(path.join(work, 'r'), { agent: agent(work), commands, body })
  writeScript(path.join(ralphDir, 'big.sh'), `#!/bin/bash\n${producer(BYTES)}\n`)
  const usageFile = path.join(path.dirname(recordDir), 'rusage.json')
  progress(`slow-reader: ${label}, reader ${delay ? `${delay} s late` : 'at full speed'}`)
  try {
    const args = [CLI, 'run', 'r', '-n', '1', '--record-dir', recordDir, ...extraArgs]
    const result = await runTimed(
      PYTHON,
      ['-c', SLOW_READER_PY, usageFile, String(delay), process.execPath, ...args],
      {
        cwd: work
      }
    )
    const usage = JSON.parse(readFileSync(usageFile, 'utf8'))
    let failure
    try {
      expectExit({ ...result, code: usage.exitCode }, exitCodes, `the CLI (${label})`)
    } catch (error) {
      // A CLI that dies of its own buffering (ENOBUFS) is a figure too: its peak up to then, and why.
      const reason = /Error: [^\n]*/.exec(result.stderr)
      failure = `the CLI exited with ${usage.exitCode}${reason ? ` (${reason[0]})` : ''}`
      if (!reason) throw error
    }
    return {
      label,
      delaySeconds: delay,
      peakRssBytes: usage.maxrssKb * 1024,
      vmhwmBytes: usage.vmhwmKb * 1024,
      producedBytes: printed(outputBytes, recordDir),
      readBytes: usage.readBytes,
      wallMs: result.wallMs,
      ...(failure ? { failure } : {})
    }
  } finally {
    rmSync(recordDir, { recursive: true, force: true })
  }
}

export async function run() {
  const scenarios = [
    [
      'the agent prints 1 GB',
      {
        agent: work =>
          writeScript(path.join(work, 'agent.sh'), `#!/bin/bash\ncat > /dev/null\n${producer(BYTES)}\n`),
        body: 'Print a lot.',
        exitCodes: [0]
      },
      (_status, recordDir) => statSync(path.join(recordDir, 'logs', 'iteration-001', 'agent.log')).size
    ],
    [
      'a command prints 1 GB',
      {
        agent: () => 'cat',
        commands: [['big', './big.sh', 600]],
        body: '{{ commands.big }}',
        exitCodes: [0]
      },
      status => status.iterations[0].commands[0].outputBytes
    ],
    [
      'a check prints 1 GB',
      { agent: () => 'cat', body: 'Say hello.', extraArgs: ['--check', producer(BYTES)], exitCodes: [3] },
      status => status.iterations[0].checks[0].outputBytes
    ]
  ]
  const results = []
  for (const [label, setup, outputBytes] of scenarios)
    for (const delay of [0, DELAY_SECONDS]) results.push(await measure(label, setup, outputBytes, delay))

  const rows = results.map(r => ({
    figure: `${r.label}, reader ${r.delaySeconds ? `${r.delaySeconds} s late` : 'at full speed'}`.replace(
      '1 GB',
      mb(BYTES)
    ),
    display: mb(r.peakRssBytes),
    goal: '< 120 MB',
    met: r.failure === undefined && r.peakRssBytes < GOAL_BYTES,
    detail:
      `wait4 ru_maxrss ${mb(r.peakRssBytes)}, polled VmHWM ${mb(r.vmhwmBytes)}; ${mb(r.producedBytes)} printed ` +
      `(from the record) in ${(r.wallMs / 1000).toFixed(1)} s; the reader got ${mb(r.readBytes)} of the CLI's stdout` +
      (r.failure ? ` — FAILED: ${r.failure}` : '') +
      (r.producedBytes < BYTES ? ` — NOT all ${mb(BYTES)}: the run was cut, so this peak is low` : '')
  }))
  const notes = [
    "The CLI's stdout is a pipe owned by a Python parent that starts reading it after the delay, then reads as",
    'fast as it can; the CLI is reaped with os.wait4 (ru_maxrss of that pid), VmHWM polled every 50 ms as a',
    "cross-check. The CLI echoes all of the agent's output (the action echoes a bounded head and tail), so",
    'it is the worst case for back-pressure. MB = 10^6 bytes.'
  ]
  return {
    rows,
    notes,
    data: { bytes: BYTES, delaySeconds: DELAY_SECONDS, goalBytes: GOAL_BYTES, scenarios: results }
  }
}
