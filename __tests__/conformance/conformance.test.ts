// Conformance with the reference runtime (ralphify bc576fd): real ralphs through a real CLI, compared byte
// for byte with what the reference did. Case format and the contract: cases/README.md.
//
// By default this runs our CLI (`node dist/cli/index.js run …`, so `npm run build` first) and checks our
// contract. RALPH_CONFORMANCE_CLI=<executable> runs that instead (`<executable> run …`) and, unless
// RALPH_CONFORMANCE_EXPECT=ours, checks the recorded reference values: pointing it at the reference
// runtime proves the fixtures and this runner right.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

interface CaseSpec {
  description: string
  /** Arguments after `run`. */
  argv: string[]
  /** Working directory, relative to the case's temp root (which holds project/ and home/). */
  cwd: string
  env?: Record<string, string>
  /** A folder of the case copied to <temp root>/home and used as HOME (default: an empty HOME). */
  home?: string
  /** Where our CLI deliberately differs from the reference; `reason` says why. */
  ours?: { exitCode?: number; errorPattern?: string; reason: string }
}

interface Outcome {
  exitCode: number | string
  stdout: string
  stderr: string
  outDir: string
}

const suiteDir = path.dirname(fileURLToPath(import.meta.url))
const casesDir = path.join(suiteDir, 'cases')
const binDir = path.join(suiteDir, 'bin')
const repoRoot = path.resolve(suiteDir, '..', '..')
const ourCli = path.join(repoRoot, 'dist', 'cli', 'index.js')

const customCli = process.env.RALPH_CONFORMANCE_CLI
const expectOurs = (process.env.RALPH_CONFORMANCE_EXPECT ?? (customCli ? 'reference' : 'ours')) === 'ours'
const [command, prefix] = customCli ? [customCli, []] : [process.execPath, [ourCli]]
const keepTemp = process.env.RALPH_CONFORMANCE_KEEP === '1'
const processTimeoutMs = 30_000

const caseNames = fs
  .readdirSync(casesDir, { withFileTypes: true })
  .filter(e => e.isDirectory())
  .map(e => e.name)
  .sort()

/** A byte-exact, diff-friendly rendering: printable ASCII as is, every other byte as \xNN, a line per \n. */
function visible(bytes: Buffer): string {
  let s = ''
  for (const b of bytes) {
    if (b === 0x0a) s += '\\n\n'
    else if (b === 0x5c) s += '\\\\'
    else if (b >= 0x20 && b < 0x7f) s += String.fromCharCode(b)
    else s += `\\x${b.toString(16).padStart(2, '0')}`
  }
  return s
}

// eslint-disable-next-line no-control-regex -- ANSI escape sequences start with ESC
const stripAnsi = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
/** Lines without colour codes, Rich panel borders (│) or surrounding blanks. */
const plainLines = (s: string): string[] =>
  stripAnsi(s)
    .split('\n')
    .map(l => l.replace(/^[│\s]+|[│\s]+$/g, ''))

/** prompt-1.txt, prompt-2.txt, … (or argv-N.json) in iteration order. */
function numbered(dir: string, kind: 'prompt' | 'argv'): string[] {
  const re = kind === 'prompt' ? /^prompt-(\d+)\.txt$/ : /^argv-(\d+)\.json$/
  return fs
    .readdirSync(dir)
    .filter(f => re.test(f))
    .sort((a, b) => Number(re.exec(a)![1]) - Number(re.exec(b)![1]))
}

function runCase(caseDir: string, spec: CaseSpec, root: string): Promise<Outcome> {
  fs.cpSync(path.join(caseDir, 'project'), path.join(root, 'project'), { recursive: true })
  const home = path.join(root, 'home')
  if (spec.home) fs.cpSync(path.join(caseDir, spec.home), home, { recursive: true })
  else fs.mkdirSync(home)
  const outDir = path.join(root, 'out')
  fs.mkdirSync(outDir)
  // A small, fixed environment: the recorder agents first on PATH, no colour, no line wrapping.
  const env = {
    PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    TMPDIR: os.tmpdir(),
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    COLUMNS: '400',
    CONFORMANCE_OUT: outDir,
    ...spec.env
  }
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...prefix, 'run', ...spec.argv], {
      cwd: path.join(root, spec.cwd),
      env,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    const stdout: Buffer[] = []
    const stderr: Buffer[] = []
    child.stdout.on('data', (d: Buffer) => stdout.push(d))
    child.stderr.on('data', (d: Buffer) => stderr.push(d))
    const timer = setTimeout(() => child.kill('SIGKILL'), processTimeoutMs)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({
        exitCode: code ?? `killed by ${signal}`,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        outDir
      })
    })
  })
}

