// Shared helpers of the benchmark: temp folders, ralphs, git repos, and timing a child process.
import { spawn } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
/** The built CLI: the benchmark measures what users run, not the TypeScript sources. BENCH_CLI picks another build. */
export const BUILT_CLI = process.env.BENCH_CLI
  ? path.resolve(process.env.BENCH_CLI)
  : path.join(ROOT, 'dist', 'cli', 'index.js')
/** The Node the action ships on (action.yml: node24), as `npm run test:e2e` fetches it; else this Node. */
export const ACTION_NODE =
  [path.join(ROOT, '.tool-cache', 'node24', 'bin', 'node')].find(file => existsSync(file)) ?? process.execPath

/** What the measurements run: a copy of BUILT_CLI once `snapshotCli()` has been called. */
export let CLI = BUILT_CLI

/**
 * Copies the built CLI's folder (one bundle and its package.json) to a temp folder and measures that copy,
 * so a rebuild of dist/ by someone else during the run cannot swap the program under test. Answers the folder.
 */
export function snapshotCli() {
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-bench-cli-'))
  const from = path.dirname(BUILT_CLI)
  for (const entry of readdirSync(from, { withFileTypes: true }))
    if (entry.isFile()) copyFileSync(path.join(from, entry.name), path.join(dir, entry.name))
  CLI = path.join(dir, path.basename(BUILT_CLI))
  return dir
}

const made = []

/** A fresh folder under the system temp dir, removed by `removeTempDirs()`. */
export function tempDir(label) {
  const dir = mkdtempSync(path.join(tmpdir(), `ralph-bench-${label}-`))
  made.push(dir)
  return dir
}

export function removeTempDirs() {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** Writes an executable script (commands run without a shell, so pipelines live in scripts). */
export function writeScript(file, text) {
  writeFileSync(file, text)
  chmodSync(file, 0o755)
  return file
}

/**
 * Writes `<dir>/RALPH.md`. Values are JSON-quoted, which is valid YAML, so no run string needs escaping.
 * `commands` is a list of [name, run] or [name, run, timeout seconds] entries.
 */
export function writeRalph(dir, { agent, commands = [], body }) {
  mkdirSync(dir, { recursive: true })
  const lines = ['---', `agent: ${JSON.stringify(agent)}`]
  if (commands.length > 0) lines.push('commands:')
  for (const [name, run, timeout] of commands) {
    lines.push(`  - name: ${name}`, `    run: ${JSON.stringify(run)}`)
    if (timeout !== undefined) lines.push(`    timeout: ${timeout}`)
  }
  lines.push('---', '', body, '')
  writeFileSync(path.join(dir, 'RALPH.md'), lines.join('\n'))
  return dir
}

/** Makes `dir` a git repository with one commit of what it holds, independent of the user's git config. */
export async function initRepo(dir) {
  const git = args => runTimed('git', args, { cwd: dir })
  for (const args of [
    ['init', '--quiet'],
    ['config', 'user.email', 'bench@example.com'],
    ['config', 'user.name', 'bench'],
    ['config', 'commit.gpgsign', 'false'],
    ['add', '-A'],
    ['commit', '--quiet', '--no-verify', '--allow-empty', '-m', 'start']
  ]) {
    const result = await git(args)
    if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed in ${dir}: ${result.stderr}`)
  }
  return dir
}

/** Characters of a child's stdout and stderr kept (the end); past it they are counted, not held. */
const KEPT_CHARS = 1024 * 1024

/** The last KEPT_CHARS characters of a stream, and how many bytes it carried in all. */
class Tail {
  chunks = []
  length = 0
  bytes = 0

  push(chunk) {
    this.bytes += Buffer.byteLength(chunk)
    this.chunks.push(chunk)
    this.length += chunk.length
    while (this.length - this.chunks[0].length >= KEPT_CHARS) this.length -= this.chunks.shift().length
  }

  text() {
    const all = this.chunks.join('')
    return all.length > KEPT_CHARS ? all.slice(-KEPT_CHARS) : all
  }
}

/**
 * Runs a program to its end and times it from spawn to exit. `firstLineMs` is when its first complete
 * stdout line arrived (for cold starts). Only the end of its output is kept (`stdout`, `stderr`: at most
 * 1 MiB each) and the rest counted (`stdoutBytes`, `stderrBytes`): a child may print gigabytes.
 */
export function runTimed(command, args, { cwd, env, input } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(command, args, {
      cwd,
      env: env ?? process.env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe']
    })
    const stdout = new Tail()
    const stderr = new Tail()
    let firstLineMs
    child.stdout.setEncoding('utf8')
    child.stderr.setEncoding('utf8')
    child.stdout.on('data', chunk => {
      stdout.push(chunk)
      if (firstLineMs === undefined && chunk.includes('\n')) firstLineMs = performance.now() - started
    })
    child.stderr.on('data', chunk => stderr.push(chunk))
    if (input !== undefined) child.stdin.end(input)
    child.on('error', reject)
    child.on('close', (code, signal) =>
      resolve({
        code,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutBytes: stdout.bytes,
        stderrBytes: stderr.bytes,
        wallMs: performance.now() - started,
        firstLineMs
      })
    )
  })
}

/** Runs the built CLI with `args` in `cwd`. */
export function runCli(args, options) {
  return runTimed(process.execPath, [CLI, ...args], options)
}

/** The finished record's status.json. */
export function readStatus(recordDir) {
  return JSON.parse(readFileSync(path.join(recordDir, 'status.json'), 'utf8'))
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export const ms = value => (value >= 100 ? `${Math.round(value)} ms` : `${value.toFixed(1)} ms`)
export const mb = bytes => `${(bytes / 1e6).toFixed(1)} MB`

/** Fails loudly when a scenario did not run as set up (that is a broken benchmark, not a slow one). */
export function expectExit(result, codes, what) {
  if (!codes.includes(result.code))
    throw new Error(
      `${what} exited with ${result.code ?? result.signal} (expected ${codes.join(' or ')}):\n` +
        `${result.stderr.slice(-2000)}${result.stdout.slice(-2000)}`
    )
  return result
}

/** One line of progress on stderr, so the table on stdout stays clean. */
export const progress = text => process.stderr.write(`  … ${text}\n`)

/** `work()` timed, and the event loop's longest stall meanwhile (a timer every 5 ms fires that late). */
export async function timed(work) {
  let last = performance.now()
  let stall = 0
  const timer = setInterval(() => {
    const now = performance.now()
    stall = Math.max(stall, now - last)
    last = now
  }, 5)
  const started = performance.now()
  const value = await work()
  const took = performance.now() - started
  // A timer due while the work held the event loop fires now: its lateness counts.
  await new Promise(resolve => setImmediate(resolve))
  clearInterval(timer)
  return { took, stall, value }
}
