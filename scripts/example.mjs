// `npm run example`: a real loop, end to end, on examples/fix-failing-test — no API key needed.
// The project is copied to a scratch folder (so this checkout stays clean), made a git repository, and
// the CLI runs its ralph: the scripted agent fixes one failing test per iteration, `npm test` is the gate,
// and each iteration is committed. The run record is left for you to read.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const scratch = mkdtempSync(path.join(tmpdir(), 'ralph-example-'))
const project = path.join(scratch, 'project')
const record = path.join(scratch, 'record')
cpSync(path.join(repo, 'examples', 'fix-failing-test'), project, { recursive: true })

const git = (...args) => execFileSync('git', args, { cwd: project, stdio: 'pipe', encoding: 'utf8' })
git('init', '-q', '-b', 'main')
git('-c', 'user.name=example', '-c', 'user.email=example@localhost', 'add', '-A')
git('-c', 'user.name=example', '-c', 'user.email=example@localhost', 'commit', '-qm', 'Two failing tests')

console.log(`Project: ${project}\n`)
const cli = path.join(repo, 'dist', 'cli', 'index.js')
const run = spawnSync(
  process.execPath,
  [cli, 'run', 'fix-tests', '-n', '5', '--commit', '--record-dir', record],
  {
    cwd: project,
    stdio: 'inherit',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'ralph',
      GIT_AUTHOR_EMAIL: 'ralph@localhost',
      GIT_COMMITTER_NAME: 'ralph',
      GIT_COMMITTER_EMAIL: 'ralph@localhost'
    }
  }
)

const status = JSON.parse(readFileSync(path.join(record, 'status.json'), 'utf8'))
console.log(`\nCommits on the branch:\n${git('log', '--oneline')}`)
console.log(`Stop reason: ${status.stopReason} after ${status.iterations.length} iteration(s)`)
console.log(`Read the record: ${path.join(record, 'progress.md')}`)
process.exit(run.status ?? 1)
