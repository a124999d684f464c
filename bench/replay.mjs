// `node bench/replay.mjs PLAN.json` (cwd: a work tree like the traced one): spawns, from Node, every process
// a traced run of the CLI spawned, one after the other as the engine does (own process group for commands,
// the agent and checks; stdout and stderr piped, read and dropped; the prompt on the agent's stdin). This is
// the floor of spawning those processes from a Node process, without any of the engine's own work.
// Prints {"loopUs", "spentUs": {kind: µs}} for the calls after the setup ones (see overhead.mjs).
import { spawn } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { execFileSync } from 'node:child_process'

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const calls = [...plan.setup, ...plan.loop]
const inputs = new Map(calls.filter(c => c.stdin).map(c => [c.stdin, readFileSync(c.stdin)]))

let scratch
if (plan.usesScratch) {
  scratch = mkdtempSync(path.join(tmpdir(), 'ralph-bench-index-'))
  const index = execFileSync('git', ['rev-parse', '--git-path', 'index'], { encoding: 'utf8' }).trim()
  copyFileSync(index, path.join(scratch, 'index'))
}
const scratchEnv = scratch ? { ...process.env, GIT_INDEX_FILE: path.join(scratch, 'index') } : process.env

function runOne(call) {
  return new Promise(resolve => {
    const child = spawn(call.name, call.args, {
      env: call.scratch ? scratchEnv : process.env,
      detached: call.kind !== 'git',
      stdio: [call.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe']
    })
    child.stdout.resume()
    child.stderr.resume()
    if (call.stdin) {
      child.stdin.on('error', () => {})
      child.stdin.end(inputs.get(call.stdin))
    }
    child.on('error', resolve)
    child.on('close', resolve)
  })
}

for (const call of plan.setup) await runOne(call)
const spentUs = { git: 0, command: 0, agent: 0, check: 0 }
const start = performance.now()
for (const call of plan.loop) {
  const before = performance.now()
  await runOne(call)
  spentUs[call.kind] += (performance.now() - before) * 1000
}
const loopUs = (performance.now() - start) * 1000
if (scratch) rmSync(scratch, { recursive: true, force: true })
process.stdout.write(JSON.stringify({ loopUs, spentUs }) + '\n')
