// `npm run release -- 1.2.3 [--push]`: tags v1.2.3 (annotated) on a clean main whose dist/ is fresh, and moves
// the major tag v1 to it, as first-party actions do, so `uses: org/ralph-action@v1` gets the release.
// Without --push it prints the push commands; with --push it runs them.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'

const args = process.argv.slice(2)
const push = args.includes('--push')
const version = args.find(arg => !arg.startsWith('--'))?.replace(/^v/, '')

const fail = message => {
  console.error(`release: ${message}`)
  process.exit(1)
}
const git = (...gitArgs) => execFileSync('git', gitArgs, { encoding: 'utf8' }).trim()

if (!version || !/^\d+\.\d+\.\d+$/.test(version))
  fail('give the version as X.Y.Z, e.g. npm run release -- 1.2.3 (add --push to push the tags).')
const tag = `v${version}`
const major = `v${version.split('.')[0]}`

const branch = git('rev-parse', '--abbrev-ref', 'HEAD')
if (branch !== 'main') fail(`releases are tagged on main; this is ${branch}.`)
const dirty = git('status', '--porcelain')
if (dirty) fail(`the work tree is not clean: commit or stash first.\n${dirty}`)
if (spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/tags/${tag}`]).status === 0)
  fail(`${tag} exists already.`)

// The same check CI runs: a build of this commit's src/ must reproduce the committed dist/.
const checkDist = path.resolve('scripts', 'check-dist.mjs')
if (!existsSync(checkDist)) fail('scripts/check-dist.mjs is missing: run this from the repository root.')
if (spawnSync('node', [checkDist], { stdio: 'inherit' }).status !== 0)
  fail('dist/ is stale: run `npm run build`, commit dist/, then release.')
// The build must not have left anything behind either.
if (git('status', '--porcelain')) fail('the build changed the work tree: commit dist/ first.')

git('tag', '-a', tag, '-m', `ralph-action ${tag}`)
git('tag', '-f', '-a', major, '-m', `ralph-action ${tag}`, `${tag}^{commit}`)
const commit = git('rev-parse', '--short', `${tag}^{commit}`)
console.log(`Tagged ${tag} and moved ${major} to ${commit}.`)

const pushCommands = [
  ['git', 'push', 'origin', tag],
  ['git', 'push', '-f', 'origin', major]
]
if (push) {
  for (const command of pushCommands) {
    console.log(`$ ${command.join(' ')}`)
    if (spawnSync(command[0], command.slice(1), { stdio: 'inherit' }).status !== 0)
      fail(`\`${command.join(' ')}\` failed; the tags are in place locally, push them by hand.`)
  }
} else {
  console.log('Push them with:')
  console.log(`  ${pushCommands.map(command => command.join(' ')).join(' && ')}`)
}
