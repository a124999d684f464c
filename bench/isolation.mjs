// The cost of the agent's own user (isolation), measured through the CLI's `--isolation user` (the action uses
// the same set-up and spawn): the start that creates the user, a start with the user there, and what every
// iteration pays (each program started through setpriv or sudo and a launcher, and the uid-wide kill after it),
// next to the same loops with `--isolation none`. As root (setpriv), and as a job user with passwordless sudo
// (sudo), like GitHub's `runner`, when the machine allows it.
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { CLI, expectExit, median, ms, progress, runTimed, tempDir, writeRalph } from './lib.mjs'

export const title = 'Isolation: the agent as its own user'

const USER = 'ralph-agent-bench'
const SUDO_USER = 'ralph-runner-bench'
const ITERATIONS = 20
const REPEATS = 3
/** Programs the loop starts per iteration in this ralph: a command, the agent, a check. */
const SPAWNS = 3

function userExists(name) {
  return spawnSync('id', ['-u', name], { stdio: 'ignore' }).status === 0
}

/** A job user with passwordless sudo (GitHub's `runner`), made once; undefined when this machine cannot. */
function sudoRunner() {
  if (
    process.getuid?.() !== 0 ||
    spawnSync('sh', ['-c', 'command -v sudo'], { stdio: 'ignore' }).status !== 0
  )
    return undefined
  if (!userExists(SUDO_USER)) execFileSync('useradd', ['--create-home', SUDO_USER], { stdio: 'ignore' })
  const sudoers = `/etc/sudoers.d/${SUDO_USER}`
  if (!existsSync(sudoers)) {
    writeFileSync(sudoers, `${SUDO_USER} ALL=(ALL) NOPASSWD:ALL\n`)
    chmodSync(sudoers, 0o440)
  }
  const id = flag => Number(execFileSync('id', [flag, SUDO_USER], { encoding: 'utf8' }).trim())
  return { uid: id('-u'), gid: id('-g') }
}

/** `run -n N` of a ralph with one command, the agent (cat) and one check, in a fresh project. */
async function loop(iterations, isolation, as) {
  const work = tempDir('isolation')
  writeRalph(path.join(work, 'r'), {
    agent: 'cat',
    commands: [['t', 'true']],
    body: 'Iteration {{ ralph.iteration }}. {{ commands.t }}'
  })
  const record = tempDir('isolation-record')
  if (as) execFileSync('chown', ['-R', `${as.uid}:${as.gid}`, work, record])
  const args = [
    'run',
    'r',
    '-n',
    String(iterations),
    '--check',
    'true',
    '--record-dir',
    path.join(record, 'r')
  ]
  if (isolation) args.push('--isolation', 'user', '--agent-user', USER)
  const env = { PATH: process.env.PATH, LANG: 'C.UTF-8', HOME: as ? '/tmp' : process.env.HOME }
  const result = await runTimedAs(process.execPath, [CLI, ...args], { cwd: work, env }, as)
  expectExit(result, [3], `run -n ${iterations}${isolation ? ' --isolation user' : ''}`)
  return result.wallMs
}

/** runTimed, as another user when `as` is given (spawned by root with its uid and gid). */
function runTimedAs(command, args, options, as) {
  if (!as) return runTimed(command, args, options)
  return runTimed(
    'setpriv',
    [`--reuid=${as.uid}`, `--regid=${as.gid}`, '--init-groups', '--', command, ...args],
    options
  )
}

async function medianOf(fn) {
  const times = []
  for (let i = 0; i < REPEATS; i++) times.push(await fn())
  return median(times)
}

async function measure(label, as) {
  progress(`isolation (${label}): the first start, which creates the user`)
  spawnSync('userdel', [USER], { stdio: 'ignore' })
  const firstStart = (await loop(1, true, as)) - (await loop(1, false, as))
  progress(`isolation (${label}): starts with the user there`)
  const one = await medianOf(() => loop(1, true, as))
  const oneNone = await medianOf(() => loop(1, false, as))
  progress(`isolation (${label}): ${ITERATIONS} iterations, isolated and not`)
  const many = await medianOf(() => loop(ITERATIONS, true, as))
  const manyNone = await medianOf(() => loop(ITERATIONS, false, as))
  const start = one - oneNone
  const perIteration = (many - manyNone - start) / (ITERATIONS - 1)
  return { firstStart, start, perIteration, perSpawn: perIteration / SPAWNS, one, oneNone, many, manyNone }
}

export async function run() {
  const rows = []
  const data = {}
  const notes = [
    `The loop: -n 1 and -n ${ITERATIONS} of a ralph with one command (true), the agent (cat) and one check (true):`,
    `${SPAWNS} programs an iteration, each started as the agent's user and followed by the kill of its uid.`,
    'Figures are differences of medians (isolated minus not), so a loaded machine makes them noisy.'
  ]
  const paths = []
  if (process.getuid?.() === 0) paths.push(['root, setpriv', undefined])
  else notes.push('Skipped the root path: the benchmark does not run as root.')
  const runner = sudoRunner()
  // The job user runs the CLI's copy too.
  if (runner) chmodSync(path.dirname(CLI), 0o755)
  if (runner) paths.push(['a job user with passwordless sudo, sudo', runner])
  else notes.push('Skipped the sudo path: making a job user with passwordless sudo needs root and sudo.')
  for (const [label, as] of paths) {
    const m = await measure(label, as)
    data[label] = m
    rows.push(
      { figure: `first start, creating the user (${label})`, display: ms(m.firstStart), goal: '', met: null },
      {
        figure: `start, the user there (${label})`,
        display: ms(m.start),
        goal: '',
        met: null,
        detail: `run -n 1: ${ms(m.one)} isolated, ${ms(m.oneNone)} not`
      },
      {
        figure: `per iteration (${label})`,
        display: ms(m.perIteration),
        goal: '',
        met: null,
        detail: `run -n ${ITERATIONS}: ${ms(m.many)} isolated, ${ms(m.manyNone)} not; ${ms(m.perSpawn)} a program`
      }
    )
  }
  if (paths.length === 0)
    rows.push({ figure: 'isolation', display: 'skipped', goal: '', met: null, detail: 'needs root' })
  return { rows, notes, data }
}
