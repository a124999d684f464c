// The CLI as a user runs it: the built dist/cli/index.js, in temp projects (real git when asked).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll } from '@jest/globals'

export const CLI = path.resolve('dist/cli/index.js')

export interface Ran {
  code: number | null
  stdout: string
  stderr: string
}

export function cli(cwd: string, ...args: string[]): Ran {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: gitEnv() })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

export function gitEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@localhost',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@localhost'
  }
}

// Every project folder (and the record beside it) goes when the test file ends.
const made: string[] = []
afterAll(() => {
  for (const dir of made.splice(0))
    for (const d of [dir, recordOf(dir)]) rmSync(d, { recursive: true, force: true })
})

/** A project folder with the given files (a `*.sh` file is made executable). */
export function project(files: Record<string, string>, git = false): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-cli-'))
  made.push(dir)
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, content)
    if (name.endsWith('.sh')) chmodSync(file, 0o755)
  }
  if (git) {
    const run = (...a: string[]): void => void spawnSync('git', a, { cwd: dir, env: gitEnv() })
    run('init', '-q', '-b', 'main')
    run('add', '-A')
    run('commit', '-qm', 'start')
  }
  return dir
}

/** Running (a zombie counts as gone: nothing reaps orphans in a container without an init). */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

export const recordOf = (dir: string): string => path.join(dir + '-record')
