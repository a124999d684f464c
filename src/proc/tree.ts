// Finding and killing a whole process tree. A process-group kill is not enough: a descendant that
// called setsid() or setpgid() has left the group, and one whose parent died has been re-parented to
// init. So the tree is collected from the process table (ppid links, the group, the session and, when
// given, whoever holds the child's output pipes) and every member is signalled by pid as well.

import { execFileSync } from 'node:child_process'
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Signaller } from './types.js'

interface ProcEntry {
  pid: number
  ppid: number
  pgrp: number
  /** -1 when unknown (no /proc). */
  sid: number
  zombie: boolean
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22): with the pid, a process identity. */
  start: string
}

export interface KillTreeOptions {
  /** Start time of `pid` when it was spawned (see {@link processIdentity}): a reused pid is then left alone.
   * Undefined when it could not be read: then it is read now. */
  start?: string | undefined
  /** Open-file ids (`socket:[123]`, `pipe:[456]`) of the child's stdout/stderr: whoever still holds one is killed too. */
  holding?: string[]
  /** How signals are sent (default: process.kill, skipping processes that are gone or not ours). */
  signaller?: Signaller
}

const POLL_MS = 50
/** Rounds of "collect, SIGSTOP the new ones" before SIGKILL, so a fork loop cannot outrun the kill. */
const FREEZE_ROUNDS = 10

/** Live descendants of `pid` (children, grandchildren…, found through their parent pid), nearest first. */
export function listDescendants(pid: number): number[] {
  const table = readProcessTable()
  const children = childrenByParent(table)
  const found: number[] = []
  const queue = [pid]
  const seen = new Set(queue)
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      if (seen.has(child.pid)) continue
      seen.add(child.pid)
      if (!child.zombie) found.push(child.pid)
      queue.push(child.pid)
    }
  }
  return found
}

/**
 * SIGTERM to the process group of `pid` and to every process of its tree; once they are all gone, or
 * after `graceMs`, the tree is collected again, frozen with SIGSTOP and SIGKILLed. Resolves when the
 * SIGKILLs are sent (or as soon as nothing is left alive). Never throws; never touches this process,
 * its ancestors or its own group.
 */
export async function killProcessTree(
  pid: number,
  graceMs: number,
  options: KillTreeOptions = {}
): Promise<void> {
  if (!Number.isInteger(pid) || pid <= 1) return
  const first = readProcessTable()
  const start = options.start ?? first.get(pid)?.start
  const signal = options.signaller ?? signalOwn
  const tree = new TreeCollector(pid, start, options.holding ?? [], signal)
  if (tree.isProtected(first)) return

  let targets = tree.collect(first, new Map(), true)
  // One SIGTERM each: a member of the group already has it, and a second would run its clean-up twice.
  const grouped = tree.signalGroup(first, 'SIGTERM')
  signal(
    [...targets.keys()].filter(p => !grouped || first.get(p)?.pgrp !== pid),
    'SIGTERM'
  )

  const deadline = Date.now() + Math.max(0, graceMs)
  while (Date.now() < deadline) {
    await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())))
    targets = tree.collect(readProcessTable(), targets, false)
    if (targets.size === 0) return
  }

  // Stop everything first so nothing can fork between our last look and the SIGKILL.
  const stopped = new Map<number, string>()
  for (let round = 0; round < FREEZE_ROUNDS; round++) {
    targets = tree.collect(readProcessTable(), new Map([...targets, ...stopped]), true)
    const fresh = [...targets.keys()].filter(p => !stopped.has(p))
    if (fresh.length === 0) break
    signal(fresh, 'SIGSTOP')
    for (const target of fresh) stopped.set(target, targets.get(target) as string)
  }
  tree.signalGroup(readProcessTable(), 'SIGKILL')
  signal([...new Set([...stopped.keys(), ...targets.keys()])], 'SIGKILL')
}

/**
 * Kills every process (with its tree) that was started with `name=value` in its environment: what the agent
 * left running after it exited, re-parented out of its tree (setsid, a double fork). Answers their pids.
 * Linux only (it reads /proc/<pid>/environ); a process that cleared its environment is not found.
 */
