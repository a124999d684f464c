// What protected paths (#27) add per iteration on a repository of 10,000 files (2,500 tests, runner configs in
// every package, the rest source in nested folders). Two ways: the built CLI with `protected: auto` against
// `protected: none` (a scripted agent that changes one source file an iteration; iteration durationMs from
// status.json), and the check itself (findChanges of src/loop/protect/index.ts, bundled by ncc for the run) timed
// pass after pass, each after one source file changed. Figures only.
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  ROOT,
  expectExit,
  initRepo,
  median,
  ms,
  progress,
  readStatus,
  runCli,
  runTimed,
  tempDir,
  timed
} from './lib.mjs'

export const title = 'Protected paths: the check before each gate run, on a repository of 10,000 files'

const FILES = 10_000
const TESTS = 2_500
const PACKAGES = 20
const ITERATIONS = Number(process.env.BENCH_PROTECTED_ITERATIONS ?? 8)
const REPEATS = Number(process.env.BENCH_PROTECTED_REPEATS ?? 2)
const PASSES = Number(process.env.BENCH_PROTECTED_PASSES ?? 10)
const EDITED = 'packages/pkg00/src/m0/d0/file0.js'

/** Some text of a realistic size (150 B to 6 KB), different for each file. */
const body = (i, what) =>
  `// ${what} ${i}\n${`export const v${i} = ${i} // padding\n`.repeat(4 + ((i * 37) % 160))}`

/** The repository: a ralph (`protected: <mode>`), top-level configs, and PACKAGES packages of tests and source. */
async function repository(mode) {
  const dir = tempDir('protected')
  const put = (rel, text) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    writeFileSync(path.join(dir, rel), text)
  }
  put('package.json', '{ "name": "mono", "private": true, "scripts": { "test": "true" } }\n')
  put('tsconfig.json', '{ "compilerOptions": { "strict": true } }\n')
  put('jest.config.js', 'export default {}\n')
  put('.github/workflows/ci.yml', 'on: push\njobs: {}\n')
  put(
    'ralph/agent.mjs',
    "import fs from 'node:fs'\nfs.readFileSync(0)\n" +
      `fs.writeFileSync(${JSON.stringify(EDITED)}, \`export const edited = \${Date.now()}\\n\`)\n`
  )
  put(
    'ralph/RALPH.md',
    `---\nagent: node ralph/agent.mjs\nprotected: ${mode}\nchecks:\n  - name: tests\n    run: npm test\n---\n\nWork.\n`
  )
  let count = 6
  for (let p = 0; p < PACKAGES; p++) {
    const pkg = `packages/pkg${String(p).padStart(2, '0')}`
    put(`${pkg}/package.json`, `{ "name": "pkg${p}" }\n`)
    put(`${pkg}/tsconfig.json`, '{ "extends": "../../tsconfig.json" }\n')
    count += 2
  }
  for (let i = 0; i < TESTS; i++) {
    const pkg = `packages/pkg${String(i % PACKAGES).padStart(2, '0')}`
    const k = Math.floor(i / PACKAGES)
    put(
      i % 2 ? `${pkg}/src/m${k % 8}/d${k % 5}/t${i}.test.js` : `${pkg}/__tests__/g${k % 6}/t${i}.test.js`,
      body(i, 'test')
    )
  }
  count += TESTS
  for (let i = 0; count < FILES; i++, count++) {
    const pkg = `packages/pkg${String(i % PACKAGES).padStart(2, '0')}`
    const k = Math.floor(i / PACKAGES)
    put(`${pkg}/src/m${k % 8}/d${Math.floor(k / 8) % 5}/file${i}.js`, body(i, 'source'))
  }
  return initRepo(dir)
}

/** One CLI run of ITERATIONS iterations: each iteration's durationMs, and the whole run's wall time. */
async function cliRun(mode) {
  const dir = await repository(mode)
  const recordDir = path.join(tempDir('protected-record'), 'record')
  const result = expectExit(
    await runCli(['run', 'ralph', '-n', String(ITERATIONS), '--record-dir', recordDir], { cwd: dir }),
    [0, 3],
    `the CLI (protected: ${mode})`
  )
  const status = readStatus(recordDir)
  if (status.iterations.length !== ITERATIONS)
    throw new Error(`protected: ${mode} ran ${status.iterations.length} iterations, not ${ITERATIONS}`)
  return { wallMs: result.wallMs, iterationMs: status.iterations.map(it => it.durationMs) }
}

