// Getting started's adopter path, run as written: its vendoring block copies action.yml and dist/ into a
// project (the bundled example, whose scripted agent needs no key), its scaffold block writes a starter, and its
// local-trial block runs the vendored dist/index.js there, to a green loop on a local branch.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ACTION_NODE } from '../action/harness.js'
import { TEST_AGENT_USER } from '../support/agent-user.js'
import { readPage, REPO } from './markdown.js'

const blocks = readPage('docs/getting-started.md').blocks.filter(b => b.lang === 'sh')
const blockUnder = (heading: string): string => {
  const block = blocks.find(b => b.heading === heading)
  if (!block) throw new Error(`docs/getting-started.md has no sh block under "${heading}"`)
  // The clone of ralph-action the page speaks of is this checkout.
  return block.text.replaceAll('/path/to/ralph-action', REPO)
}

let dir: string
let project: string
/** What a shell on the adopter's machine has: no GITHUB_* or runner variable of the job running this test. */
let env: Record<string, string>

/** Runs a block of the page with bash in the project, as a reader pastes it. */
const paste = (block: string, extra: Record<string, string> = {}) =>
  spawnSync('bash', ['--norc', '-e', '-c', block], {
    cwd: project,
    env: { ...env, ...extra },
    encoding: 'utf8',
    timeout: 240_000
  })
const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: project, env, encoding: 'utf8' }).trim()

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'ralph-getting-started-')))
  project = path.join(dir, 'my-project')
  mkdirSync(path.join(dir, 'home'))
  mkdirSync(path.join(dir, 'temp'))
  env = {
    PATH: `${path.dirname(ACTION_NODE)}:${process.env.PATH ?? ''}`,
    HOME: path.join(dir, 'home'),
    LANG: 'C.UTF-8',
    GIT_AUTHOR_NAME: 'Ada',
    GIT_AUTHOR_EMAIL: 'ada@example.com',
    GIT_COMMITTER_NAME: 'Ada',
    GIT_COMMITTER_EMAIL: 'ada@example.com',
    GIT_CONFIG_NOSYSTEM: '1'
  }
  cpSync(path.join(REPO, 'examples', 'fix-failing-test'), project, { recursive: true })
  git('init', '--quiet', '--initial-branch=main')
  git('add', '-A')
  git('commit', '--quiet', '-m', 'my project')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

test('vendored as step 1 says, the action runs on the machine as step 4 says: a green loop on a local branch', () => {
  const vendored = paste(blockUnder('1. Vendor the action'))
  expect(vendored.stderr).toBe('')
  expect(vendored.status).toBe(0)
  expect(git('log', '-1', '--format=%s')).toBe('ralph-action, vendored')
  expect(readFileSync(path.join(project, '.github/actions/ralph/dist/index.js'))).toEqual(
    readFileSync(path.join(REPO, 'dist', 'index.js'))
  )
  expect(git('status', '--porcelain')).toBe('')

  // As root, the agent runs as a user of its own: this test run's, so that runs beside it keep theirs.
  const run = paste(blockUnder('4. Try it on your machine'), {
    'INPUT_AGENT-USER': TEST_AGENT_USER,
    RUNNER_TEMP: path.join(dir, 'temp')
  })
  expect(run.status).toBe(0)
  expect(run.stdout).toContain('Stopped: all_checks_passed')
  expect(run.stdout).toContain('::set-output name=stop-reason::all_checks_passed')
  expect(git('log', '--format=%s', 'main..ralph/fix-tests').split('\n')).toEqual([
    'ralph fix-tests: iteration 2',
    'ralph fix-tests: iteration 1'
  ])
  expect(git('branch', '--show-current')).toBe('main')
  expect(git('remote')).toBe('')
  // As the page says: as root, a user of its own; elsewhere (no passwordless sudo) as you, with a warning.
  if (process.getuid?.() === 0)
    expect(run.stdout).not.toMatch(/The agent runs as the job's own user|isolation: none/)
})

test('step 4 with INPUT_DRY-RUN=true prints the first prompt and runs no agent', () => {
  expect(paste(blockUnder('1. Vendor the action')).status).toBe(0)
  const run = paste(blockUnder('4. Try it on your machine'), {
    'INPUT_DRY-RUN': 'true',
    'INPUT_AGENT-USER': TEST_AGENT_USER,
    RUNNER_TEMP: path.join(dir, 'temp')
  })
  expect(run.status).toBe(0)
  expect(run.stdout).toContain('You are fixing the failing tests of this project')
  expect(run.stdout).not.toContain('Fixed calc.js')
  expect(git('branch', '--list', 'ralph/*')).toBe('')
})

test("step 2's scaffold block writes a starter RALPH.md where the action finds the ralph by its name", () => {
  expect(paste(blockUnder('1. Vendor the action')).status).toBe(0)
  const scaffold = paste(blockUnder('2. A ralph'))
  expect(scaffold.status).toBe(0)
  expect(scaffold.stdout).toContain('Created .agents/ralphs/fix-tests/RALPH.md')
  expect(existsSync(path.join(project, '.agents', 'ralphs', 'fix-tests', 'RALPH.md'))).toBe(true)
})
