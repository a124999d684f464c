// What the clean verification (#27) costs: the gates once more on a clean checkout of the commit to deliver
// (a fresh worktree, `setup` first). On the bundled example (examples/fix-failing-test) and on a project whose
// setup is `npm ci` (offline: one local file: dependency), each run with `--commit` (so there is a commit to
// check out), with `verify: clean` (the default) and `verify: tree`. Figures from each run's status.json.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
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
  tempDir
} from './lib.mjs'

export const title = 'The clean verification: the gates again on a clean checkout of the commit'

const REPEATS = Number(process.env.BENCH_VERIFY_REPEATS ?? 3)
const EXAMPLE = path.join(ROOT, 'examples', 'fix-failing-test')
const seconds = value => `${(value / 1000).toFixed(2)} s`

/** `verify: tree` added to a RALPH.md's frontmatter. */
function verifyTree(ralphFile) {
  const text = readFileSync(ralphFile, 'utf8')
  writeFileSync(ralphFile, text.replace(/^---\n/, '---\nverify: tree\n'))
}

async function exampleProject(mode) {
  const dir = tempDir('verify-example')
  cpSync(EXAMPLE, dir, { recursive: true })
  if (mode === 'tree') verifyTree(path.join(dir, 'fix-tests', 'RALPH.md'))
  return { dir: await initRepo(dir), ralph: 'fix-tests' }
}

/** A package whose gates need `npm ci` first: calc.js takes `add` from a local file: dependency. */
async function npmProject(mode) {
  const dir = tempDir('verify-npm')
  const helper = path.join(dir, 'vendor', 'helper')
  mkdirSync(helper, { recursive: true })
  writeFileSync(
    path.join(helper, 'package.json'),
    '{ "name": "helper", "version": "1.0.0", "type": "module", "main": "index.js" }\n'
  )
  writeFileSync(path.join(helper, 'index.js'), 'export const sum = (a, b) => a + b\n')
  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name: 'calc', private: true, type: 'module', dependencies: { helper: 'file:vendor/helper' } }, null, 2)}\n`
  )
  writeFileSync(
    path.join(dir, 'calc.js'),
    "import { sum } from 'helper'\nexport const add = (a, b) => sum(a, -b)\n"
  )
  writeFileSync(
    path.join(dir, 'calc.test.js'),
    "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add } from './calc.js'\n\ntest('add returns the sum', () => assert.equal(add(1, 2), 3))\n"
  )
  writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\n')
  const agent = path.join(dir, 'ralph', 'agent.mjs')
  mkdirSync(path.dirname(agent), { recursive: true })
  writeFileSync(
    agent,
    "import fs from 'node:fs'\nfs.readFileSync(0)\nfs.writeFileSync('calc.js', \"import { sum } from 'helper'\\nexport const add = (a, b) => sum(a, b)\\n\")\nconsole.log('<promise>COMPLETE</promise>')\n"
  )
  writeFileSync(
    path.join(dir, 'ralph', 'RALPH.md'),
    [
      '---',
      'agent: node ralph/agent.mjs',
      'setup: npm ci --offline --no-audit --no-fund',
      'checks:',
      '  - name: tests',
      '    run: node --test',
      ...(mode === 'tree' ? ['verify: tree'] : []),
      '---',
      '',
      'Fix calc.js.',
      ''
    ].join('\n')
  )
  // The lock file, made once (a file: dependency needs no registry); node_modules is setup's to make.
  const lock = await runTimed('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: dir })
  if (lock.code !== 0) throw new Error(`npm install failed in ${dir}: ${lock.stderr}`)
  rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true })
  return { dir: await initRepo(dir), ralph: 'ralph' }
}

const PROJECTS = [
  { key: 'example', label: 'the bundled example (examples/fix-failing-test)', make: exampleProject },
  { key: 'npm', label: 'a project with setup: npm ci (one file: dependency)', make: npmProject }
]

async function runOnce(project, mode) {
  const { dir, ralph } = await project.make(mode)
  const recordDir = path.join(tempDir('verify-record'), 'record')
  const result = expectExit(
    await runCli(['run', ralph, '-n', '5', '--commit', '--record-dir', recordDir], { cwd: dir }),
    [0],
    `the CLI (${project.label}, verify: ${mode})`
  )
  const status = readStatus(recordDir)
  const v = status.verification
  const last = status.iterations.at(-1)
  const setupMs = v ? v.setup.reduce((sum, run) => sum + run.durationMs, 0) : 0
  return {
    stopReason: status.stopReason,
    wallMs: result.wallMs,
    verifyMs: v?.durationMs ?? 0,
    verdict: v?.verdict ?? 'none',
    setupMs,
    gatesMs: v?.checksMs ?? 0,
    // Making and removing the checkout, and handing it over: what is neither setup nor gates.
    checkoutMs: v ? v.durationMs - setupMs - v.checksMs : 0,
    treeGatesMs: last?.checksMs ?? 0
  }
}

export async function run() {
  const runs = {}
  for (let i = 1; i <= REPEATS; i++)
    for (const project of PROJECTS)
      for (const mode of ['clean', 'tree']) {
        progress(`verify: ${project.label}, verify: ${mode}, run ${i} of ${REPEATS}`)
        ;(runs[`${project.key}-${mode}`] ??= []).push(await runOnce(project, mode))
      }
  const med = (key, field) => median(runs[key].map(r => r[field]))
  const rows = PROJECTS.flatMap(project => {
    const clean = `${project.key}-clean`
    const tree = `${project.key}-tree`
    const verdicts = [...new Set(runs[clean].map(r => `${r.stopReason}/${r.verdict}`))].join(', ')
    return [
      {
        figure: `clean verification, ${project.label}`,
        display: seconds(med(clean, 'verifyMs')),
        goal: '—',
        met: null,
        detail:
          `median of ${REPEATS}: setup ${ms(med(clean, 'setupMs'))}, gates ${ms(med(clean, 'gatesMs'))}, checkout made and ` +
          `removed ${ms(med(clean, 'checkoutMs'))}; the same gates in the loop's tree took ${ms(med(clean, 'treeGatesMs'))}. ` +
          `Outcome: ${verdicts}.`
      },
      {
        figure: '  whole run, verify: clean / tree',
        display: `${seconds(med(clean, 'wallMs'))} / ${seconds(med(tree, 'wallMs'))}`,
        goal: '—',
        met: null,
        detail: 'the CLI process from start to exit (run --commit), a scripted agent.'
      }
    ]
  })
  return {
    rows,
    notes: [
      'The clean checkout is `git worktree add --detach` of the commit: files git tracks only, so setup (npm ci) runs again there.'
    ],
    data: Object.fromEntries(Object.keys(runs).map(key => [key, runs[key]]))
  }
}
