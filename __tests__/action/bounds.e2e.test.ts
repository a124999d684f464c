// The bounds on the agent's user (issue #25), end to end through dist/index.js, the action as root with
// isolation user:
//
//  1. A fork loop under `agent-max-processes: 200`: it stops at the cap (the runner goes on), the run ends
//     with its whole record, and nothing of the agent's uid is left running.
//  2. What the agent leaves outside the work tree (files and a folder in /tmp, /var/tmp and /dev/shm, a
//     setuid copy of bash, a link to a file of root's) is gone after the run; the link's target and the files
//     of other users are untouched.
import { execFileSync } from 'node:child_process'
import { chownSync, lstatSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, expect, test } from '@jest/globals'
import { agentScript, DONE, FIX, projectFiles } from './fixtures.js'
import { runAction } from './harness.js'
import { e2eSuite } from './suite.js'
import { processesOf } from '../../src/security/index.js'
import { TEST_AGENT_USER, describeIsolated, sharedDir, whyNoIsolation } from '../support/isolation.js'

const cleanups: string[] = []
afterAll(() => {
  for (const file of cleanups) rmSync(file, { recursive: true, force: true })
})

const e2e = e2eSuite()

const CAP = 200
/** The fork loop's own bound, for the machine's sake should the cap be missing: far above CAP. */
const BOUND = 1500

const exists = (file: string): boolean => {
  try {
    lstatSync(file)
    return true
  } catch {
    return false
  }
}

const agentUid = (): number => Number(execFileSync('id', ['-u', TEST_AGENT_USER], { encoding: 'utf8' }))

/** Iteration 1: a fork loop left running (each `sleep` outlives its subshell), until it is stuck or at BOUND. */
function forkLoop(loot: string): string {
  const L = JSON.stringify(loot)
  return String.raw`
const { spawn } = await import('node:child_process')
fs.writeFileSync(${L} + '/limits', fs.readFileSync('/proc/self/limits', 'utf8'))
const loop = 'i=0; while [ $i -lt ${BOUND} ]; do if (sleep 600 &) 2>/dev/null; then i=$((i+1)); echo $i >> ' + ${L} + '/forks; fi; done'
spawn('sh', ['-c', loop], { detached: true, stdio: 'ignore' }).unref()
const forks = () => { try { return Math.max(0, ...fs.readFileSync(${L} + '/forks', 'utf8').split('\n').map(Number).filter(n => n > 0)) } catch { return 0 } }
for (let last = -1, same = 0; same < 10; ) {
  await new Promise(resolve => setTimeout(resolve, 300))
  const now = forks()
  if (now === last) same++
  else [last, same] = [now, 0]
}
say('Forked ' + forks() + ' times; the loop is still trying.')
`
}

/** Iteration 1: files of the agent's outside the work tree, each name starting with `tag`. */
function leftovers(tag: string, rootFile: string): string {
  const script = [
    `touch /tmp/${tag}-file /var/tmp/${tag}-file /dev/shm/${tag}-file`,
    `mkdir -p /tmp/${tag}-dir/nested && touch /tmp/${tag}-dir/nested/deep`,
    `cp /bin/bash /tmp/${tag}-suid-sh && chmod 4755 /tmp/${tag}-suid-sh`,
    `ln -s ${rootFile} /var/tmp/${tag}-link`,
    `ln -s /etc /dev/shm/${tag}-etc`
  ].join(' && ')
  return `(await import('node:child_process')).execFileSync('bash', ['-c', ${JSON.stringify(script)}])`
}

