// The processes of a uid, read from /proc/<pid>/status (never from /proc/<pid>'s owner: a process that makes
// itself non-dumpable shows as root's there).
import { closeSync, openSync, readdirSync, readSync } from 'node:fs'

/** Reused by processesOf: the head of a /proc/<pid>/status (State and Uid are in its first ten lines). */
const statusBuffer = Buffer.alloc(1024)

/** The start of /proc/<pid>/status in one read (readFileSync cannot trust the size /proc reports). */
function statusHead(pid: string): string {
  const fd = openSync(`/proc/${pid}/status`, 'r')
  try {
    return statusBuffer.toString('latin1', 0, readSync(fd, statusBuffer, 0, statusBuffer.length, null))
  } finally {
    closeSync(fd)
  }
}

/**
 * Live (not zombie) processes whose real, effective or saved uid is `uid`. From /proc/<pid>/status, never
 * from the owner of /proc/<pid>: a process that makes itself non-dumpable shows as root's there.
 */
export function processesOf(uid: number): number[] {
  return scanProcesses(uid, false)
}

/** Zombies of `uid`: dead, but counted against its RLIMIT_NPROC until their parent (often init) reaps them. */
export function zombiesOf(uid: number): number[] {
  return scanProcesses(uid, true)
}

function scanProcesses(uid: number, zombies: boolean): number[] {
  const pids: number[] = []
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return pids
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    let status: string
    try {
      status = statusHead(name)
    } catch {
      continue // exited meanwhile
    }
    const uids = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(status)
    if (!uids || /^State:\s+[ZX]/m.test(status) !== zombies) continue
    if (uids.slice(1).some(u => Number(u) === uid)) pids.push(Number(name))
  }
  return pids
}
