// How the workspace commits, read from git's config once: the identity it falls back to where none is set
// (fresh CI runners: a commit must not fail for that), and whether commits are signed.
import type { GitResult } from './git.js'

// Used when git has no identity configured (fresh CI runners): the commit must not fail for that.
const FALLBACK_IDENTITY = { name: 'ralph-action', email: 'ralph-action@users.noreply.github.com' }

/** git's boolean config values (git_parse_maybe_bool); a key given without `=` is true. */
function gitBool(value: string | undefined): boolean {
  if (value === undefined) return true
  const v = value.trim().toLowerCase()
  if (['true', 'yes', 'on'].includes(v)) return true
  if (['false', 'no', 'off', ''].includes(v)) return false
  return Number.parseInt(v, 10) !== 0
}

/** What a commit needs besides its tree: the environment (the fallback identity) and whether it is signed. */
export interface CommitSettings {
  env: NodeJS.ProcessEnv
  sign: boolean
}

/** The identity fallback and whether commits are signed, from `git` (one call). */
export async function readCommitSettings(
  git: (args: string[]) => Promise<GitResult>
): Promise<CommitSettings> {
  const out = await git(['config', '-z', '--get-regexp', '^(user\\.(name|email)|commit\\.gpgsign)$'])
  const values = new Map<string, string | undefined>()
  for (const entry of out.stdout.split('\0')) {
    if (!entry) continue
    const newline = entry.indexOf('\n')
    // The last one wins, as in git; a key without a value has none.
    if (newline === -1) values.set(entry.toLowerCase(), undefined)
    else values.set(entry.slice(0, newline).toLowerCase(), entry.slice(newline + 1))
  }
  const env: NodeJS.ProcessEnv = {}
  if (!values.get('user.name')?.trim()) {
    env.GIT_AUTHOR_NAME = process.env.GIT_AUTHOR_NAME ?? FALLBACK_IDENTITY.name
    env.GIT_COMMITTER_NAME = process.env.GIT_COMMITTER_NAME ?? FALLBACK_IDENTITY.name
  }
  if (!values.get('user.email')?.trim()) {
    env.GIT_AUTHOR_EMAIL = process.env.GIT_AUTHOR_EMAIL ?? FALLBACK_IDENTITY.email
    env.GIT_COMMITTER_EMAIL = process.env.GIT_COMMITTER_EMAIL ?? FALLBACK_IDENTITY.email
  }
  const sign = values.has('commit.gpgsign') && gitBool(values.get('commit.gpgsign'))
  return { env, sign }
}
