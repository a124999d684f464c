import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import { killProcessTree, listDescendants, runProcess } from '../../src/proc/index.js'
import { isGoneSoon, isRunning, killQuietly, pidsIn, tempDir, text } from './helpers.js'

let dir: string
let cleanup: () => void
beforeEach(() => ({ dir, cleanup } = tempDir()))
afterEach(() => cleanup())

// Every pid a test saw is killed at the end, so a failing test leaves nothing running.
const seen: number[] = []
afterAll(() => seen.forEach(killQuietly))
const remember = (pids: number[]): number[] => (seen.push(...pids), pids)

const bash = (script: string): string[] => ['bash', '-c', script]

/**
 * A timeout long enough that the program has printed what the test reads (its pids, its first line) before
 * the timeout fires, even on a loaded machine. The tests are about what happens at the timeout, not its speed.
 */
const OUTPUT_FIRST_MS = 2000

describe('runProcess: timeout', () => {
  test('a command that times out keeps its partial output', async () => {
    const r = await runProcess({
      argv: bash('echo partial; echo partial-err >&2; exec sleep 30'),
      cwd: dir,
      timeoutMs: OUTPUT_FIRST_MS,
      killGraceMs: 200
    })
    expect(r).toMatchObject({ timedOut: true, aborted: false, exitCode: null, signal: 'SIGTERM' })
    expect(text(r.stdout)).toBe('partial\n')
    expect(text(r.stderr)).toBe('partial-err\n')
  })

  test('a program that handles SIGTERM gets to clean up before the kill', async () => {
    const r = await runProcess({
      argv: bash('trap "echo cleaning up; exit 3" TERM; echo ready; sleep 30 & wait'),
      cwd: dir,
      timeoutMs: OUTPUT_FIRST_MS,
      killGraceMs: 20_000
    })
    expect(r).toMatchObject({ timedOut: true, exitCode: 3, signal: null })
    expect(text(r.stdout)).toBe('ready\ncleaning up\n')
  })

  // One shape: a program whose tree holds a sleep that prints its pid, the timeout, the result, the sleep gone.
  test.each<{
    name: string
    script: (dir: string) => string
    killGraceMs: number
    result: Partial<Awaited<ReturnType<typeof runProcess>>>
    onSpawn?: (dir: string) => void
  }>([
    {
      name: 'timeout kills grandchildren in the same process group',
      script: () => 'sleep 30 & echo $!; wait',
      killGraceMs: 200,
      result: { timedOut: true }
    },
    {
      // The sleep inherited the ignored SIGTERM too.
      name: "a child that ignores SIGTERM (trap '' TERM) is SIGKILLed after the grace",
      script: () => "trap '' TERM; sleep 30 & echo $!; wait",
      killGraceMs: 300,
      result: { timedOut: true, exitCode: null, signal: 'SIGKILL' }
    },
    {
      // Its output goes elsewhere, so only the walk over parent pids can find it.
      name: 'a grandchild that escapes with setsid is still killed',
      script: () => 'setsid sleep 30 >/dev/null 2>&1 & echo $!; wait',
      killGraceMs: 200,
      result: { timedOut: true }
    },
    {
      // bash exits; the setsid'd sleep, re-parented to init, keeps stdout open. (The pipe is identified when
      // the program starts, so bash waits for onSpawn, which comes after that, before it goes.)
      name: 'an escaped grandchild whose parent already exited is killed through the pipe it holds',
      script: dir => `until [ -e '${join(dir, 'go')}' ]; do sleep 0.01; done; setsid sleep 30 & echo $!`,
      killGraceMs: 200,
      onSpawn: dir => writeFileSync(join(dir, 'go'), ''),
      result: { timedOut: true, exitCode: 0 }
    },
    {
      // The program itself exited 0; the run timed out waiting for the end of its output.
      name: 'the timeout still applies when a background grandchild holds stdout open',
      script: () => 'sleep 30 & echo $!',
      killGraceMs: 200,
      result: { timedOut: true, exitCode: 0 }
    }
  ])('$name', async ({ script, killGraceMs, result, onSpawn }) => {
    const r = await runProcess({
      argv: bash(script(dir)),
      cwd: dir,
      timeoutMs: OUTPUT_FIRST_MS,
      killGraceMs,
      ...(onSpawn ? { onSpawn: () => onSpawn(dir) } : {})
    })
    const [grandchild] = remember(pidsIn(text(r.stdout)))
    expect(r).toMatchObject(result)
    expect(grandchild).toBeGreaterThan(1)
    expect(await isGoneSoon(grandchild)).toBe(true)
  })
})

