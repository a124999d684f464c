// LoopConfig defaults, so front-ends and the benchmark only say what differs.
import { tmpdir } from 'node:os'
import path from 'node:path'
import { DEFAULT_MAX_FILE_BYTES } from '../git/index.js'
import { DEFAULT_BREAKER } from './breaker.js'
import { safeFileName } from './checks.js'
import { DEFAULT_CHECK_TIMEOUT, type RalphCheck } from '../ralph/index.js'
import type { LoopConfig } from './types.js'

export const DEFAULT_OUTPUT_CAP = 1024 * 1024
export const DEFAULT_COMPLETION_TAG = 'COMPLETE'
export const DEFAULT_KILL_GRACE_MS = 3000

/** `20260102-030405`: a UTC timestamp safe in file and branch names. */
const stamp = (now: number): string =>
  new Date(now).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)

/** `<system temp>/ralph-action/<name>-<UTC timestamp>-<pid>`: outside any work tree. */
export function defaultRecordDir(name: string, now = Date.now()): string {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-') || 'loop'
  return path.join(tmpdir(), 'ralph-action', `${safe}-${stamp(now)}-${process.pid}`)
}

/** `ralph/<name>-<UTC timestamp>`, with characters git refuses in branch names replaced. */
export function defaultBranch(name: string, now: number): string {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '') || 'loop'
  return `ralph/${safe}-${stamp(now)}`
}

/**
 * A full LoopConfig from the settings that differ. Gates default to the ralph's `checks:` and the tag to
 * its `completion_tag:` (then 'COMPLETE'); the record goes under the system temp dir.
 */
export function loopConfig(
  settings: Pick<LoopConfig, 'ralph' | 'projectRoot'> & Partial<LoopConfig>
): LoopConfig {
  return {
    userArgs: {},
    stopOnError: false,
    delaySeconds: 0,
    checks: settings.ralph.checks,
    completionTag: settings.ralph.completionTag ?? DEFAULT_COMPLETION_TAG,
    commit: false,
    maxFileBytes: DEFAULT_MAX_FILE_BYTES,
    recordDir: defaultRecordDir(settings.ralph.name),
    outputCap: DEFAULT_OUTPUT_CAP,
    breaker: { ...DEFAULT_BREAKER },
    presets: settings.ralph.presets ?? true,
    parallelChecks: settings.ralph.checksParallel ?? false,
    ...(settings.ralph.protected ? { protect: settings.ralph.protected } : {}),
    ...(settings.ralph.setup ? { setup: settings.ralph.setup } : {}),
    ...(settings.ralph.verify ? { verify: settings.ralph.verify } : {}),
    ...settings
  }
}

/** Gate settings that cannot work together, as one line naming the fix; undefined when they can. */
export function gateSettingsProblem(
  config: Pick<LoopConfig, 'checks' | 'baseline' | 'skipIfGreen'>
): string | undefined {
  if (!config.skipIfGreen) return undefined
  if (config.checks.length === 0)
    return "skip-if-green needs gates (the ralph's checks:, --check or the checks input): without them nothing can be found green."
  if (config.baseline === false)
    return 'skip-if-green needs the baseline (the gates run once before iteration 1), which is turned off: turn it back on, or drop skip-if-green.'
  return undefined
}

/** Characters of a command kept in the name of the gate it is (the whole command is in the record). */
const GATE_NAME_CHARS = 40

/**
 * Gates given beside a ralph (the CLI's `--check`, the action's `checks` input), named by their command
 * (`npm test`; a long one cut to 40 characters), " (2)" added where two would share a name or a log file.
 */
export function addedChecks(commands: string[], existing: RalphCheck[]): RalphCheck[] {
  const taken = new Set(existing.flatMap(c => [c.name, safeFileName(c.name)]))
  const checks: RalphCheck[] = []
  for (const run of commands) {
    const flat = run.replace(/\s+/g, ' ').trim() || 'check'
    const base = flat.length > GATE_NAME_CHARS ? `${flat.slice(0, GATE_NAME_CHARS - 1)}…` : flat
    let name = base
    for (let n = 2; taken.has(name) || taken.has(safeFileName(name)); n++) name = `${base} (${n})`
    taken.add(name).add(safeFileName(name))
    checks.push({ name, run, timeout: DEFAULT_CHECK_TIMEOUT })
  }
  return checks
}
