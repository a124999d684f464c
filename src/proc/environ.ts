// Linux lets any process of the same user read another's initial environment (/proc/<pid>/environ: the
// strings the kernel put on the stack at exec, whatever the process did to its environment since). The
// agent runs as a child of this process, so without this it could read the tokens the runner started us
// with (INPUT_GITHUB-TOKEN, ACTIONS_RUNTIME_TOKEN) from /proc/<our pid>/environ. This overwrites their values
// in that block, after moving the live variables to the heap (setenv copies them), where reading them needs
// ptrace rights a child does not have over its parent. Linux only; elsewhere it does nothing.
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs'

export interface ScrubResult {
  /** Names whose values were overwritten in the initial block. */
  scrubbed: string[]
  /** Why nothing could be done (not Linux, /proc unreadable, …); undefined when it worked. */
  skipped?: string
}

/** The initial environment's address range, from /proc/self/stat (fields 50 and 51, since Linux 3.5). */
function environRange(): { start: number; end: number } | undefined {
  const stat = readFileSync('/proc/self/stat', 'utf8')
  // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const start = Number(fields[50 - 3])
  const end = Number(fields[51 - 3])
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= 0 || end <= start)
    return undefined
  return { start, end }
}

/**
 * Overwrites, in this process's initial environment block, the value of every variable `secret` names,
 * keeping each one usable by this process (process.env still answers it, from a heap copy).
 */
export function scrubInitialEnvironment(secret: (name: string) => boolean): ScrubResult {
  if (process.platform !== 'linux') return { scrubbed: [], skipped: 'not Linux' }
  let range: { start: number; end: number } | undefined
  try {
    range = environRange()
  } catch (error) {
    return { scrubbed: [], skipped: `/proc/self/stat: ${(error as Error).message}` }
  }
  if (!range) return { scrubbed: [], skipped: '/proc/self/stat has no environment range' }

  // Move the live variables off the block first: unsetenv drops the pointer into it, setenv makes a copy.
  for (const name of Object.keys(process.env)) {
    if (!secret(name)) continue
    const value = process.env[name] as string
    delete process.env[name]
    process.env[name] = value
  }

  let fd: number
  try {
    fd = openSync('/proc/self/mem', 'r+')
  } catch (error) {
    return { scrubbed: [], skipped: `/proc/self/mem: ${(error as Error).message}` }
  }
  try {
    const block = Buffer.alloc(range.end - range.start)
    const read = readSync(fd, block, 0, block.length, range.start)
    const scrubbed: string[] = []
    let at = 0
    while (at < read) {
      let nul = block.indexOf(0, at)
      if (nul < 0 || nul > read) nul = read
      const eq = block.indexOf(0x3d, at) // '='
      if (eq > at && eq < nul) {
        const name = block.toString('latin1', at, eq)
        if (secret(name) && nul > eq + 1) {
          block.fill(0, eq + 1, nul)
          writeSync(fd, block, eq + 1, nul - eq - 1, range.start + eq + 1)
          scrubbed.push(name)
        }
      }
      at = nul + 1
    }
    return { scrubbed }
  } catch (error) {
    return { scrubbed: [], skipped: `/proc/self/mem: ${(error as Error).message}` }
  } finally {
    closeSync(fd)
  }
}
