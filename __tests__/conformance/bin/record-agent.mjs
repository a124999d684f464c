#!/usr/bin/env node
// A stand-in agent for the conformance suite: records what the runtime under test gives an agent.
// Usage (through the wrappers beside this file): record-agent.mjs <argv0-basename> [agent args…]
// Writes $CONFORMANCE_OUT/prompt-<n>.txt (stdin, byte for byte) and argv-<n>.json ([argv0 basename, …args]),
// n = 1 + the number of prompt files already there. Knobs, all optional (for loop behaviour cases):
//   CONFORMANCE_AGENT_EXIT            exit code; a comma list gives one per call (the last one repeats)
//   CONFORMANCE_AGENT_SLEEP_MS        sleep this long after recording, before exiting (agent timeouts)
//   CONFORMANCE_AGENT_SIGINT_PARENT   on this call number, send SIGINT to the parent (a user's Ctrl+C)
//   CONFORMANCE_AGENT_STREAM_JSON=1   print a stream-json `result` line on stdout (the `claude` wrapper sets it)
import fs from 'node:fs'
import path from 'node:path'

const out = process.env.CONFORMANCE_OUT
if (!out) {
  process.stderr.write('record-agent: CONFORMANCE_OUT is not set\n')
  process.exit(97)
}
const [name, ...args] = process.argv.slice(2)
const prompt = fs.readFileSync(0)
fs.mkdirSync(out, { recursive: true })
const n = fs.readdirSync(out).filter(f => /^prompt-\d+\.txt$/.test(f)).length + 1
fs.writeFileSync(path.join(out, `argv-${n}.json`), JSON.stringify([name, ...args]) + '\n')
fs.writeFileSync(path.join(out, `prompt-${n}.txt`), prompt)

const pick = list => {
  const values = (list ?? '').split(',').filter(v => v !== '')
  return values.length === 0 ? undefined : values[Math.min(n, values.length) - 1]
}
if (process.env.CONFORMANCE_AGENT_STREAM_JSON === '1') {
  process.stdout.write(
    JSON.stringify({ type: 'result', subtype: 'success', result: `recorded prompt ${n}` }) + '\n'
  )
}
if (process.env.CONFORMANCE_AGENT_SIGINT_PARENT === String(n)) process.kill(process.ppid, 'SIGINT')
const code = Number(pick(process.env.CONFORMANCE_AGENT_EXIT) ?? 0)
const sleepMs = Number(process.env.CONFORMANCE_AGENT_SLEEP_MS ?? 0)
setTimeout(() => process.exit(code), sleepMs)
