// A ralph's own files (RALPH.md, the guardrails file) live in the work tree, which is the agent's: between
// two reads it may swap one for a link (to /proc/self/environ: the action's whole environment into the next
// prompt and the record; to a root-only file) or a FIFO (whose read blocks the event loop and every budget
// timer). So the path is pinned before any agent runs, and each read opens exactly that file: no link in any
// of its folders, none as the file itself (O_NOFOLLOW), nothing but a regular file (fstat of the opened fd).
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync } from 'node:fs'
import path from 'node:path'

/** Bytes read of a ralph's file at most: a prompt file larger than this is not a prompt. */
export const TREE_FILE_MAX_BYTES = 4 * 1024 * 1024

/** Why a file of the work tree was not read; `code` ENOENT when it is just not there. */
export class TreeFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly code?: string
  ) {
    super(`${file} ${reason}`)
    this.name = 'TreeFileError'
  }
}

/**
 * The real path of `file` as it is now (before any agent ran): the file's own when it exists, else its
 * nearest existing folder's plus the rest. Read later with readTreeFile, it is that file or nothing.
 * A file of the work tree `tree` must stay in it after its links, and out of its `.git`: a link committed by an
 * earlier run's agent (on a branch this run continues) is the agent's as much as one it makes now.
 */
export function pinTreeFile(file: string, tree?: string): string {
  const pinned = realPathOf(path.resolve(file))
  if (tree === undefined || !isInside(path.resolve(file), path.resolve(tree))) return pinned
  const realTree = realPathOf(path.resolve(tree))
  if (!isInside(pinned, realTree) || isInside(pinned, path.join(realTree, '.git')))
    throw new TreeFileError(
      file,
      `leads through a link to ${pinned}, outside the work tree or inside its .git: the action follows no link of the work tree`
    )
  return pinned
}

function realPathOf(abs: string): string {
  try {
    return realpathSync(abs)
  } catch {
    const parent = path.dirname(abs)
    return parent === abs ? abs : path.join(realPathOf(parent), path.basename(abs))
  }
}

/** Whether the absolute path `child` is `parent` or below it. */
export const isInside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

/** Throws unless every folder on the way to `file` is a folder and not a link (the file itself: O_NOFOLLOW). */
function checkFolders(file: string): void {
  const parts = path.resolve(file).split(path.sep).filter(Boolean)
  let at: string = path.sep
  for (const part of parts.slice(0, -1)) {
    at = path.join(at, part)
    let stat
    try {
      stat = lstatSync(at)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      throw new TreeFileError(
        file,
        code === 'ENOENT' ? 'does not exist' : `cannot be reached (${code})`,
        code
      )
    }
    if (stat.isSymbolicLink())
      throw new TreeFileError(
        file,
        `is reached through a symbolic link (${at}): the action follows no link of the work tree`
      )
    if (!stat.isDirectory())
      throw new TreeFileError(file, `cannot be reached: ${at} is not a folder`, 'ENOTDIR')
  }
}

/**
 * The bytes of the regular file at `file` (a pinned path), opened without following a link anywhere on its
 * way and without blocking (a FIFO is refused, not waited on). Throws TreeFileError naming why not.
 */
export function readTreeFile(file: string, maxBytes = TREE_FILE_MAX_BYTES): Buffer {
  checkFolders(file)
  return readRegularFile(file, maxBytes)
}

/**
 * The bytes of `file` if it is a regular file and not a link (O_NOFOLLOW: not even one that stays inside the
 * project), opened without blocking. Its folders are followed (their containment is the caller's check).
 * Throws TreeFileError naming why not.
 */
export function readRegularFile(file: string, maxBytes = TREE_FILE_MAX_BYTES): Buffer {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP')
      throw new TreeFileError(file, 'is a symbolic link: the action follows no link of the work tree', code)
    if (code === 'ENOENT') throw new TreeFileError(file, 'does not exist', code)
    throw new TreeFileError(file, `cannot be opened (${code ?? (error as Error).message})`, code)
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile())
      throw new TreeFileError(
        file,
        'is not a regular file (a FIFO, a device, a socket or a folder): it is not read'
      )
    if (stat.size > maxBytes)
      throw new TreeFileError(file, `is larger than ${maxBytes} bytes (${stat.size}): it is not read`)
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1)
    let length = 0
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null)
      if (n === 0) break
      length += n
      if (length === buffer.length)
        throw new TreeFileError(file, `grew while it was read (past ${stat.size} bytes): it is not read`)
    }
    return buffer.subarray(0, length)
  } finally {
    closeSync(fd)
  }
}
