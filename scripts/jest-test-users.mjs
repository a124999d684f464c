// jest's globalSetup, for all three tiers: the agent users this run's isolation tests create and kill
// (ralph-agent-<letter><worker>), a letter no other test run on this machine holds. Two `npm test`s at once
// would otherwise share ralph-agent-t1, and one's whole-uid kill would end the other's agents.
// The letter is held with flock(1) by a small process that lives as long as this jest does.
import { spawn } from 'node:child_process'
import { tmpdir } from 'node:os'
import path from 'node:path'

const LETTERS = 'tuvwxyz'

/** Takes the lock of one letter; resolves whether it was free. The holder lives until `owner` exits. */
function hold(letter, owner) {
  const lock = path.join(tmpdir(), `ralph-action-test-users-${letter}.lock`)
  return new Promise(resolve => {
    let holder
    try {
      holder = spawn(
        'flock',
        [
          '-n',
          '-E',
          '75',
          lock,
          'sh',
          '-c',
          `echo held; while kill -0 ${owner} 2>/dev/null; do sleep 1; done`
        ],
        { detached: true, stdio: ['ignore', 'pipe', 'ignore'] }
      )
    } catch {
      return resolve('no-flock')
    }
    holder.on('error', () => resolve('no-flock'))
    holder.stdout.once('data', () => {
      holder.stdout.destroy()
      holder.unref()
      resolve('held')
    })
    holder.on('exit', code => resolve(code === 75 ? 'taken' : 'no-flock'))
  })
}

export default async function setup() {
  // Given by hand: that prefix, as before.
  if (process.env.RALPH_TEST_AGENT_PREFIX) return
  for (const letter of LETTERS) {
    const got = await hold(letter, process.pid)
    if (got === 'taken') continue
    // Without flock (util-linux), the first letter: one test run at a time, as before.
    process.env.RALPH_TEST_AGENT_PREFIX = `ralph-agent-${got === 'held' ? letter : LETTERS[0]}`
    return
  }
  throw new Error(
    `Every test-user letter (${LETTERS}) is held by another test run on this machine: wait for one to end, or give RALPH_TEST_AGENT_PREFIX.`
  )
}
