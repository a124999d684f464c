// The spawner experiment's program, built by bench/spawner.mjs into a temp folder (both runners in one bundle,
// so they compare fairly):
//   node loop.js RALPH_DIR ITERATIONS RECORD_DIR [--check CMD] [--commit] [--helper]
//     the engine (runLoop, as the CLI runs it, without the console), its processes started by Node's
//     spawn (runProcess, the default) or by the helper; prints {"stopReason", "iterations", "helperRssKb"}
//   node loop.js --micro COUNT
//     COUNT runs of `true` through each runner, interleaved; prints {"node": ms, "helper": ms} a process
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { addedChecks, loopConfig, runLoop } from '../../src/loop/index.js'
import { runProcess } from '../../src/proc/index.js'
import type { RunOptions, RunResult } from '../../src/proc/types.js'
import { loadRalph } from '../../src/ralph/index.js'
import { Spawner } from './helper-process.js'

/** The helper's resident memory (its own process only), in kB. */
function rssKb(pid: number | undefined): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m)
    return line ? Number(line[1]) : undefined
  } catch {
    return undefined
  }
}

async function micro(count: number): Promise<void> {
  const spawner = Spawner.start()
  const runners: [string, (options: RunOptions) => Promise<RunResult>][] = [
    ['node', runProcess],
    ['helper', spawner.runProcess]
  ]
  const spent: Record<string, number[]> = { node: [], helper: [] }
  const rounds = 10
  for (let round = 0; round <= rounds; round++)
    for (const [name, run] of runners) {
      const started = performance.now()
      for (let i = 0; i < count / rounds; i++) await run({ argv: ['true'], cwd: process.cwd() })
      // Round 0 warms both up.
      if (round > 0) spent[name].push((performance.now() - started) / (count / rounds))
    }
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]
  process.stdout.write(`${JSON.stringify({ node: median(spent.node), helper: median(spent.helper) })}\n`)
  spawner.close()
}

async function loop(args: string[]): Promise<void> {
  const [ralphDir, iterations, recordDir, ...rest] = args
  const checkAt = rest.indexOf('--check')
  const cwd = process.cwd()
  // Joined by hand: ncc takes path.resolve(dir, 'RALPH.md') for an asset of the bundle.
  const ralph = loadRalph([path.resolve(ralphDir), 'RALPH.md'].join(path.sep), { cwd })
  const config = loopConfig({
    ralph,
    projectRoot: cwd,
    recordDir: path.resolve(recordDir),
    userArgs: ralph.argValues,
    maxIterations: Number(iterations),
    commit: rest.includes('--commit'),
    checks: [...ralph.checks, ...addedChecks(checkAt === -1 ? [] : [rest[checkAt + 1]], ralph.checks)]
  })
  const spawner = rest.includes('--helper') ? Spawner.start() : undefined
  const result = await runLoop(config, spawner ? { runProcess: spawner.runProcess } : {})
  const helperRssKb = rssKb(spawner?.pid)
  spawner?.close()
  const summary = { stopReason: result.stopReason, iterations: result.iterations.length, helperRssKb }
  process.stdout.write(`${JSON.stringify(summary)}\n`)
}

const args = process.argv.slice(2)
if (args[0] === '--micro') await micro(Number(args[1]))
else await loop(args)