/** src/loop/protect/index.ts bundled by ncc into a temp folder, imported: the check alone, as the sources are now. */
async function protectedModule() {
  const out = tempDir('protected-module')
  const entry = path.join('src', 'loop', 'protect', 'index.ts')
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'ncc'), ['build', entry, '-o', out, '-q'], {
    cwd: ROOT
  })
  writeFileSync(path.join(out, 'package.json'), '{ "type": "module" }\n')
  return import(pathToFileURL(path.join(out, 'index.js')).href)
}

/** findChanges pass after pass, one source file changed before each; the event loop's longest stall too. */
async function directPasses(module) {
  const dir = await repository('auto')
  const head = await runTimed('git', ['rev-parse', 'HEAD'], { cwd: dir })
  const protection = await module.resolveProtection(dir, head.stdout.trim(), ['auto'], {
    ralphDir: 'ralph',
    ralphFile: 'ralph/RALPH.md',
    checks: [{ run: 'npm test' }],
    projectDir: ''
  })
  const passes = []
  let stall = 0
  for (let i = 0; i < PASSES; i++) {
    writeFileSync(path.join(dir, EDITED), `export const edited = ${i}\n`)
    const pass = await timed(() => module.findChanges(protection))
    passes.push(pass.took)
    stall = Math.max(stall, pass.stall)
    const changes = pass.value
    if (changes.length > 0)
      throw new Error(`findChanges found ${changes.length} changes in an untouched tree`)
  }
  return { protectedPaths: protection.paths.size, passes, stallMs: stall }
}

export async function run() {
  progress('protected: bundling src/loop/protect/index.ts')
  const module = await protectedModule()
  progress(`protected: findChanges, ${PASSES} passes`)
  const direct = await directPasses(module)
  const cli = { auto: [], none: [] }
  for (let i = 1; i <= REPEATS; i++)
    for (const mode of ['auto', 'none']) {
      progress(`protected: the CLI, protected: ${mode}, ${ITERATIONS} iterations, run ${i} of ${REPEATS}`)
      cli[mode].push(await cliRun(mode))
    }
  // The first iteration of each run apart: the first check finds no earlier one to build on.
  const later = mode => median(cli[mode].flatMap(r => r.iterationMs.slice(1)))
  const first = mode => median(cli[mode].map(r => r.iterationMs[0]))
  const rows = [
    {
      figure: 'findChanges, a pass after one source file changed',
      display: ms(median(direct.passes.slice(1))),
      goal: '—',
      met: null,
      detail:
        `median of passes 2–${PASSES} over ${direct.protectedPaths} protected paths of ${FILES} files; ` +
        `the first pass took ${ms(direct.passes[0])}; the event loop's longest stall over all passes ${ms(direct.stallMs)}.`
    },
    {
      figure: 'iteration, protected: auto / none (CLI)',
      display: `${ms(later('auto'))} / ${ms(later('none'))}`,
      goal: '—',
      met: null,
      detail:
        `median durationMs of iterations 2–${ITERATIONS} over ${REPEATS} runs each (the scripted agent, \`npm test\` ` +
        `as the gate): protection adds ${ms(later('auto') - later('none'))} an iteration.`
    },
    {
      figure: '  first iteration, protected: auto / none (CLI)',
      display: `${ms(first('auto'))} / ${ms(first('none'))}`,
      goal: '—',
      met: null,
      detail: 'the first iteration of each run, median.'
    }
  ]
  return {
    rows,
    notes: [
      `The repository: ${FILES} files, ${TESTS} of them tests (half in __tests__/, half beside the source), a`,
      `package.json and tsconfig.json in each of ${PACKAGES} packages, the rest source in nested folders.`
    ],
    data: { direct, cli }
  }
}
