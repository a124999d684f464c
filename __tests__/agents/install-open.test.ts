// An agent CLI's install, usable by the agent's own user: what the package ships without its x bit (qwen-code
// 0.24.4's tarball has vendor/ripgrep/*/rg at 0644, so its grep ran for nobody) made runnable, files readable
// and folders passable whatever the umask was, nothing writable but by its owner, and no link followed out.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, expect, test } from '@jest/globals'
import { agentCli } from '../../src/agents/clis.js'
import { openToEveryUser } from '../../src/agents/install.js'

let dir: string
let elsewhere: string
afterEach(() => {
  for (const folder of [dir, elsewhere]) rmSync(folder, { recursive: true, force: true })
})

const mode = (file: string): number => statSync(file).mode & 0o7777

test("qwen's vendored rg becomes runnable, the install readable, and a link's target is left alone", () => {
  const qwen = agentCli('qwen')!
  expect(qwen.executables).toContain(`vendor/ripgrep/${process.arch}-${process.platform}/rg`)
  dir = mkdtempSync(path.join(tmpdir(), 'ralph-install-open-'))
  const pkg = path.join(dir, 'node_modules', '@qwen-code', 'qwen-code')
  const rg = path.join(pkg, 'vendor', 'ripgrep', `${process.arch}-${process.platform}`, 'rg')
  mkdirSync(path.dirname(rg), { recursive: true })
  writeFileSync(rg, '#!/bin/sh\n', { mode: 0o644 })
  // As npm leaves them under a umask of 077, and a folder some step made group-writable.
  writeFileSync(path.join(pkg, 'cli.js'), '', { mode: 0o600 })
  chmodSync(path.join(pkg, 'vendor'), 0o770)
  elsewhere = mkdtempSync(path.join(tmpdir(), 'ralph-install-elsewhere-'))
  const outside = path.join(elsewhere, 'secret')
  writeFileSync(outside, 'secret', { mode: 0o600 })
  symlinkSync(outside, path.join(pkg, 'link'))

  openToEveryUser(qwen, dir)

  expect(mode(rg)).toBe(0o755)
  expect(mode(path.join(pkg, 'cli.js'))).toBe(0o644)
  expect(mode(path.join(pkg, 'vendor'))).toBe(0o755)
  expect(mode(outside)).toBe(0o600)
})