export async function killMarked(name: string, value: string, graceMs: number): Promise<number[]> {
  if (process.platform !== 'linux') return []
  const entry = Buffer.from(`${name}=${value}\0`)
  const table = readProcessTable()
  const skip = protectedPids(table)
  const marked: number[] = []
  for (const pid of table.keys()) {
    if (skip.has(pid) || table.get(pid)?.zombie) continue
    let environ: Buffer
    try {
      environ = readFileSync(`/proc/${pid}/environ`)
    } catch {
      continue // gone, or not ours
    }
    const at = environ.indexOf(entry)
    if (at === 0 || (at > 0 && environ[at - 1] === 0)) marked.push(pid)
  }
  await Promise.all(marked.map(pid => killProcessTree(pid, graceMs, { start: table.get(pid)?.start })))
  return marked
}

/** The start time of a live process, to recognise it later (undefined when it is gone or unknown). */
export function processIdentity(pid: number): string | undefined {
  return readProcessTable(pid).get(pid)?.start
}

/** Ids of the files open on the given descriptors of a process (`socket:[123]`); empty without /proc. */
export function openFileIds(pid: number, fds: number[]): string[] {
  const ids: string[] = []
  for (const fd of fds) {
    try {
      const id = readlinkSync(`/proc/${pid}/fd/${fd}`)
      // Only an anonymous pipe or socket identifies our output; a file such as /dev/null is open everywhere.
      if (/^(pipe|socket):\[\d+\]$/.test(id)) ids.push(id)
    } catch {
      // Gone already, or no /proc (macOS): the group and the ppid walk still apply.
    }
  }
  return ids
}

class TreeCollector {
  constructor(
    private readonly root: number,
    private readonly rootStart: string | undefined,
    private readonly holding: string[],
    private readonly signal: Signaller
  ) {}

  /** Refuse to kill ourselves, an ancestor of ours, or a group/session we belong to. */
  isProtected(table: Map<number, ProcEntry>): boolean {
    const self = table.get(process.pid)
    return (
      protectedPids(table).has(this.root) ||
      (self !== undefined && (self.pgrp === this.root || self.sid === this.root))
    )
  }

  /** The pid was reused by an unrelated process since we learned its start time. */
  private rootReused(table: Map<number, ProcEntry>): boolean {
    const entry = table.get(this.root)
    return entry !== undefined && this.rootStart !== undefined && entry.start !== this.rootStart
  }

  /** Signals the root's process group; answers whether it did. */
  signalGroup(table: Map<number, ProcEntry>, sig: NodeJS.Signals): boolean {
    if (this.rootReused(table) || this.isProtected(table)) return false
    this.signal([-this.root], sig)
    return true
  }

  /** Live members of the tree: the root, its group and session, known members and holders, and all their descendants. */
  collect(
    table: Map<number, ProcEntry>,
    known: Map<number, string>,
    scanHolders: boolean
  ): Map<number, string> {
    const keep = protectedPids(table)
    const seeds: ProcEntry[] = []
    const root = table.get(this.root)
    const reused = this.rootReused(table)
    if (root && !reused) seeds.push(root)
    for (const entry of table.values()) {
      if (!reused && (entry.pgrp === this.root || entry.sid === this.root)) seeds.push(entry)
      else if (known.get(entry.pid) === entry.start) seeds.push(entry)
    }
    if (scanHolders && this.holding.length > 0 && this.rootStart) {
      // Only processes started after the root can have inherited its pipes from it.
      const bornAfterRoot = (e: ProcEntry): boolean => Number(e.start) >= Number(this.rootStart)
      for (const pid of holdersOf(table, this.holding, keep)) {
        const entry = table.get(pid) as ProcEntry
        if (bornAfterRoot(entry)) seeds.push(entry)
      }
    }

    const children = childrenByParent(table)
    const found = new Map<number, string>()
    const seen = new Set<number>()
    const queue: ProcEntry[] = []
    for (const seed of seeds) {
      if (keep.has(seed.pid) || seen.has(seed.pid)) continue
      seen.add(seed.pid)
      queue.push(seed)
    }
    while (queue.length > 0) {
      const entry = queue.shift() as ProcEntry
      if (!entry.zombie) found.set(entry.pid, entry.start)
      for (const child of children.get(entry.pid) ?? []) {
        if (seen.has(child.pid) || keep.has(child.pid)) continue
        seen.add(child.pid)
        queue.push(child)
      }
    }
    return found
  }
}

