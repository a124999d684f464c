// Builds the committed bundles with @vercel/ncc: the action (dist/index.js) and the CLI (dist/cli/index.js).
import { execFileSync } from 'node:child_process'
import { rmSync, readdirSync } from 'node:fs'

const bundles = [
  ['src/action/index.ts', 'dist'],
  ['src/cli/index.ts', 'dist/cli']
]
rmSync('dist', { recursive: true, force: true })
for (const [entry, out] of bundles) {
  execFileSync('npx', ['ncc', 'build', entry, '-o', out, '--license', 'licenses.txt', '-q'], {
    stdio: 'inherit'
  })
}
console.log(`built ${bundles.length} bundles: ${readdirSync('dist').join(' ')}`)
