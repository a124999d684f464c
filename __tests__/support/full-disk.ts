// A file system that fills up for real: a small tmpfs mounted (as root) on a folder of its own, and a filler
// that writes until ENOSPC. Tests that need it skip elsewhere, saying why.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'

/** Why no tmpfs can be mounted here (mounting needs root), or undefined. */
export function whyNoSmallFileSystem(): string | undefined {
  return process.getuid?.() === 0 ? undefined : 'mounting a small tmpfs needs root'
}

/** A tmpfs of `size` (e.g. `8m`) mounted in `base`; answers its folder and what unmounts and removes it. */
export function smallFileSystem(base: string, size: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(base, 'ralph-small-fs-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir])
  return {
    dir,
    remove: () => {
      execFileSync('umount', ['-l', dir])
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** Writes zeros into `dir` until its file system has no byte left; answers the filler, to remove for room. */
export function fillUp(dir: string): string {
  const filler = path.join(dir, `filler-${process.pid}`)
  spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' })
  const probe = spawnSync('bash', ['-c', 'echo x > "$1"', 'probe', path.join(dir, 'probe')])
  if (probe.status === 0) throw new Error(`${dir} still takes a write after it was filled`)
  return filler
}
