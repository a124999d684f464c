import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'

import type { Captured } from '../../src/proc/types.js'

export const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-proc-'))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

export const text = (c: Captured): string => Buffer.concat([c.head, c.tail]).toString('utf8')

/** Running = present in /proc and not a zombie (an orphan's zombie waits for init, which may never reap it). */
export function isRunning(pid: number): boolean {
  const stat = `/proc/${pid}/stat`
  if (!existsSync(stat)) return false
  try {
    const s = readFileSync(stat, 'latin1')
    const state = s.slice(s.lastIndexOf(')') + 2)[0]
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}

/** SIGKILL is delivered asynchronously: allow the kernel a moment to finish the process. */
export async function isGoneSoon(pid: number, withinMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + withinMs
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false
    await sleep(10)
  }
  return true
}

export const pidsIn = (s: string): number[] => (s.match(/^\d+$/gm) ?? []).map(Number)

export const killQuietly = (pid: number): void => {
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // already gone
  }
}
