// scripts/release.mjs against a real clone with a bare remote: the version tag and the moved major tag.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const release = path.join(repo, 'scripts', 'release.mjs')

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1'
}

let dir: string
let remote: string
let clone: string
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim()
const run = (...args: string[]) =>
  spawnSync('node', [release, ...args], { cwd: clone, env: GIT_ENV, encoding: 'utf8' })

/** A stand-in for check-dist: fails when the file `stale` exists (the real one needs a full build). */
const CHECK_DIST = `import { existsSync } from 'node:fs'\nif (existsSync('stale')) { console.error('dist/ is stale'); process.exit(1) }\n`

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ralph-release-'))
  remote = path.join(dir, 'remote.git')
  clone = path.join(dir, 'clone')
  git(dir, 'init', '-q', '--bare', '-b', 'main', remote)
  git(dir, 'clone', '-q', remote, clone)
  git(clone, 'checkout', '-q', '-b', 'main')
  mkdirSync(path.join(clone, 'scripts'))
  writeFileSync(path.join(clone, 'scripts', 'check-dist.mjs'), CHECK_DIST)
  writeFileSync(path.join(clone, '.gitignore'), 'stale\n')
  git(clone, 'add', '.')
  git(clone, 'commit', '-qm', 'first')
  git(clone, 'push', '-q', 'origin', 'main')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const tagCommit = (cwd: string, tag: string) => git(cwd, 'rev-parse', `${tag}^{commit}`)

describe('npm run release', () => {
  test('tags vX.Y.Z (annotated), moves v1 to it and prints the push commands', () => {
    const result = run('1.2.3')
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    const head = git(clone, 'rev-parse', 'HEAD')
    expect(git(clone, 'cat-file', '-t', 'v1.2.3')).toBe('tag')
    expect(tagCommit(clone, 'v1.2.3')).toBe(head)
    expect(tagCommit(clone, 'v1')).toBe(head)
    expect(result.stdout).toContain('git push origin v1.2.3 && git push -f origin v1')
    expect(git(remote, 'tag', '--list')).toBe('')
  })

  test('a later release moves v1 forward, and --push updates the remote', () => {
    expect(run('1.0.0', '--push').status).toBe(0)
    const first = git(clone, 'rev-parse', 'HEAD')
    expect(tagCommit(remote, 'v1')).toBe(first)

    writeFileSync(path.join(clone, 'change.txt'), 'x\n')
    git(clone, 'add', 'change.txt')
    git(clone, 'commit', '-qm', 'second')
    const result = run('1.1.0', '--push')
    expect(result.status).toBe(0)
    const second = git(clone, 'rev-parse', 'HEAD')
    expect(tagCommit(remote, 'v1.0.0')).toBe(first)
    expect(tagCommit(remote, 'v1.1.0')).toBe(second)
    expect(tagCommit(remote, 'v1')).toBe(second)
  })

  test('refuses a bad version, a dirty tree, a branch other than main, an existing tag and a stale dist', () => {
    expect(run('1.2').stderr).toMatch(/X\.Y\.Z/)

    writeFileSync(path.join(clone, 'dirty.txt'), 'x\n')
    expect(run('1.2.3').stderr).toMatch(/not clean/)
    rmSync(path.join(clone, 'dirty.txt'))

    git(clone, 'checkout', '-q', '-b', 'feature')
    expect(run('1.2.3').stderr).toMatch(/on main; this is feature/)
    git(clone, 'checkout', '-q', 'main')

    writeFileSync(path.join(clone, 'stale'), '')
    const stale = run('1.2.3')
    expect(stale.status).toBe(1)
    expect(stale.stderr).toMatch(/stale/)
    rmSync(path.join(clone, 'stale'))

    expect(run('1.2.3').status).toBe(0)
    expect(run('1.2.3').stderr).toMatch(/v1\.2\.3 exists already/)
    expect(git(clone, 'tag', '--list').split('\n').sort()).toEqual(['v1', 'v1.2.3'])
  })
})
