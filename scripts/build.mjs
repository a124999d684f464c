// Builds the committed bundles with @vercel/ncc: the action (dist/index.js) and the CLI (dist/cli/index.js).
import { execFileSync } from 'node:child_process'
import { rmSync, readdirSync } from 'node:fs'
import { sourceHashes, writeBuildRecord } from './build-record.mjs'

const bundles = [
  ['src/action/index.ts', 'dist'],
  ['src/cli/index.ts', 'dist/cli']
]
// Read before building: an edit made while ncc runs is not in the bundles.
const sources = sourceHashes(process.cwd())
rmSync('dist', { recursive: true, force: true })
for (const [entry, out] of bundles) {
  execFileSync('npx', ['ncc', 'build', entry, '-o', out, '--license', 'licenses.txt', '-q'], {
    stdio: 'inherit'
  })
}
writeBuildRecord(
  process.cwd(),
  bundles.map(([, out]) => `${out}/index.js`),
  sources
)
console.log(`built ${bundles.length} bundles: ${readdirSync('dist').join(' ')}`)
