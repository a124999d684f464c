// A `git` first on PATH that writes every argv it is started with to a log, then runs the real git: what any
// process on the machine could read in /proc/<pid>/cmdline while that git ran.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import path from 'node:path'

export interface GitArgvLog {
  /** The folder to put first on PATH. */
  bin: string
  /** Every git argv so far, in order. */
  argvs(): string[][]
}

export function gitArgvLog(): GitArgvLog {
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
  const bin = mkdtempSync(path.join(tmpdir(), 'ralph-git-argv-'))
  chmodSync(bin, 0o755)
  const log = path.join(bin, 'argv.log')
  writeFileSync(log, '', { mode: 0o666 })
  chmodSync(log, 0o666)
  // One record per call: each argument ended by NUL, the record by a newline after the last NUL.
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh\n{ printf '%s\\0' "$@"; printf '\\n'; } >> '${log}' 2>/dev/null\nexec '${real}' "$@"\n`,
    { mode: 0o755 }
  )
  chmodSync(path.join(bin, 'git'), 0o755)
  return {
    bin,
    argvs: () =>
      readFileSync(log, 'utf8')
        .split('\0\n')
        .filter(record => record !== '')
        .map(record => record.replace(/^\n/, '').split('\0'))
  }
}
