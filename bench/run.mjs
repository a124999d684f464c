// `npm run bench [-- NAME…]`: runs the measurements (all but the experiments, or those named), prints a table, the
// each, and one line of JSON at the end. Figures only: nothing here fails on timing; the exit code is
// non-zero only when a measurement could not run at all.
import { spawnSync } from 'node:child_process'
import { existsSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { builtFromSources } from '../scripts/build-record.mjs'
import { BUILT_CLI, ROOT, removeTempDirs, snapshotCli } from './lib.mjs'

/** One file a measurement; each exports `title` and `run()` → { rows, notes, data }. */
const MEASUREMENTS = {
  iterations: './iterations.mjs',
  memory: './memory.mjs',
  'slow-reader': './slow-reader.mjs',
  overhead: './overhead.mjs',
  enforcement: './enforcement.mjs',
  'cost-latency': './cost-latency.mjs',
  startup: './startup.mjs',
  isolation: './isolation.mjs',
  install: './install.mjs',
  proxy: './proxy.mjs',
  hunt: './hunt.mjs',
  verify: './verify.mjs',
  verdict: './verdict.mjs',
  protected: './protected.mjs',
  'tree-scan': './tree-scan.mjs',
  'two-jobs': './two-jobs.mjs',
  chain: './chain.mjs',
  ledger: './ledger.mjs',
  // Experiments: run only when named.
  spawner: './spawner.mjs'
}
const EXPERIMENTS = ['spawner']

const names = process.argv.slice(2)
const unknown = names.filter(name => !(name in MEASUREMENTS))
if (unknown.length > 0) {
  process.stderr.write(
    `Unknown measurement: ${unknown.join(', ')}. Choose from: ${Object.keys(MEASUREMENTS).join(', ')}.\n`
  )
  process.exit(2)
}
const selected =
  names.length > 0 ? names : Object.keys(MEASUREMENTS).filter(name => !EXPERIMENTS.includes(name))

if (!existsSync(BUILT_CLI)) {
  process.stderr.write(`${path.relative(ROOT, BUILT_CLI)} is missing: run npm run build first.\n`)
  process.exit(1)
}

/**
 * Why the CLI's figures may not be those of src/ as it is now, or undefined. By content: the build record
 * (scripts/build-record.mjs) names the sources each bundle was built from; without one (a fresh clone, a
 * dist/ from git), git says whether src/ and dist/ are as committed, and CI checks that those match.
 */
function staleBuild() {
  const bundle = path.relative(ROOT, BUILT_CLI).split(path.sep).join('/')
  const record = builtFromSources(ROOT, bundle)
  if (record.built === true) return undefined
  if (record.built === false)
    return `src/ changed after ${bundle} was built (${record.changed.slice(0, 3).join(', ')}${record.changed.length > 3 ? '…' : ''}): run npm run build.`
  const git = spawnSync('git', ['status', '--porcelain', '--', 'src', 'dist'], {
    cwd: ROOT,
    encoding: 'utf8'
  })
  if (git.status !== 0)
    return `${bundle} has no build record and this is not a git checkout: run npm run build to be sure.`
  const changed = git.stdout
    .split('\n')
    .filter(Boolean)
    .map(line => line.slice(3))
  if (changed.length === 0) return undefined
  return `${bundle} was not built here and src/ or dist/ differ from the commit (${changed.slice(0, 3).join(', ')}${changed.length > 3 ? '…' : ''}): run npm run build.`
}

const load = () => os.loadavg().map(n => n.toFixed(2))
const startLoad = load()
const stale = BUILT_CLI.startsWith(path.join(ROOT, 'dist')) ? staleBuild() : undefined
const builtAt = statSync(BUILT_CLI).mtime
const snapshot = snapshotCli()
// Interrupted: leave no temp folders behind (the memory scenarios write gigabytes of logs).
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    removeTempDirs()
    rmSync(snapshot, { recursive: true, force: true })
    process.exit(130)
  })
const started = new Date()

const sections = []
let broken = false
for (const name of selected) {
  process.stderr.write(`${name}…\n`)
  const module = await import(MEASUREMENTS[name])
  try {
    sections.push({ name, title: module.title, ...(await module.run()) })
  } catch (error) {
    broken = true
    sections.push({
      name,
      title: module.title,
      rows: [{ figure: 'could not run', display: 'error', goal: '', met: null, detail: error.message }],
      notes: [],
      data: { error: error.message }
    })
  } finally {
    removeTempDirs()
  }
}
const endLoad = load()
rmSync(snapshot, { recursive: true, force: true })

// The table.
const verdict = met => (met === true ? 'met' : met === false ? 'MISSED' : '')
const header = ['Figure', 'Measured', 'Goal', '']
const lines = sections.flatMap(s => s.rows.map(r => ['  ' + r.figure, r.display, r.goal, verdict(r.met)]))
const widths = header.map((h, i) => Math.max(h.length, ...lines.map(l => l[i].length)))
const format = cells =>
  cells
    .map((c, i) => c.padEnd(widths[i]))
    .join('  ')
    .trimEnd()
const rule = widths.map(w => '─'.repeat(w)).join('  ')

const out = []
out.push(
  '',
  `ralph-action benchmark · ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC · node ` +
    `${process.version} · ${os.cpus().length} CPUs · load average ${startLoad[0]} → ${endLoad[0]}`,
  `CLI: ${path.relative(ROOT, BUILT_CLI)} (built ${builtAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, ` +
    'copied to a temp folder for the run)'
)
if (stale) out.push(`WARNING: ${stale}`)
out.push(
  'Timings are noisy when other work shares the CPUs (check the load average); medians are reported.',
  '',
  format(header),
  rule
)
for (const section of sections) {
  out.push(section.title)
  for (const row of section.rows)
    out.push(format(['  ' + row.figure, row.display, row.goal, verdict(row.met)]))
}
out.push(rule, '')
for (const section of sections) {
  out.push(`${section.title}`)
  for (const row of section.rows) if (row.detail) out.push(`  - ${row.figure.trim()}: ${row.detail}`)
  for (const note of section.notes) out.push(`  ${note}`)
  out.push('')
}
process.stdout.write(out.join('\n') + '\n')

// The machine-readable line: always the last line of stdout.
const json = {
  version: 1,
  date: started.toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  loadAverage: { start: startLoad.map(Number), end: endLoad.map(Number) },
  cli: path.relative(ROOT, BUILT_CLI),
  cliBuiltAt: builtAt.toISOString(),
  staleBuild: stale !== undefined,
  results: Object.fromEntries(
    sections.map(s => [
      s.name,
      {
        rows: s.rows.map(({ figure, display, goal, met }) => ({ figure: figure.trim(), display, goal, met })),
        ...s.data
      }
    ])
  )
}
process.stdout.write(JSON.stringify(json) + '\n')
process.exitCode = broken ? 1 : 0
