// Integration harness: a real git repo with a ralph in it, scripted agents (bash scripts reading stdin,
// kept outside the work tree so they never count as progress), a record folder outside the repo.
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { loadRalph } from '../../src/ralph/index.js'
import {
  loopConfig,
  runLoop,
  type LoopConfig,
  type LoopEvent,
  type LoopPorts,
  type LoopResult,
  type LoopStart
} from '../../src/loop/index.js'
import { tempDir, tempRepo, type TempRepo } from '../git/temp-repo.js'

export interface Harness {
  repo: TempRepo
  /** Outside the repo: scripts and agent state. */
  tools: string
  record: string
  ralphDir: string
  /** Writes RALPH.md (frontmatter lines + body) into the ralph folder. */
  writeRalph(frontmatter: string, body: string): void
  /** Writes an executable bash script into the tools folder; answers its path. */
  script(name: string, body: string): string
  config(overrides?: Partial<LoopConfig>): LoopConfig
  /** `carry`: where the chain stands when this run resumes it (runLoop's `start`). */
  run(
    overrides?: Partial<LoopConfig> & { carry?: LoopStart },
    ports?: LoopPorts
  ): Promise<{ result: LoopResult; events: LoopEvent[] }>
  readRecord(file: string): string
  status(): LoopResult
  cleanup(): void
}

export function harness(name = 'fixer'): Harness {
  const repo = tempRepo()
  const tools = tempDir('ralph-tools-')
  const record = path.join(tempDir('ralph-record-'), 'record')
  const ralphDir = path.join(repo.dir, 'ralphs', name)
  mkdirSync(ralphDir, { recursive: true })
  const h: Harness = {
    repo,
    tools,
    record,
    ralphDir,
    writeRalph(frontmatter, body) {
      writeFileSync(path.join(ralphDir, 'RALPH.md'), `---\n${frontmatter.trim()}\n---\n${body}`)
    },
    script(scriptName, body) {
      const file = path.join(tools, scriptName)
      writeFileSync(file, `#!/usr/bin/env bash\n${body}\n`)
      chmodSync(file, 0o755)
      return file
    },
    config(overrides = {}) {
      const ralph = loadRalph(path.join(ralphDir, 'RALPH.md'), { cwd: repo.dir, skipAgentLookup: true })
      return loopConfig({
        ralph,
        projectRoot: repo.dir,
        recordDir: record,
        userArgs: ralph.argValues,
        killGraceMs: 300,
        ...overrides
      })
    },
    async run({ carry, ...overrides } = {}, ports = {}) {
      const events: LoopEvent[] = []
      const result = await runLoop(
        h.config(overrides),
        {
          ...ports,
          emit: event => {
            events.push(event)
            ports.emit?.(event)
          }
        },
        carry
      )
      return { result, events }
    },
    readRecord(file) {
      return readFileSync(path.join(record, file), 'utf8')
    },
    status() {
      return JSON.parse(h.readRecord('status.json')) as LoopResult
    },
    cleanup() {
      repo.cleanup()
      rmSync(tools, { recursive: true, force: true })
      rmSync(path.dirname(record), { recursive: true, force: true })
    }
  }
  return h
}

/** A bash snippet that counts this agent's runs in `<tools>/count` and leaves the number in $n. */
export const countRuns = (tools: string): string =>
  `n=$(( $(cat '${tools}/count' 2>/dev/null || echo 0) + 1 )); echo $n > '${tools}/count'`

/** A live process (a zombie is dead: this machine's init may never reap it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0])
  } catch {
    return process.platform === 'linux' ? false : true
  }
}

/** Waits until `condition` holds (polling). */
export async function waitFor(
  condition: () => boolean,
  what = 'the condition',
  timeoutMs = 30_000
): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > end) throw new Error(`${what} did not happen`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

/** Waits until `file` exists (an agent's "I started" marker). */
export const waitForFile = (file: string, timeoutMs = 30_000): Promise<void> =>
  waitFor(() => existsSync(file), `${file} appearing`, timeoutMs)

export function pidsIn(file: string): number[] {
  return readFileSync(file, 'utf8').split(/\s+/).filter(Boolean).map(Number)
}
