// The CLI as a stranger gets it before (and once) it is published: `npm pack`, installed into an empty folder.
// Its bundles carry everything they run, so the package installs nothing else.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from '@jest/globals'

const root = path.resolve('.')
const dir = mkdtempSync(path.join(tmpdir(), 'ralph-pack-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('npm pack, installed into an empty folder: ralph-action --version and validate run, and nothing else is installed', () => {
  execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: root, stdio: 'ignore' })
  const tarball = readdirSync(dir).find(name => name.endsWith('.tgz'))
  expect(tarball).toMatch(/^ralph-action-\d+\.\d+\.\d+\.tgz$/)
  const user = path.join(dir, 'user')
  mkdirSync(user)
  const npmEnv = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' }
  execFileSync('npm', ['install', '--prefer-offline', '--prefix', user, path.join(dir, tarball as string)], {
    cwd: user,
    env: npmEnv,
    stdio: 'ignore'
  })
  // The bundles need no dependency: only the package itself is in node_modules.
  expect(readdirSync(path.join(user, 'node_modules')).filter(name => !name.startsWith('.'))).toEqual([
    'ralph-action'
  ])
  const bin = path.join(user, 'node_modules', '.bin', 'ralph-action')
  const version = spawnSync(bin, ['--version'], { cwd: user, encoding: 'utf8' })
  expect(version.status).toBe(0)
  expect(version.stdout).toMatch(/^ralph-action \d+\.\d+\.\d+\n$/)
  mkdirSync(path.join(user, 'r'))
  writeFileSync(path.join(user, 'r', 'RALPH.md'), '---\nagent: cat\n---\nSay hello.\n')
  const validate = spawnSync(bin, ['validate', 'r'], { cwd: user, encoding: 'utf8' })
  expect(validate).toMatchObject({ status: 0, stdout: 'r/RALPH.md: OK\n', stderr: '' })
}, 120_000)
