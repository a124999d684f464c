// `node bench/replay.mjs PLAN.json` (cwd: a work tree like the traced one): spawns, from Node, every process
// a traced run of the CLI spawned, one after the other as the engine does (own process group for commands,
// the agent and checks; stdout and stderr piped, read and dropped; the prompt on the agent's stdin). This is
// the floor of spawning those processes from a Node process, without any of the engine's own work.
// Hashes a traced git call printed are replaced, in later calls' arguments, by the ones this replay's printed.
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

/** The traced run's hashes (trees, commits) → the ones this replay's git printed in their place. */
const replayed = new Map()

function runOne(call) {
  return new Promise(resolve => {
    const child = spawn(
      call.name,
      call.args.map(arg => replayed.get(arg) ?? arg),
      {
        env: call.scratch ? scratchEnv : process.env,
        detached: call.kind !== 'git',
        stdio: [call.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe']
      }
    )
    if (call.outs) {
      let out = ''
      child.stdout.setEncoding('utf8')
      child.stdout.on('data', chunk => (out += chunk))
      child.stdout.on('end', () =>
        out
          .split('\n')
          .filter(line => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(line))
          .forEach((hash, k) => k < call.outs.length && replayed.set(call.outs[k], hash))
      )
    } else child.stdout.resume()
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