/** The default signaller: process.kill. */
const signalOwn: Signaller = (pids, sig) => {
  for (const pid of pids) {
    try {
      process.kill(pid, sig)
    } catch {
      // ESRCH: already gone. EPERM: not ours to kill.
    }
  }
}

/** This process, its ancestors, and pids 0 and 1. */
function protectedPids(table: Map<number, ProcEntry>): Set<number> {
  const pids = new Set([0, 1, process.pid])
  for (let p = table.get(process.pid)?.ppid; p !== undefined && !pids.has(p); p = table.get(p)?.ppid)
    pids.add(p)
  return pids
}

function childrenByParent(table: Map<number, ProcEntry>): Map<number, ProcEntry[]> {
  const children = new Map<number, ProcEntry[]>()
  for (const entry of table.values()) {
    const list = children.get(entry.ppid)
    if (list) list.push(entry)
    else children.set(entry.ppid, [entry])
  }
  return children
}

/** Processes with one of `ids` open (a grandchild that escaped the group and outlived its parent). */
function holdersOf(table: Map<number, ProcEntry>, ids: string[], skip: Set<number>): number[] {
  const wanted = new Set(ids)
  const holders: number[] = []
  for (const entry of table.values()) {
    if (entry.zombie || skip.has(entry.pid)) continue
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${entry.pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        if (wanted.has(readlinkSync(`/proc/${entry.pid}/fd/${fd}`))) {
          holders.push(entry.pid)
          break
        }
      } catch {
        // The descriptor closed while we looked.
      }
    }
  }
  return holders
}

/** The process table: /proc on Linux, `ps` elsewhere, empty when neither works. */
function readProcessTable(onlyPid?: number): Map<number, ProcEntry> {
  const table = new Map<number, ProcEntry>()
  if (process.platform === 'linux') {
    let names: string[]
    try {
      names = onlyPid === undefined ? readdirSync('/proc') : [String(onlyPid)]
    } catch {
      return table
    }
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue
      try {
        const entry = parseStat(readStat(name))
        if (entry) table.set(entry.pid, entry)
      } catch {
        // Exited while we read the table.
      }
    }
    return table
  }
  try {
    const out = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,state='], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000
    })
    for (const line of out.split('\n')) {
      const [pid, ppid, pgrp, state] = line.trim().split(/\s+/)
      if (!pid || !state) continue
      table.set(Number(pid), {
        pid: Number(pid),
        ppid: Number(ppid),
        pgrp: Number(pgrp),
        sid: -1,
        zombie: state.startsWith('Z'),
        start: ''
      })
    }
  } catch {
    // No ps: only the group kill and the direct pid remain.
  }
  return table
}

/** Reused by readStat: a stat line is a few hundred bytes. */
const statBuffer = Buffer.alloc(4096)

/**
 * `/proc/<pid>/stat` in one read: readFileSync, which cannot trust the size /proc reports (0), costs three
 * times as much, and this runs for every process started and for every process on the machine during a kill.
 */
function readStat(pid: string): string {
  const fd = openSync(`/proc/${pid}/stat`, 'r')
  try {
    const length = readSync(fd, statBuffer, 0, statBuffer.length, null)
    if (length < statBuffer.length) return statBuffer.toString('latin1', 0, length)
  } finally {
    closeSync(fd)
  }
  return readFileSync(`/proc/${pid}/stat`, 'latin1')
}

/** `pid (comm) state ppid pgrp session … starttime(22) …`; comm may hold spaces and parentheses. */
function parseStat(stat: string): ProcEntry | undefined {
  const close = stat.lastIndexOf(')')
  if (close < 0) return undefined
  const fields = stat.slice(close + 2).split(' ')
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  if (fields.length < 20) return undefined
  return {
    pid: Number(stat.slice(0, stat.indexOf(' '))),
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    sid: Number(fields[3]),
    zombie: fields[0] === 'Z' || fields[0] === 'X',
    start: fields[19]
  }
}
