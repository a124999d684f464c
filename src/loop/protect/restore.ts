// The restore of protected paths: the shell script that puts them back (run as the agent's user, so the tree
// stays its own), and the look again after it that fails closed.
import { GitRepo } from '../../git/index.js'
import { pathBytes, pathFromBytes } from '../../text/tree-path.js'
import { runProcess as defaultRunProcess } from '../../proc/index.js'
import type { RunOptions, RunResult } from '../../proc/types.js'
import { revertsLine } from './reverts-line.js'
import { protectionFromRules, repositoryTop } from './resolve.js'
import { findChanges } from './scan.js'
import { ProtectedPathError, type Protection, type ProtectRule, type Revert } from './types.js'

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`
const HEREDOC_END = 'RALPH_PROTECTED_PATH_END'

/**
 * The shell script that puts `reverts` back (POSIX sh and coreutils, so the agent's own user can run it): what
 * is in the way is removed (a link is removed, never followed), folders made, each file written from its blob.
 * Its paths are path strings: the shell is given `pathBytes(script)`, each name byte for byte.
 */
export function restoreScript(
  protection: Protection,
  reverts: readonly Revert[],
  blobs: ReadonlyMap<string, Buffer>
): string {
  const lines = ['set -e', 'umask 022', `cd -- ${quote(protection.top)}`]
  // What goes comes first: a link removed where a protected folder was must not take its restored files with it.
  const added = reverts.filter(r => !protection.paths.has(r.path))
  for (const revert of [...added, ...reverts.filter(r => protection.paths.has(r.path))]) {
    const entry = protection.paths.get(revert.path)
    // A folder on the way that is now a link or a file goes, then the path itself, whatever it is.
    const parts = revert.path.split('/')
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/')
      lines.push(
        `if [ -L ${quote(dir)} ] || { [ -e ${quote(dir)} ] && [ ! -d ${quote(dir)} ]; }; then rm -f -- ${quote(dir)}; fi`
      )
      lines.push(`[ -d ${quote(dir)} ] || mkdir -- ${quote(dir)}`)
      // A folder the agent closed to others (the action's user reads it to look again); not fatal when not its own.
      lines.push(`chmod u+rwx,go+rx -- ${quote(dir)} 2>/dev/null || true`)
    }
    lines.push(`rm -rf -- ${quote(revert.path)}`)
    if (!entry) continue
    const content = blobs.get(entry.oid) ?? Buffer.alloc(0)
    if (entry.mode === '120000') {
      lines.push(`ln -s -- ${quote(pathFromBytes(content))} ${quote(revert.path)}`)
      continue
    }
    const encoded = content.toString('base64').replace(/.{1,76}/g, '$&\n')
    lines.push(`base64 -d > ${quote(revert.path)} <<'${HEREDOC_END}'`, `${encoded}${HEREDOC_END}`)
    lines.push(`chmod ${entry.mode === '100755' ? '755' : '644'} -- ${quote(revert.path)}`)
  }
  return `${lines.join('\n')}\n`
}

/** The blobs of `oids`, from git's object store (`cat-file --batch`). */
export async function readBlobs(top: string, oids: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(oids)]
  const blobs = new Map<string, Buffer>()
  if (unique.length === 0) return blobs
  const out = await new GitRepo(top).bytes(['cat-file', '--batch'], unique.map(oid => `${oid}\n`).join(''))
  let at = 0
  for (const oid of unique) {
    const newline = out.indexOf(10, at)
    const header = out.subarray(at, newline).toString('utf8').split(' ')
    const size = Number(header[2])
    if (header[0] !== oid || !Number.isInteger(size)) throw new Error(`git cat-file gave no blob ${oid}`)
    blobs.set(oid, out.subarray(newline + 1, newline + 1 + size))
    at = newline + 1 + size + 1
  }
  return blobs
}

export interface RestoreOptions {
  /** Starts the restore's shell (the loop's: as the agent's user under isolation). Default: as this process. */
  runProcess?: (options: RunOptions) => Promise<RunResult>
  signal?: AbortSignal
}

/**
 * Puts every protected path back as the start commit has it and removes what was added where nothing may be,
 * then looks again: answers what was put back, or throws ProtectedPathError when something could not be.
 */
export async function restore(protection: Protection, options: RestoreOptions = {}): Promise<Revert[]> {
  const reverts = await findChanges(protection)
  if (reverts.length === 0) return []
  const oids = reverts.flatMap(r => protection.paths.get(r.path)?.oid ?? [])
  const script = restoreScript(protection, reverts, await readBlobs(protection.top, oids))
  const run = options.runProcess ?? defaultRunProcess
  const result = await run({
    argv: ['/bin/sh', '-s'],
    cwd: protection.top,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' },
    input: pathBytes(script),
    timeoutMs: 120_000,
    ...(options.signal ? { signal: options.signal } : {})
  })
  const left = await findChanges(protection)
  if (result.exitCode !== 0 || left.length > 0) {
    const said = Buffer.concat([result.stderr.head, result.stderr.tail])
      .toString('utf8')
      .trim()
      .split('\n')[0]
    const still = revertsLine(left)
    throw new ProtectedPathError(
      `protected paths could not be put back before the gates${still ? `: ${still}` : ''}${said ? ` (${said})` : ''}`
    )
  }
  return reverts
}

/**
 * For another work tree (a clean checkout to verify): the rules a run recorded (status.json's `protected`),
 * applied there against `baseCommit`. Answers what was put back; throws ProtectedPathError when something
 * could not be. `runProcess` starts the restore's shell (as the agent's user, where the tree is the agent's).
 */
export async function restoreProtected(
  workTree: string,
  baseCommit: string,
  rules: readonly ProtectRule[],
  options: RestoreOptions & { guardrails?: string } = {}
): Promise<Revert[]> {
  const top = await repositoryTop(workTree)
  return restore(await protectionFromRules(top, baseCommit, rules, options.guardrails), options)
}