/** Every difference between what the CLI did and what the case expects; empty when it conforms. */
function differences(caseDir: string, spec: CaseSpec, got: Outcome): string[] {
  const expectedDir = path.join(caseDir, 'expected')
  const read = (name: string) => fs.readFileSync(path.join(expectedDir, name))
  const found: string[] = []
  const check = (assertion: () => void) => {
    try {
      assertion()
    } catch (error) {
      found.push(error instanceof Error ? error.message : String(error))
    }
  }

  // Same number of agent runs, then every prompt byte for byte and every argv.
  const prompts = numbered(expectedDir, 'prompt')
  check(() => expect(numbered(got.outDir, 'prompt')).toEqual(prompts))
  for (const name of prompts.filter(p => fs.existsSync(path.join(got.outDir, p)))) {
    const actual = visible(fs.readFileSync(path.join(got.outDir, name)))
    check(() => expect({ [name]: actual }).toEqual({ [name]: visible(read(name)) }))
  }
  const argvs = numbered(expectedDir, 'argv')
  check(() => expect(numbered(got.outDir, 'argv')).toEqual(argvs))
  const parse = (bytes: Buffer): unknown => JSON.parse(bytes.toString('utf8'))
  for (const name of argvs.filter(a => fs.existsSync(path.join(got.outDir, a)))) {
    const actual = parse(fs.readFileSync(path.join(got.outDir, name)))
    check(() => expect({ [name]: actual }).toEqual({ [name]: parse(read(name)) }))
  }

  if (fs.existsSync(path.join(expectedDir, 'error.txt'))) {
    // Ours: the message on one stderr line (a prefix such as `file:line:col: ` is fine). The reference
    // prints on stdout (exit 1, "Run crashed") or stderr (click usage errors, tracebacks) inside Rich framing.
    const lines = expectOurs ? plainLines(got.stderr) : plainLines(`${got.stdout}\n${got.stderr}`)
    const where = expectOurs ? 'stderr' : 'stdout or stderr'
    const pattern = expectOurs ? spec.ours?.errorPattern : undefined
    if (pattern !== undefined) {
      const re = new RegExp(pattern)
      const hit = lines.some(l => re.test(l))
      check(() =>
        expect({ [`a ${where} line matching`]: pattern, hit }).toEqual({
          [`a ${where} line matching`]: pattern,
          hit: true
        })
      )
    } else {
      for (const message of read('error.txt')
        .toString('utf8')
        .split('\n')
        .filter(l => l !== '')) {
        const hit = lines.some(l => l.includes(message))
        check(() =>
          expect({ [`a ${where} line containing`]: message, hit }).toEqual({
            [`a ${where} line containing`]: message,
            hit: true
          })
        )
      }
    }
  }

  const recordedExit = Number(read('exit-code').toString('utf8').trim())
  const wantExit = expectOurs && spec.ours?.exitCode !== undefined ? spec.ours.exitCode : recordedExit
  check(() => expect({ exitCode: got.exitCode }).toEqual({ exitCode: wantExit }))
  return found
}

describe(`conformance with ralphify (${customCli ?? 'node dist/cli/index.js'}, expecting ${expectOurs ? 'ours' : 'the reference'})`, () => {
  test('every case is recorded', () => {
    const unrecorded = caseNames.filter(n => !fs.existsSync(path.join(casesDir, n, 'expected', 'exit-code')))
    expect(unrecorded).toEqual([])
  })

  test.concurrent.each(caseNames)(
    '%s',
    async name => {
      if (!customCli && !fs.existsSync(ourCli))
        throw new Error(`${ourCli} does not exist: run \`npm run build\` first`)
      const caseDir = path.join(casesDir, name)
      const spec = JSON.parse(fs.readFileSync(path.join(caseDir, 'case.json'), 'utf8')) as CaseSpec
      const root = fs.mkdtempSync(path.join(os.tmpdir(), `ralph-conformance-${name}-`))
      let got: Outcome | undefined
      try {
        got = await runCase(caseDir, spec, root)
        const found = differences(caseDir, spec, got)
        if (found.length > 0) throw new Error(found.join('\n\n'))
      } catch (error) {
        const tail = (s: string) =>
          s
            .split('\n')
            .slice(-25)
            .map(l => (l.length > 300 ? `${l.slice(0, 300)}…` : l))
            .join('\n')
        const detail = got
          ? `\n--- argv: run ${JSON.stringify(spec.argv)} in ${spec.cwd}\n--- stdout (tail):\n${tail(got.stdout)}\n--- stderr (tail):\n${tail(got.stderr)}` +
            (keepTemp ? `\n--- kept: ${root}` : '')
          : ''
        if (error instanceof Error) error.message = `${spec.description}\n${error.message}${detail}`
        throw error
      } finally {
        if (!keepTemp) fs.rmSync(root, { recursive: true, force: true })
      }
    },
    60_000
  )
})
