// The shapes of protected paths, shared with the loop's contract (loop/types.ts names ProtectRule and Revert):
// this file imports nothing, so everything above may import it without a circle.

/** `scope: 'all'`: every path matching is the base's (a new one is removed); `'base'`: only paths the start commit has. */
export interface ProtectRule {
  glob: string
  scope: 'all' | 'base'
  /** Why it is protected, in words (`auto: a test file`). */
  why: string
  /** Globs of paths it leaves alone (`editable`: every path but these). */
  except?: string[]
}

/** What the start commit holds at a protected path. */
export interface BaseEntry {
  /** git's mode: 100644, 100755 or 120000 (a link). */
  mode: string
  /** The blob's object id. */
  oid: string
}

/** A protected path put back: what the agent had done to it. */
export interface Revert {
  /** A path string (see text/tree-path.ts): a name need not be UTF-8; a log shows it with showPath. */
  path: string
  /** changed, deleted, replaced by a link, replaced by a folder, its mode changed, added (new in a protected place)… */
  why: string
}

/** The protections of one run: its rules, resolved against the start commit. */
export interface Protection {
  /** The repository's top folder (real path); every path here is relative to it, with `/` (path strings). */
  top: string
  /** The start commit: what protected paths are put back to. */
  base: string
  rules: ProtectRule[]
  /** Every protected path of the start commit (regular files and links; gitlinks are never protected). */
  paths: Map<string, BaseEntry>
  /** The guardrails file: the agent is asked to write it, so it is never protected. */
  guardrails?: string
}

/** What `auto` needs to know about the run. */
export interface AutoFacts {
  /** The ralph's folder, relative to the top (undefined: a ralph-less run). */
  ralphDir?: string
  /** Its RALPH.md, relative to the top: all that is protected of a ralph whose folder is the project's. */
  ralphFile?: string
  /** The guardrails file, relative to the top: the agent is asked to write it, so it is never protected. */
  guardrails?: string
  /** The gates (their command lines), and the folder they run in (relative to the top, '' for the top). */
  checks: readonly { run: string }[]
  projectDir: string
}

/** A protected path could not be put back: the gates must not judge this tree. */
export class ProtectedPathError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ProtectedPathError'
  }
}
