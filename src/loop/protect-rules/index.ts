// The rules `auto` grew in #37, and `editable`: each family is one pure rule over the start commit (its files, the
// texts of what is already protected); this file reads what they need from git and turns their answers into
// protect rules. protected.ts calls `moreRules` once when it resolves a run's protection.
import type { AutoFacts, BaseEntry, ProtectRule, Protection } from '../protect/index.js'
import {
  TEST_FILE_GLOBS,
  baseEntries,
  globMatches,
  insideTop,
  protectionFromRules,
  protectionOf,
  readBlobs,
  repositoryTop,
  ruleFor
} from '../protect/index.js'
import { editableRule } from './editable.js'
import { dataFiles, makeFiles, setupFiles, sourcedFiles, type JudgesFacts } from './read-by-judges.js'
import { installedPythonModules, testFolderShadowRules, topLevelShadowRules } from './shadows.js'
import { toolFolderRules } from './tool-folders.js'

export { editableRule }

/** Texts larger than this are not read for the names they give (a data file, a bundle). */
const MOST_TEXT = 256 * 1024
/** How many times what a newly protected file names is looked at (make includes a makefile that includes…). */
const ROUNDS = 4

/** The start commit's texts of `files` (those small enough to be read). */
async function textsOf(
  top: string,
  entries: ReadonlyMap<string, BaseEntry>,
  files: readonly string[]
): Promise<Map<string, string>> {
  const wanted = files.filter(
    f => entries.get(f)?.mode.startsWith('1006') || entries.get(f)?.mode === '100755'
  )
  const blobs = await readBlobs(
    top,
    wanted.map(f => entries.get(f)!.oid)
  )
  const texts = new Map<string, string>()
  for (const file of wanted) {
    const blob = blobs.get(entries.get(file)!.oid)
    if (blob && blob.length <= MOST_TEXT && !blob.includes(0)) texts.set(file, blob.toString('utf8'))
  }
  return texts
}

/**
 * The rules `auto` adds to `rules` (already `auto`'s and the setting's) for the run at `top` whose start commit's
 * files are `entries`.
 */
export async function moreRules(
  top: string,
  entries: ReadonlyMap<string, BaseEntry>,
  rules: readonly ProtectRule[],
  facts: AutoFacts
): Promise<ProtectRule[]> {
  const files = new Set(entries.keys())
  const added: ProtectRule[] = []
  const all = (): ProtectRule[] => [...rules, ...added]
  const ignores = [...files].filter(f => f === '.gitignore' || f.endsWith('/.gitignore'))
  added.push(...toolFolderRules(await textsOf(top, entries, ignores)))
  const roots = [...new Set(['', facts.projectDir])]
  if ([...files].some(f => f.endsWith('.py')))
    added.push(...topLevelShadowRules(files, roots, await installedPythonModules()))
  const isTest = (f: string): boolean => TEST_FILE_GLOBS.some(g => globMatches(g, f))
  let texts = new Map<string, string>()
  for (let round = 0; round < ROUNDS; round++) {
    const protectedFiles = [...files].filter(f => !texts.has(f) && ruleFor(all(), f, true))
    if (protectedFiles.length === 0) break
    texts = new Map([...texts, ...(await textsOf(top, entries, protectedFiles))])
    if (round === 0)
      added.push(...testFolderShadowRules(files, new Map([...texts].filter(([f]) => isTest(f))), roots))
    const judges: JudgesFacts = { files, texts, projectDir: facts.projectDir }
    const named = [
      ...sourcedFiles(judges).map(f => [f, 'auto: a file a protected script sources'] as const),
      ...makeFiles(judges).map(f => [f, 'auto: a file a protected makefile includes or runs'] as const),
      ...setupFiles(judges).map(f => [f, 'auto: a file a protected configuration names as setup'] as const),
      ...dataFiles(judges, new Set([...texts.keys()].filter(isTest))).map(
        f => [f, 'auto: a data file a protected test opens'] as const
      )
    ].filter(([f]) => !ruleFor(all(), f, true))
    for (const [glob, why] of new Map(named)) added.push({ glob, scope: 'base', why })
  }
  return added
}

/**
 * The run's protections: `protectionOf`'s (the setting's rules, `auto` expanded), with what `auto` grew (#37)
 * and `editable`'s rule; undefined when there is none (protection off and no `editable`).
 */
export async function protectionOfRun(
  config: Parameters<typeof protectionOf>[0] & { editable?: string[] },
  workTree: string,
  base: string
): Promise<Protection | undefined> {
  const protection = await protectionOf(config, workTree, base)
  const editable = config.editable ?? []
  const auto = (config.protect ?? []).includes('auto')
  if (!auto && editable.length === 0) return protection
  const top = protection?.top ?? (await repositoryTop(workTree))
  const rules = [...(protection?.rules ?? [])]
  if (auto) {
    const projectDir = insideTop(top, workTree) ?? ''
    rules.push(
      ...(await moreRules(top, await baseEntries(top, base), rules, { checks: config.checks, projectDir }))
    )
  }
  if (editable.length > 0) rules.push(editableRule(editable))
  return protectionFromRules(top, base, rules, protection?.guardrails)
}