describeIsolated(
  'the bounds on the agent’s user (isolation: user, the action as root)',
  process.getuid?.() === 0 ? whyNoIsolation() : 'the action-as-root path needs the tests to run as root'
)('the action as root (setpriv)', () => {
  test('a fork loop stops at agent-max-processes; the run ends with its whole record and nothing of the uid alive', async () => {
    const loot = sharedDir('ralph-bounds-')
    cleanups.push(loot)
    const p = await e2e.project(projectFiles(agentScript({ 1: forkLoop(loot), 2: `${FIX}\n${DONE}` })))
    const run = await runAction(p, e2e.stand(), {
      inputs: { ralph: 'fix-tests', isolation: 'user', 'agent-max-processes': String(CAP) }
    })
    // Capped: soft and hard, and the loop got no further.
    expect(readFileSync(path.join(loot, 'limits'), 'utf8')).toMatch(
      new RegExp(`^Max processes\\s+${CAP}\\s+${CAP}\\s+processes`, 'm')
    )
    // Appended (a kill between a truncation and its write left an empty file, read as 0): the highest count.
    const forks = Math.max(
      0,
      ...readFileSync(path.join(loot, 'forks'), 'utf8')
        .split('\n')
        .map(Number)
        .filter(n => n > 0)
    )
    expect(forks).toBeGreaterThan(0)
    expect(forks).toBeLessThan(CAP)
    // The runner went on: the loop's next iteration and its gates ran, and the run was delivered.
    expect(run.main.exitCode).toBe(0)
    expect(run.outputs['stop-reason']).toBe('all_checks_passed')
    expect(run.outputs.iterations).toBe('2')
    const record = await e2e.recordOf(run)
    const status = JSON.parse(record.get('status.json')?.toString() ?? '{}') as { stopReason?: string }
    expect(status.stopReason).toBe('all_checks_passed')
    expect(record.get('progress.md')?.toString()).toContain('## Stopped: all_checks_passed')
    expect(processesOf(agentUid())).toEqual([])
    expect(run.main.stdout).toContain(`at most ${CAP} processes`)
  }, 240_000)

  test('what the agent left in /tmp, /var/tmp and /dev/shm is gone; a link’s target and other users’ files stay', async () => {
    const tag = `ralph-left-${process.pid}-${Date.now()}`
    // Root's files, and one of another user's: none of them is the agent's to lose.
    const rootFile = `/tmp/${tag}-root`
    const others = [rootFile, `/var/tmp/${tag}-others`, `/dev/shm/${tag}-others`]
    for (const file of others) {
      writeFileSync(file, 'not the agent’s')
      cleanups.push(file)
    }
    chownSync(`/var/tmp/${tag}-others`, 64_998, 64_998)
    const planted = [
      `/tmp/${tag}-file`,
      `/tmp/${tag}-dir/nested/deep`,
      `/tmp/${tag}-dir`,
      `/tmp/${tag}-suid-sh`,
      `/var/tmp/${tag}-file`,
      `/var/tmp/${tag}-link`,
      `/dev/shm/${tag}-file`,
      `/dev/shm/${tag}-etc`
    ]
    cleanups.push(...planted)
    const seen = sharedDir('ralph-bounds-')
    cleanups.push(seen)
    const S = JSON.stringify(seen)
    // The agent records what it made (its uid and modes), so the test knows the attack happened.
    const record = `fs.writeFileSync(${S} + '/made', ${JSON.stringify(planted)}.map(f => { const s = fs.lstatSync(f); return f + ' ' + s.uid + ' ' + (s.mode & 0o7777).toString(8) }).join('\\n'))`
    const p = await e2e.project(
      projectFiles(agentScript({ 1: `${leftovers(tag, rootFile)}\n${record}`, 2: `${FIX}\n${DONE}` }))
    )
    const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', isolation: 'user' } })
    expect(run.outputs['stop-reason']).toBe('all_checks_passed')
    const made = readFileSync(path.join(seen, 'made'), 'utf8').split('\n')
    expect(made).toHaveLength(planted.length)
    for (const line of made) expect(line.split(' ')[1]).toBe(String(agentUid()))
    expect(made).toContain(`/tmp/${tag}-suid-sh ${agentUid()} 4755`)
    // Gone, every one (the links themselves, never what they name); the others' files as they were.
    expect(planted.filter(exists)).toEqual([])
    for (const file of others) expect(readFileSync(file, 'utf8')).toBe('not the agent’s')
    expect(exists('/etc/passwd')).toBe(true)
    const removed = /Removed (\d+) files? the agent's user \S+ left outside the work tree/.exec(
      run.main.stdout
    )
    expect(Number(removed?.[1])).toBeGreaterThanOrEqual(planted.length)
  }, 240_000)
})
