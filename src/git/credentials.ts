// actions/checkout leaves its token where any process in the job can read it: v4/v5 as
// `http.<server>/.extraheader = AUTHORIZATION: basic …` in .git/config, v6+ in $RUNNER_TEMP/git-credentials-<uuid>.config
// pulled in by `includeIf.gitdir:<repo>/.git.path` (and `…/.git/worktrees/*`, and `/github/…` paths for
// containers). For the agent's run both are taken away, and put back byte for byte afterwards. Room for what is
// put back is kept before the run: a file of as many zero bytes beside each one (0600), written over and renamed
// into place afterwards, so a disk the agent filled cannot keep the credential out. The token itself stays in
// memory, and in a file only for post when the caller keeps one (HiddenCredentials.held).
import { randomUUID } from 'node:crypto'
import { constants } from 'node:fs'
import { chmod, mkdir, open, readFile, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { GitRepo } from './repo.js'

/** The credentials file actions/checkout v6+ writes (its own pattern, from git-auth-helper.ts). */
const CHECKOUT_CREDENTIALS_FILE = /git-credentials-[0-9a-f-]+\.config$/i
const EXTRA_HEADER_KEY = /^http\.(.*\.)?extraheader$/
const INCLUDE_KEY = /^include(if\..*)?\.path$/
const AUTH_VALUE = /^\s*authorization\s*:/i
// A value pattern for `git config --unset-all` that matches the header without the token in argv.
const AUTH_VALUE_PATTERN = '^ *[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn] *:'

export interface CredentialOptions {
  /**
   * What to do when a config file was changed while the credentials were away (by the agent or a tool it ran):
   * `discard` (default) puts the file back exactly as found, so nothing the agent wrote into .git/config (a
   * hook path, a URL rewrite, a proxy) outlives its run; `keep` keeps those changes and adds the
   * credentials back into the changed file.
   */
  onConfigChange?: 'discard' | 'keep'
  log?: (message: string) => void
}

export interface RestoreReport {
  /** Config files that had changed while the credentials were away (discarded or kept, as asked). */
  changedConfigFiles: string[]
  /** What could not be put back; empty when the runner is as it was found. */
  problems: string[]
}

/** A file to put back: what `file` held (`content`, base64) with its `mode`, and its `reserve` beside it. */
export interface HeldCredential {
  file: string
  /** A file of as many zero bytes in `file`'s folder: the room to put `content` back in, with a rename. */
  reserve: string
  mode: number
  content: string
}

export interface HiddenCredentials {
  /** What was taken away, for the log (names and paths, never values). Empty when nothing was persisted. */
  removed: string[]
  /** What restore() puts back, for a caller that keeps it for post (it holds the token: keep it private). */
  held: HeldCredential[]
  /** Puts everything back. Safe to call more than once; never throws (problems are reported). */
  restore(): Promise<RestoreReport>
}

interface ConfigEntry {
  key: string
  value: string
}

/** Where a file goes back, and the room kept for it. */
interface Place {
  file: string
  reserve: string
  mode: number
}

interface ConfigFileChange extends Place {
  original: Buffer
  /** The file as this module left it: if it still reads so at restore time, nobody else touched it. */
  redacted: Buffer
  entries: ConfigEntry[]
}

interface HiddenFile extends Place {
  content: Buffer
}

/** Room for `content` beside `file` (zero bytes, 0600): putting it back needs no new space. */
async function reserveFor(file: string, content: Buffer): Promise<string> {
  const reserve = path.join(path.dirname(file), `.ralph-credentials-${randomUUID()}`)
  await writeFile(reserve, Buffer.alloc(content.length), { mode: 0o600, flag: 'wx' })
  return reserve
}

/** Removes the persisted credentials now; `restore()` puts them back. Prefer withoutPersistedCredentials. */
export async function hidePersistedCredentials(
  workTree: string,
  options: CredentialOptions = {}
): Promise<HiddenCredentials> {
  const git = new GitRepo(workTree)
  const changes: ConfigFileChange[] = []
  const hiddenFiles: HiddenFile[] = []
  const removed: string[] = []
  let restored: RestoreReport | undefined

  const restore = async (): Promise<RestoreReport> => {
    if (restored) return restored
    const report: RestoreReport = { changedConfigFiles: [], problems: [] }
    for (const hidden of hiddenFiles) {
      try {
        await putBack(hidden, hidden.content)
      } catch (error) {
        report.problems.push(`could not put back ${hidden.file}: ${(error as Error).message}`)
      }
    }
    for (const change of [...changes].reverse()) {
      try {
        await restoreConfigFile(git, change, options.onConfigChange ?? 'discard', report)
      } catch (error) {
        report.problems.push(`could not restore ${change.file}: ${(error as Error).message}`)
      }
    }
    restored = report
    return report
  }

  try {
    const seen = new Set<string>()
    for (const file of await configFiles(git)) {
      const entries = await listConfig(git, file)
      const found: ConfigEntry[] = []
      for (const entry of entries) {
        if (EXTRA_HEADER_KEY.test(entry.key) && AUTH_VALUE.test(entry.value)) {
          found.push(entry)
        } else if (INCLUDE_KEY.test(entry.key)) {
          const target = resolveInclude(file, entry.value)
          const isCheckoutFile = CHECKOUT_CREDENTIALS_FILE.test(entry.value)
          if (!isCheckoutFile && !(await holdsAuthHeader(git, target))) continue
          found.push(entry)
          if (seen.has(target)) continue
          seen.add(target)
          const content = await readFile(target).catch(() => undefined)
          // Only checkout's own files are moved away; someone else's file stays, unreferenced, where it is.
          if (content && isCheckoutFile) {
            const mode = (await stat(target)).mode & 0o7777
            hiddenFiles.push({ file: target, reserve: await reserveFor(target, content), mode, content })
            await unlink(target)
            removed.push(`credentials file ${target}`)
          }
        }
      }
      if (found.length === 0) continue
      const original = await readFile(file)
      const mode = (await stat(file)).mode & 0o7777
      const reserve = await reserveFor(file, original)
      const change: ConfigFileChange = { file, reserve, original, mode, redacted: original, entries: found }
      changes.push(change)
      for (const entry of dedupeKeys(found)) {
        if (EXTRA_HEADER_KEY.test(entry.key)) {
          await git.exec(['config', '--file', file, '--unset-all', entry.key, AUTH_VALUE_PATTERN])
        } else {
          await git.exec(['config', '--file', file, '--fixed-value', '--unset-all', entry.key, entry.value])
        }
        removed.push(`${entry.key} in ${file}`)
      }
      change.redacted = await readFile(file)
    }
  } catch (error) {
    await restore()
    throw error
  }
  if (removed.length > 0)
    options.log?.(`Removed the persisted credentials for the agent's run: ${removed.join('; ')}.`)
  const held = [
    ...hiddenFiles.map(({ content, ...place }) => ({ ...place, content: content.toString('base64') })),
    ...changes.map(({ file, reserve, mode, original }) => ({
      file,
      reserve,
      mode,
      content: original.toString('base64')
    }))
  ]
  return { removed, held, restore }
}

/**
 * `content` put back in `place.file`, with its mode: written over its reserve, which is then renamed into place
 * (no new space needed). A reserve that is gone, or is not the plain file it was made as (a link, another
 * size), is not written: the file is written anew instead.
 */
async function putBack(place: Place, content: Buffer): Promise<void> {
  const reserve = await open(place.reserve, constants.O_RDWR | constants.O_NOFOLLOW).catch(() => undefined)
  if (reserve) {
    let ready = false
    try {
      const s = await reserve.stat()
      if (s.isFile() && s.nlink === 1 && s.size === content.length) {
        await reserve.write(content, 0, content.length, 0)
        await reserve.chmod(place.mode)
        ready = true
      }
    } finally {
      await reserve.close()
    }
    if (ready) return rename(place.reserve, place.file)
  }
  await rm(place.reserve, { force: true })
  await mkdir(path.dirname(place.file), { recursive: true })
  await writeAtomically(place.file, content, place.mode)
}

/**
 * Puts back what main held and could not put back (post, after a main that was killed or failed): answers the
 * files put back and what could not be. One whose reserve is gone was put back already, and is left as it is.
 */
export async function putBackHeld(
  held: readonly HeldCredential[]
): Promise<{ putBack: string[]; problems: string[] }> {
  const done: string[] = []
  const problems: string[] = []
  for (const one of held) {
    try {
      if (
        !(await stat(one.reserve).then(
          () => true,
          () => false
        ))
      )
        continue
      await putBack(one, Buffer.from(one.content, 'base64'))
      done.push(one.file)
    } catch (error) {
      problems.push(`could not put back ${one.file}: ${(error as Error).message}`)
    }
  }
  return { putBack: done, problems }
}

/**
 * Runs `fn` (the agent's run) with the checkout's persisted credentials removed, and restores them in
 * `finally`, also when `fn` throws. A restore problem fails the call only when `fn` itself succeeded.
 */
export async function withoutPersistedCredentials<T>(
  workTree: string,
  fn: () => Promise<T>,
  options: CredentialOptions = {}
): Promise<T> {
  const hidden = await hidePersistedCredentials(workTree, options)
  let result: T
  try {
    result = await fn()
  } catch (error) {
    const problem = await restoreCredentials(hidden, options)
    if (problem) options.log?.(problem)
    throw error
  }
  const problem = await restoreCredentials(hidden, options)
  if (problem) throw new Error(problem)
  return result
}

/**
 * Puts the credentials back (`hidden.restore()`), saying through `log` when a config file had changed; answers
 * what could not be put back, in one line, or undefined.
 */
export async function restoreCredentials(
  hidden: HiddenCredentials,
  options: CredentialOptions = {}
): Promise<string | undefined> {
  const report = await hidden.restore()
  if (report.changedConfigFiles.length > 0) {
    options.log?.(
      `The git config changed during the run (${report.changedConfigFiles.join(', ')}): ${
        (options.onConfigChange ?? 'discard') === 'discard'
          ? 'put back as it was before the run'
          : 'kept, with the credentials added back'
      }.`
    )
  }
  if (report.problems.length === 0) return undefined
  return `The persisted git credentials were not fully restored: ${report.problems.join('; ')}`
}

async function restoreConfigFile(
  git: GitRepo,
  change: ConfigFileChange,
  onChange: 'discard' | 'keep',
  report: RestoreReport
): Promise<void> {
  const now = await readFile(change.file).catch(() => undefined)
  const untouched = now !== undefined && now.equals(change.redacted)
  if (!untouched) report.changedConfigFiles.push(change.file)
  if (untouched || now === undefined || onChange === 'discard') {
    await putBack(change, change.original)
    return
  }
  for (const entry of change.entries) {
    if (!EXTRA_HEADER_KEY.test(entry.key)) {
      await git.exec(['config', '--file', change.file, '--add', entry.key, entry.value])
      continue
    }
    // Like actions/checkout: a placeholder through argv, the secret written straight into the file.
    const placeholder = `ralph-placeholder-${randomUUID()}`
    await git.exec(['config', '--file', change.file, '--add', entry.key, placeholder])
    const text = await readFile(change.file, 'utf8')
    if (text.indexOf(placeholder) < 0 || text.indexOf(placeholder) !== text.lastIndexOf(placeholder))
      throw new Error(`the placeholder for ${entry.key} was not found once in ${change.file}`)
    await writeAtomically(
      change.file,
      Buffer.from(text.replace(placeholder, quoteConfigValue(entry.value))),
      change.mode
    )
  }
  // Kept with the credential added back: its room is not needed.
  await rm(change.reserve, { force: true })
}

/** The local config, the worktree's config, and every submodule's config under modules/. */
export async function configFiles(git: GitRepo): Promise<string[]> {
  const common = await git.commonDir()
  const files = [path.join(common, 'config'), await git.gitPath('config.worktree')]
  const walk = async (dir: string): Promise<void> => {
    const names = await readdir(dir, { withFileTypes: true }).catch(() => [])
    for (const entry of names) {
      if (!entry.isDirectory()) continue
      const sub = path.join(dir, entry.name)
      files.push(path.join(sub, 'config'))
      await walk(path.join(sub, 'modules'))
    }
  }
  await walk(path.join(common, 'modules'))
  const existing: string[] = []
  for (const file of new Set(files)) {
    if (
      await stat(file).then(
        s => s.isFile(),
        () => false
      )
    )
      existing.push(file)
  }
  return existing
}

async function listConfig(git: GitRepo, file: string): Promise<ConfigEntry[]> {
  const result = await git.exec(['config', '--file', file, '--null', '--list'])
  return result.stdout
    .split('\0')
    .filter(Boolean)
    .map(record => {
      const newline = record.indexOf('\n')
      return newline < 0
        ? { key: record, value: '' }
        : { key: record.slice(0, newline), value: record.slice(newline + 1) }
    })
}

async function holdsAuthHeader(git: GitRepo, file: string): Promise<boolean> {
  if (
    !(await stat(file).then(
      s => s.isFile(),
      () => false
    ))
  )
    return false
  const entries = await listConfig(git, file).catch(() => [])
  return entries.some(e => EXTRA_HEADER_KEY.test(e.key) && AUTH_VALUE.test(e.value))
}

function resolveInclude(configFile: string, value: string): string {
  if (value.startsWith('~/')) return path.join(os.homedir(), value.slice(2))
  return path.resolve(path.dirname(configFile), value)
}

function dedupeKeys(entries: ConfigEntry[]): ConfigEntry[] {
  const seen = new Set<string>()
  return entries.filter(e => {
    const id = EXTRA_HEADER_KEY.test(e.key) ? e.key : `${e.key}\0${e.value}`
    if (seen.has(id)) return false
    seen.add(id)
    return true
  })
}

/** A value as git writes it into a config file. */
function quoteConfigValue(value: string): string {
  if (!/^\s|\s$|[#;"\\\n]/.test(value)) return value
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`
}

async function writeAtomically(file: string, content: Buffer, mode: number): Promise<void> {
  const temp = `${file}.ralph-${randomUUID()}`
  try {
    await writeFile(temp, content, { mode })
    await chmod(temp, mode)
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}
