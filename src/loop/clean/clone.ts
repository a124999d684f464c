// The clean checkout is what a clone gets (#37): the commit's files are written from the object store as stored
// (git/write-tree.ts, no filter of the tree ever runs), then the files the delivered .gitattributes give `ident`,
// `text` or `eol` get the bytes `git clone` would write (verdict/clone-checkout.ts). Attributes are read from the
// commit (the checkout's index), never a filter or driver run. A path a clone re-encodes cannot be reproduced:
// the verification fails on it rather than judge other bytes than a clone's.
import { constants, lstatSync, openSync, closeSync, unlinkSync, writeSync } from 'node:fs'
import { gitBytes } from '../../git/git.js'
import { onDisk, pathBytes, pathFromBytes, showPath, splitNul } from '../../text/tree-path.js'
import { cloneBytes, parseCheckAttr } from '../../verdict/index.js'

/** The attributes that change what a clone writes (the rest, `diff`, `merge`, `filter`… change nothing here). */
const CONVERTING = ['text', 'eol', 'crlf', 'ident', 'working-tree-encoding']

/**
 * Rewrites the regular files of `commit` in `checkout` (a worktree whose index holds `commit`) as a clone writes
 * them. Answers why a file cannot be reproduced, one line each (none: the checkout is what a clone gets).
 */
export async function applyCloneAttributes(
  checkout: string,
  commit: string,
  env?: NodeJS.ProcessEnv
): Promise<string[]> {
  const entries = splitNul(await gitBytes(checkout, ['ls-tree', '-r', '-z', '--full-tree', commit], { env }))
    .map(record => {
      const tab = record.indexOf('\t')
      const [mode, , oid] = record.slice(0, tab).split(' ')
      return { mode, oid, file: record.slice(tab + 1) }
    })
    .filter(e => e.mode === '100644' || e.mode === '100755')
  // No .gitattributes anywhere in the commit: a clone writes the blobs as they are (default configuration).
  if (!entries.some(e => e.file === '.gitattributes' || e.file.endsWith('/.gitattributes'))) return []
  const input = Buffer.concat(entries.flatMap(e => [pathBytes(e.file), Buffer.from([0])]))
  // --cached: the .gitattributes of the index (the commit's), not of any file on disk; no user or system file.
  const out = await gitBytes(
    checkout,
    ['-c', 'core.attributesFile=/dev/null', 'check-attr', '--cached', '-a', '-z', '--stdin'],
    { env: { ...env, GIT_ATTR_NOSYSTEM: '1' }, input }
  )
  const byPath = new Map(
    [...parseCheckAttr(out)].map(([latin1, attrs]) => [pathFromBytes(Buffer.from(latin1, 'latin1')), attrs])
  )
  const converted = entries.filter(e =>
    Object.keys(byPath.get(e.file) ?? {}).some(a => CONVERTING.includes(a))
  )
  if (converted.length === 0) return []
  const blobs = await gitBytes(checkout, ['cat-file', '--batch'], {
    env,
    input: converted.map(e => `${e.oid}\n`).join('')
  })
  const problems: string[] = []
  let at = 0
  for (const e of converted) {
    const newline = blobs.indexOf(0x0a, at)
    const size = Number(blobs.subarray(at, newline).toString('utf8').split(' ')[2])
    const blob = blobs.subarray(newline + 1, newline + 1 + size)
    at = newline + 1 + size + 1
    const clone = cloneBytes(blob, e.oid, byPath.get(e.file) ?? {})
    if ('why' in clone) {
      problems.push(`${showPath(e.file)}: ${clone.why}; the clean checkout cannot be what a clone gets`)
      continue
    }
    if (clone.bytes.equals(blob)) continue
    const file = onDisk(checkout, e.file)
    // Written anew, never through a link: the checkout is the action's own until it is lent.
    if (!lstatSync(file).isFile()) continue
    unlinkSync(file)
    const fd = openSync(
      file,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      e.mode === '100755' ? 0o755 : 0o644
    )
    try {
      for (let done = 0; done < clone.bytes.length;) done += writeSync(fd, clone.bytes, done)
    } finally {
      closeSync(fd)
    }
  }
  return problems
}
