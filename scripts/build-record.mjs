// What a build was made from: the content hash of every file under src/ and of each bundle it wrote, kept
// in node_modules/.cache (never committed). `npm run bench` reads it to tell whether dist/ is the build of
// src/ as it is now — by content: a fresh clone gives every file the same mtime, so times cannot tell.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const RECORD = path.join('node_modules', '.cache', 'ralph-action', 'build.json')

const sha = file => createHash('sha256').update(readFileSync(file)).digest('hex')

/** Every file under `dir` (relative to `root`, `/`-separated) with its content hash. */
export function sourceHashes(root, dir = 'src') {
  const hashes = {}
  const walk = rel => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`
      if (entry.isDirectory()) walk(child)
      else if (entry.isFile()) hashes[child] = sha(path.join(root, child))
    }
  }
  walk(dir)
  return hashes
}

/** Records that the bundles in `bundles` (paths relative to `root`) were built from `sources`. */
export function writeBuildRecord(root, bundles, sources) {
  const record = {
    sources,
    bundles: Object.fromEntries(bundles.map(bundle => [bundle, sha(path.join(root, bundle))]))
  }
  mkdirSync(path.dirname(path.join(root, RECORD)), { recursive: true })
  writeFileSync(path.join(root, RECORD), `${JSON.stringify(record, null, 2)}\n`)
}

/**
 * Whether `bundle` was built from src/ as it is now: { built: true|false, changed: files } when this
 * checkout's build record describes the bundle; { built: undefined } when no record does (a fresh clone,
 * or a dist/ that came from git or elsewhere).
 */
export function builtFromSources(root, bundle) {
  const file = path.join(root, RECORD)
  if (!existsSync(file) || !existsSync(path.join(root, bundle))) return { built: undefined, changed: [] }
  const record = JSON.parse(readFileSync(file, 'utf8'))
  if (record.bundles?.[bundle] !== sha(path.join(root, bundle))) return { built: undefined, changed: [] }
  const now = sourceHashes(root)
  const names = new Set([...Object.keys(now), ...Object.keys(record.sources)])
  const changed = [...names].filter(name => now[name] !== record.sources[name]).sort()
  return { built: changed.length === 0, changed }
}
