// Fails when the committed dist/ differs from a fresh build of src/ (as actions/typescript-action's CI does).
import { execFileSync } from 'node:child_process'

execFileSync('node', ['scripts/build.mjs'], { stdio: 'inherit' })
const changed = execFileSync('git', ['status', '--porcelain', '--', 'dist'], { encoding: 'utf8' })
if (changed.trim() !== '') {
  console.error('dist/ is stale: run `npm run build` and commit dist/.\n' + changed)
  console.error(execFileSync('git', ['diff', '--stat', '--', 'dist'], { encoding: 'utf8' }))
  process.exit(1)
}
console.log('dist/ matches a fresh build.')