describe('runProcess: abort', () => {
  test('aborting kills the tree and marks the result aborted', async () => {
    const controller = new AbortController()
    let out = ''
    const r = await runProcess({
      argv: bash('sleep 30 & echo $!; wait'),
      cwd: dir,
      killGraceMs: 200,
      signal: controller.signal,
      onStdout: chunk => {
        out += chunk.toString()
        if (out.endsWith('\n')) controller.abort()
      }
    })
    const [grandchild] = remember(pidsIn(out))
    expect(r).toMatchObject({ aborted: true, timedOut: false, exitCode: null, signal: 'SIGTERM' })
    expect(await isGoneSoon(grandchild)).toBe(true)
  })

  test('an abort whose reason carries killGraceMs 0 (a spent budget) SIGKILLs at once: the clean-up gets no grace', async () => {
    const controller = new AbortController()
    let out = ''
    // The grace here (60 s) and the clean-up (20 s) both outlast the test's timeout: only the reason's 0 ends it.
    const r = await runProcess({
      argv: bash('trap "sleep 20; exit 3" TERM; echo ready; sleep 30 & wait'),
      cwd: dir,
      killGraceMs: 60_000,
      signal: controller.signal,
      onStdout: chunk => {
        out += chunk.toString()
        if (out.endsWith('\n')) controller.abort(Object.assign(new Error('budget spent'), { killGraceMs: 0 }))
      }
    })
    expect(r).toMatchObject({ aborted: true, timedOut: false, exitCode: null, signal: 'SIGKILL' })
  }, 15_000)

  test('an already aborted signal starts nothing', async () => {
    const controller = new AbortController()
    controller.abort()
    const r = await runProcess({ argv: ['touch', 'ran'], cwd: dir, signal: controller.signal })
    expect(r).toMatchObject({ aborted: true, exitCode: null, signal: null })
    expect(r.spawnError).toBeUndefined()
    expect(existsSync(join(dir, 'ran'))).toBe(false)
  })
})

/** bash in a group of its own with two sleeps, one of them in its own session (setsid), all running. */
async function bashWithTwoSleeps(): Promise<{
  pid: number
  descendants: number[]
  exited: Promise<unknown>
}> {
  const child = spawn('bash', ['-c', 'sleep 30 & setsid sleep 30 & wait'], {
    detached: true,
    stdio: 'ignore'
  })
  const exited = new Promise(resolve => child.once('exit', resolve))
  const pid = child.pid as number
  remember([pid])
  // Both children must be sleeping already: a forked child is bash (and in bash's group) until it
  // execs, and the second leaves the group only when setsid has run, just before it execs sleep.
  const commOf = (p: number): string => {
    try {
      return readFileSync(`/proc/${p}/comm`, 'utf8').trim()
    } catch {
      return ''
    }
  }
  let descendants: number[] = []
  for (let i = 0; i < 500; i++) {
    await sleep(10)
    descendants = listDescendants(pid)
    if (descendants.length === 2 && descendants.every(p => commOf(p) === 'sleep')) break
  }
  return { pid, descendants: remember(descendants), exited }
}

describe('killProcessTree and listDescendants', () => {
  test('list the tree of a running program, and kill all of it', async () => {
    const { pid, descendants, exited } = await bashWithTwoSleeps()
    expect(descendants).toHaveLength(2)
    expect(descendants.every(isRunning)).toBe(true)

    await killProcessTree(pid, 200)
    await exited
    for (const p of [pid, ...descendants]) expect(await isGoneSoon(p)).toBe(true)
  })

  test('the pid from onSpawn lets a budget kill a running program and its tree', async () => {
    let out = ''
    const r = await runProcess({
      argv: ['bash', '-c', 'sleep 30 & echo $!; wait'],
      cwd: dir,
      onSpawn: pid => remember([pid]),
      onStdout: chunk => {
        out += chunk.toString()
        if (out.endsWith('\n')) void killProcessTree(seen[seen.length - 1], 200)
      }
    })
    const [grandchild] = remember(pidsIn(out))
    expect(r).toMatchObject({ timedOut: false, aborted: false, exitCode: null, signal: 'SIGTERM' })
    expect(await isGoneSoon(grandchild)).toBe(true)
  })

  test('each process gets one SIGTERM: the group signal reaches its members, who are not signalled again', async () => {
    // A second SIGTERM runs a clean-up handler twice (seen: "cleaning up" printed twice).
    const { pid, descendants, exited } = await bashWithTwoSleeps()
    // The group (bash and its plain child) gets the group signal; only the setsid'd sleep left it.
    const pgrpOf = (p: number): number =>
      Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[2])
    const outside = descendants.filter(p => pgrpOf(p) !== pid)
    expect(outside).toHaveLength(1)
    const terms: number[] = []
    await killProcessTree(pid, 5_000, {
      signaller: (pids, sig) => {
        if (sig === 'SIGTERM') terms.push(...pids)
        for (const p of pids) {
          try {
            process.kill(p, sig)
          } catch {
            // gone
          }
        }
      }
    })
    await exited
    expect(terms.sort()).toEqual([-pid, ...outside].sort())
  })

  test('killing a process that is already gone resolves at once', async () => {
    const child = spawn('true', [], { detached: true, stdio: 'ignore' })
    await new Promise(resolve => child.once('exit', resolve))
    await killProcessTree(child.pid as number, 10_000)
    expect(listDescendants(child.pid as number)).toEqual([])
  })

  test('refuses to kill this process or its ancestors', async () => {
    await killProcessTree(process.pid, 0)
    await killProcessTree(process.ppid, 0)
    await killProcessTree(1, 0)
    expect(isRunning(process.pid)).toBe(true)
  })
})
