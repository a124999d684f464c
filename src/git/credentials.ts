// actions/checkout leaves its token where any process in the job can read it: v4/v5 as
// `http.<server>/.extraheader = AUTHORIZATION: basic …` in .git/config, v6+ in $RUNNER_TEMP/git-credentials-<uuid>.config
// pulled in by `includeIf.gitdir:<repo>/.git.path` (and `…/.git/worktrees/*`, and `/github/…` paths for
// containers). For the agent's run both are taken away, and put back byte for byte afterwards.
import { randomUUID } from 'node:crypto'
import { chmod, mkdir, readFile, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises'
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

export interface HiddenCredentials {
  /** What was taken away, for the log (names and paths, never values). Empty when nothing was persisted. */
  removed: string[]
  /** Puts everything back. Safe to call more than once; never throws (problems are reported). */
  restore(): Promise<RestoreReport>
}

interface ConfigEntry {
  key: string
  value: string
}

interface ConfigFileChange {
  file: string
  original: Buffer
  mode: number
  /** The file as this module left it: if it still reads so at restore time, nobody else touched it. */
  redacted: Buffer
  entries: ConfigEntry[]
}

interface HiddenFile {
  file: string
  content: Buffer
  mode: number
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
        await mkdir(path.dirname(hidden.file), { recursive: true })
        await writeFile(hidden.file, hidden.content, { mode: hidden.mode })
        await chmod(hidden.file, hidden.mode)
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
            hiddenFiles.push({ file: target, content, mode: (await stat(target)).mode & 0o7777 })
            await unlink(target)
            removed.push(`credentials file ${target}`)
          }
        }
      }
      if (found.length === 0) continue
      const original = await readFile(file)
      const mode = (await stat(file)).mode & 0o7777
      const change: ConfigFileChange = { file, original, mode, redacted: original, entries: found }
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
  return { removed, restore }
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
    await restoreAndReport(hidden, options, true)
    throw error
  }
  await restoreAndReport(hidden, options, false)
  return result
}

async function restoreAndReport(
  hidden: HiddenCredentials,
  options: CredentialOptions,
  runFailed: boolean
): Promise<void> {
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
  if (report.problems.length === 0) return
  const message = `The persisted git credentials were not fully restored: ${report.problems.join('; ')}`
  if (runFailed) options.log?.(message)
  else throw new Error(message)
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
    await writeAtomically(change.file, change.original, change.mode)
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
