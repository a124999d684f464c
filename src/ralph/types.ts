// The RALPH.md contract: what a validated ralph is, what a problem with one looks like.

/** A command from frontmatter `commands:`; its output fills `{{ commands.<name> }}`. Runs without a shell. */
export interface RalphCommand {
  name: string
  run: string
  /** Seconds; the reference default is 60. */
  timeout: number
}

/** A gate from frontmatter `checks:` (ours, unknown to the reference runtime). Runs with `bash -c`. */
export interface RalphCheck {
  name: string
  run: string
  /** Seconds; default 600. */
  timeout: number
}

/** A ralph after validation. Only `body` is re-read every iteration (the reference re-reads the file). */
export interface Ralph {
  /** Absolute path of RALPH.md. */
  file: string
  /** Absolute path of the ralph's folder. */
  dir: string
  /** The folder's basename: `{{ ralph.name }}`. */
  name: string
  /** The agent command line as written. */
  agent: string
  /** The agent command shell-split (Python shlex rules), before any preset flags. */
  agentArgv: string[]
  commands: RalphCommand[]
  /** Declared positional arg names, in order. */
  args: string[]
  /** The reference's credit trailer: on unless `credit: false`. */
  credit: boolean
  /** `credit:` is written in the frontmatter (the action and `loop` add the trailer only when it says true). */
  creditWritten?: boolean
  // Our optional additions: the reference runtime ignores these keys, so ralphs stay portable.
  checks: RalphCheck[]
  /** `checks_parallel: true` — run the gates together (they must not share a build folder). */
  checksParallel?: boolean
  /** `completion_tag:` — the TAG in `<promise>TAG</promise>`; undefined = not set in frontmatter. */
  completionTag?: string
  /** `guardrails:` — a file (relative to the project root) whose content fills `{{ ralph.guardrails }}`. */
  guardrails?: string
  /** `presets: false` — run the agent exactly as written: no preset flags, output read as plain text. */
  presets?: boolean
  /** `protected:` — auto, none or globs: paths put back from the start commit before the gates (the action's). */
  protected?: string[]
  /** `editable:` — globs of the paths the agent may change; every other path is protected (#37). */
  editable?: string[]
  /** `setup:` — commands (bash) run before the baseline and on the clean checkout before its gates (npm ci). */
  setup?: string[]
  /** `verify:` — `clean` (the default with gates) re-runs passing gates on a clean checkout; `tree` does not. */
  verify?: 'clean' | 'tree'
}

/** One problem found in a ralph: printed as `file:line:column: message`. */
export interface RalphProblem {
  file: string
  /** 1-based; undefined when the problem has no position (e.g. a missing field). */
  line?: number
  column?: number
  message: string
  /** Exit code the reference runtime would use for this problem: 1 for config errors, 2 for usage errors. */
  exitCode: 1 | 2
  /**
   * For a warning, what it is: a key no runtime reads, a placeholder that names nothing (both silently change
   * a run: ralphify ignores them), or an arg placed inside a word of a command.
   */
  rule?: 'unknown-key' | 'names-nothing' | 'arg-in-word'
}

/** Thrown for bad input (a user's mistake, not our bug): the CLI prints `message` alone, no stack trace. */
export class RalphError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
    readonly problems: RalphProblem[] = []
  ) {
    super(message)
    this.name = 'RalphError'
  }
}

/** Values for the three placeholder kinds. A known kind with an unknown name renders as ''. */
export interface PlaceholderValues {
  commands: Record<string, string>
  args: Record<string, string>
  ralph: Record<string, string>
}

const FILE_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EEXIST: 'it already exists',
  ENOSPC: 'the disk is full',
  EROFS: 'the file system is read-only'
}

/** A file system error in words ("no such file or folder"), not errno jargon ("ENOENT: …"). */
export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code !== undefined && FILE_PROBLEMS[code]) return FILE_PROBLEMS[code]
  return error instanceof Error ? error.message : String(error)
}
