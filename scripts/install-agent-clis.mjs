#!/usr/bin/env node
// Installs the pinned real agent CLIs (claude, codex, gemini, opencode, qwen) into .tool-cache/agents/ for the
// live test tier.
//
//   node scripts/install-agent-clis.mjs           install if missing or not the pinned version, then print paths
//   node scripts/install-agent-clis.mjs --check   only report; exit 1 when something is missing
//   node scripts/install-agent-clis.mjs --force   reinstall even when the pinned versions are present
//
// The versions live in scripts/install-agent-clis.json (the one place to bump them; the action's install-agent
// input installs the same ones). They are not dependencies of ralph-action: the cache folder has its own
// package.json, and .tool-cache/ is gitignored. One `npm install` fetches all five (about 1.2 GB, 1-2 minutes).
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = dirname(dirname(fileURLToPath(import.meta.url)))
const pinsFile = join(repoRoot, 'scripts', 'install-agent-clis.json')
const cacheDir = join(repoRoot, '.tool-cache', 'agents')
const { agents } = JSON.parse(readFileSync(pinsFile, 'utf8'))
const args = new Set(process.argv.slice(2))

function packageDir(pkg) {
  return join(cacheDir, 'node_modules', ...pkg.split('/'))
}

function binPath(bin) {
  return join(cacheDir, 'node_modules', '.bin', bin)
}

function installedVersion(pkg) {
  try {
    return JSON.parse(readFileSync(join(packageDir(pkg), 'package.json'), 'utf8')).version
  } catch {
    return undefined
  }
}

// A package whose native binary is linked by its postinstall ships a placeholder that prints an error instead.
function reportedVersion(bin) {
  const run = spawnSync(binPath(bin), ['--version'], { encoding: 'utf8', timeout: 60000 })
  return run.status === 0 ? run.stdout.trim() : undefined
}

/** What is wrong with the cache, one sentence per problem; empty when every pinned CLI is ready. */
function problems() {
  const found = []
  for (const [bin, { package: pkg, version: want }] of Object.entries(agents)) {
    const have = installedVersion(pkg)
    if (have !== want) {
      found.push(`${pkg} is ${have ? `at ${have}` : 'not installed'}; want ${want}`)
      continue
    }
    const version = reportedVersion(bin)
    if (!version?.includes(want))
      found.push(
        `${bin} --version printed ${JSON.stringify(version)}; want ${want} (did its postinstall run?)`
      )
  }
  return found
}

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { stdio: 'inherit', ...options })
  if (result.status !== 0) {
    console.error(
      `install-agent-clis: \`${command} ${commandArgs.join(' ')}\` failed (exit ${result.status})`
    )
    process.exit(1)
  }
}

function diskSize() {
  const du = spawnSync('du', ['-sh', cacheDir], { encoding: 'utf8' })
  return du.status === 0 ? du.stdout.split('\t')[0] : 'unknown'
}

function printPaths() {
  for (const [bin, { version }] of Object.entries(agents)) console.log(`${bin} ${version}: ${binPath(bin)}`)
}

/** What a package ships without its x bit (qwen's vendored rg), made runnable for every user, as the action does. */
function makeRunnable() {
  for (const { package: pkg, executables = [] } of Object.values(agents))
    for (const file of executables) {
      const target = join(packageDir(pkg), file)
      if (existsSync(target)) chmodSync(target, 0o755)
    }
}

const before = problems()
if (args.has('--check')) {
  if (before.length === 0) {
    printPaths()
  } else {
    for (const problem of before) console.error(`install-agent-clis: ${problem}`)
    console.error('install-agent-clis: run `node scripts/install-agent-clis.mjs` to install them')
  }
  process.exit(before.length === 0 ? 0 : 1)
}
if (before.length === 0 && !args.has('--force')) {
  makeRunnable()
  console.log(`Agent CLIs already installed in ${cacheDir} (${diskSize()}):`)
  printPaths()
  process.exit(0)
}

const started = Date.now()
for (const problem of before) console.log(`install-agent-clis: ${problem}`)
mkdirSync(cacheDir, { recursive: true })
const manifest = {
  name: 'ralph-action-agent-clis',
  private: true,
  description:
    'Cache of the real agent CLIs for the live test tier. Generated from scripts/install-agent-clis.json.',
  dependencies: Object.fromEntries(Object.values(agents).map(agent => [agent.package, agent.version]))
}
writeFileSync(join(cacheDir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n')

// Scripts are off so the result never depends on the user's npm config (ignore-scripts, allowScripts);
// the postinstalls we need (claude and opencode linking their native binaries) are run explicitly below.
run('npm', [
  'install',
  '--prefix',
  cacheDir,
  '--ignore-scripts',
  '--include=optional',
  '--no-package-lock',
  '--no-audit',
  '--no-fund',
  '--engine-strict=false',
  '--loglevel=error'
])
for (const [bin, agent] of Object.entries(agents))
  if (agent.postinstall && reportedVersion(bin) === undefined)
    run('node', [agent.postinstall], { cwd: packageDir(agent.package) })
makeRunnable()

const after = problems()
if (after.length > 0) {
  for (const problem of after) console.error(`install-agent-clis: ${problem}`)
  process.exit(1)
}
const seconds = ((Date.now() - started) / 1000).toFixed(1)
console.log(`Installed the agent CLIs in ${seconds}s into ${cacheDir} (${diskSize()}):`)
printPaths()
if (
  !existsSync(join(repoRoot, '.gitignore')) ||
  !readFileSync(join(repoRoot, '.gitignore'), 'utf8').includes('.tool-cache')
)
  console.warn('install-agent-clis: warning: .tool-cache/ is not in .gitignore')
