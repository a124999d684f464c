// `npm run local [-- path/to.env]`: runs the built action (dist/index.js, main then post) on this machine the
// way the runner does: INPUT_* from the env file with action.yml's defaults for the rest, GITHUB_* stand-ins,
// temp GITHUB_OUTPUT / GITHUB_STATE / GITHUB_STEP_SUMMARY files (printed at the end), STATE_* for post.
// The workspace is a scratch git copy of examples/fix-failing-test. (@github/local-action 7 was not used: it
// stubs @actions/core 2 while this action bundles 3, and a dependency of it needs Node 22.)
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const envFile = path.resolve(process.argv[2] ?? path.join(root, 'examples', 'local-action.env'))

/** KEY=value lines; # comments and blank lines skipped; one pair of surrounding quotes removed. */
function readEnvFile(file) {
  const out = {}
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const m = /^\s*([^#=\s][^=]*?)\s*=(.*)$/.exec(line)
    if (m) out[m[1]] = m[2].trim().replace(/^(['"])(.*)\1$/, '$2')
  }
  return out
}

const action = parse(readFileSync(path.join(root, 'action.yml'), 'utf8'))
const inputs = {}
for (const [name, input] of Object.entries(action.inputs ?? {})) {
  const value = String(input.default ?? '')
  // `${{ github.token }}` has no meaning here: no token locally.
  inputs[`INPUT_${name.toUpperCase()}`] = value.includes('${{') ? '' : value
}
Object.assign(inputs, readEnvFile(envFile))

const dir = mkdtempSync(path.join(tmpdir(), 'ralph-local-'))
const workspace = path.join(dir, 'workspace')
const runnerTemp = path.join(dir, 'runner-temp')
mkdirSync(runnerTemp)
cpSync(path.join(root, 'examples', 'fix-failing-test'), workspace, { recursive: true })
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'local', GIT_AUTHOR_EMAIL: 'local@localhost' }
gitEnv.GIT_COMMITTER_NAME = gitEnv.GIT_AUTHOR_NAME
gitEnv.GIT_COMMITTER_EMAIL = gitEnv.GIT_AUTHOR_EMAIL
for (const args of [
  ['init', '-q', '-b', 'main'],
  ['add', '-A'],
  ['commit', '-qm', 'start']
])
  execFileSync('git', args, { cwd: workspace, env: gitEnv })
const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: workspace, encoding: 'utf8' }).trim()
const eventFile = path.join(dir, 'event.json')
writeFileSync(eventFile, JSON.stringify({ inputs: {} }))

const files = name => path.join(dir, name)
const base = {
  ...process.env,
  ...inputs,
  GITHUB_ACTIONS: 'true',
  CI: 'true',
  RUNNER_OS: 'Linux',
  RUNNER_TEMP: runnerTemp,
  GITHUB_WORKSPACE: workspace,
  GITHUB_EVENT_NAME: 'workflow_dispatch',
  GITHUB_EVENT_PATH: eventFile,
  GITHUB_REPOSITORY: 'local/ralph-action-example',
  GITHUB_REPOSITORY_OWNER: 'local',
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_API_URL: 'https://api.github.com',
  GITHUB_RUN_ID: '1',
  GITHUB_RUN_NUMBER: '1',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_JOB: 'local',
  GITHUB_WORKFLOW: 'local',
  GITHUB_ACTOR: 'local',
  GITHUB_SHA: sha,
  GITHUB_REF: 'refs/heads/main',
  GITHUB_REF_NAME: 'main',
  GITHUB_STATE: files('state'),
  GITHUB_ENV: files('env'),
  GITHUB_PATH: files('path')
}
for (const name of ['state', 'env', 'path', 'output-main', 'output-post', 'summary'])
  writeFileSync(files(name), '')

/** `name<<DELIM\nvalue\nDELIM` blocks (and `name=value` lines), as @actions/core writes them. */
function readCommandFile(file) {
  const out = {}
  const lines = readFileSync(file, 'utf8').split('\n')
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i])
    if (heredoc) {
      const end = lines.indexOf(heredoc[2], i + 1)
      out[heredoc[1]] = lines.slice(i + 1, end).join('\n')
      i = end
    } else if (lines[i].includes('='))
      out[lines[i].slice(0, lines[i].indexOf('='))] = lines[i].slice(lines[i].indexOf('=') + 1)
  }
  return out
}

const step = (name, env) => {
  console.log(`\n=== ${name}: node dist/index.js ===`)
  return spawnSync('node', [path.join(root, 'dist', 'index.js')], { cwd: workspace, env, stdio: 'inherit' })
    .status
}
const mainStatus = step('main', {
  ...base,
  GITHUB_OUTPUT: files('output-main'),
  GITHUB_STEP_SUMMARY: files('summary')
})
const state = Object.fromEntries(
  Object.entries(readCommandFile(files('state'))).map(([k, v]) => [`STATE_${k}`, v])
)
const postStatus = step('post', {
  ...base,
  ...state,
  GITHUB_OUTPUT: files('output-post'),
  GITHUB_STEP_SUMMARY: files('summary')
})

console.log(`\n=== outputs (${files('output-main')}) ===`)
for (const [name, value] of Object.entries(readCommandFile(files('output-main'))))
  console.log(`${name}=${value}`)
console.log(`\n=== job summary (${files('summary')}) ===`)
console.log(readFileSync(files('summary'), 'utf8') || '(empty)')
console.log(`\nmain exited ${mainStatus}, post exited ${postStatus}; workspace: ${workspace}`)
process.exit(mainStatus || postStatus || 0)
