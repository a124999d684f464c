// Resolving protected paths: a setting (`auto`, globs) and the run's facts, against the start commit, become a
// Protection: its rules and every protected path of that commit, read from git's object store.
import path from 'node:path'
import { GitRepo } from '../../git/index.js'
import { splitNul } from '../../text/tree-path.js'
import { ruleFor } from './glob.js'
import { protectRules } from './rules.js'
import type { RalphCheck } from '../../ralph/index.js'
import type { AutoFacts, BaseEntry, ProtectRule, Protection } from './types.js'

const toPosix = (p: string): string => p.split(path.sep).join('/')

/** `dir` relative to the top, or undefined when it is outside it. */
export function insideTop(top: string, file: string): string | undefined {
  const rel = toPosix(path.relative(top, file))
  return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel
}

/** Every file (and link) of a commit, from git's object store: path → mode and blob. */
export async function baseEntries(top: string, base: string): Promise<Map<string, BaseEntry>> {
  const out = await new GitRepo(top).bytes(['ls-tree', '-r', '-z', '--full-tree', base])
  const entries = new Map<string, BaseEntry>()
  for (const record of splitNul(out)) {
    const tab = record.indexOf('\t')
    if (tab === -1) continue
    const [mode, type, oid] = record.slice(0, tab).split(' ')
    if (type === 'blob') entries.set(record.slice(tab + 1), { mode, oid })
  }
  return entries
}

/**
 * The protections of a run: `setting` (parseProtectSetting's list) resolved against the start commit `base`
 * of the repository whose top is `top`.
 */
export async function resolveProtection(
  top: string,
  base: string,
  setting: readonly string[],
  facts: AutoFacts
): Promise<Protection> {
  const all = await baseEntries(top, base)
  return protectionFromRules(top, base, protectRules(setting, facts, new Set(all.keys())), facts.guardrails)
}

/** The top of the repository holding `dir` (real path), by the hermetic git. */
export async function repositoryTop(dir: string): Promise<string> {
  const result = await new GitRepo(dir).exec(['rev-parse', '--show-toplevel'])
  return result.stdout.trim()
}

/** The protections of `rules` (already resolved, e.g. from status.json) against the start commit. */
export async function protectionFromRules(
  top: string,
  base: string,
  rules: readonly ProtectRule[],
  guardrails?: string
): Promise<Protection> {
  const paths = new Map<string, BaseEntry>()
  if (rules.length > 0)
    for (const [file, entry] of await baseEntries(top, base))
      if (file !== guardrails && ruleFor(rules, file, true)) paths.set(file, entry)
  return { top, base, rules: [...rules], paths, ...(guardrails !== undefined ? { guardrails } : {}) }
}

/**
 * The loop's protections (undefined when off): `setting` against the start commit, with what `auto` needs from
 * the ralph (its folder, unless it is a ralph-less run's stand-in; its guardrails file) and the gates.
 */
export async function protectionOf(
  config: {
    protect?: string[]
    ralph: { file: string; dir: string; guardrails?: string }
    checks: readonly Pick<RalphCheck, 'run'>[]
  },
  workTree: string,
  base: string
): Promise<Protection | undefined> {
  const setting = config.protect ?? []
  if (setting.length === 0 || setting.includes('none')) return undefined
  const top = await repositoryTop(workTree)
  const ralphDir = config.ralph.file !== '' ? insideTop(top, config.ralph.dir) : undefined
  const ralphFile = config.ralph.file !== '' ? insideTop(top, config.ralph.file) : undefined
  const guardrails = config.ralph.guardrails
    ? insideTop(top, path.resolve(workTree, config.ralph.guardrails))
    : undefined
  return resolveProtection(top, base, setting, {
    ...(ralphDir !== undefined ? { ralphDir } : {}),
    ...(ralphFile !== undefined ? { ralphFile } : {}),
    ...(guardrails !== undefined ? { guardrails } : {}),
    checks: config.checks,
    projectDir: insideTop(top, workTree) ?? ''
  })
}
