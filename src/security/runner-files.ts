// The runner's file commands (GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STATE, GITHUB_STEP_SUMMARY):
// whoever appends to them steers every later step, this action's post step included (an LD_PRELOAD in
// GITHUB_ENV runs in a process that holds the tokens). Their variables never reach the loop's processes;
// meanwhile the files are closed to other users (the agent's, with isolation), and what a process of our own
// user wrote into them during the loop is cut back afterwards.
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { RUNNER_FILE_COMMANDS } from './env.js'

export interface RunnerFilesGuard {
  /** Puts every file back as it was before the loop; answers one sentence per file that had changed. */
  restore(): string[]
}

/** Remembers the files named by the job's GITHUB_ENV & co.; with `close`, no other user may read them meanwhile. */
export function guardRunnerFiles(env: NodeJS.ProcessEnv, options: { close: boolean }): RunnerFilesGuard {
  const saved: { name: string; file: string; content: Buffer; mode: number }[] = []
  for (const name of RUNNER_FILE_COMMANDS) {
    const file = env[name]
    if (!file) continue
    try {
      const mode = statSync(file).mode & 0o7777
      saved.push({ name, file, content: readFileSync(file), mode })
      if (options.close) chmodSync(file, mode & 0o700)
    } catch {
      // Not there (a runner that does not set it, or a local run): nothing to guard.
    }
  }
  return {
    restore: () => {
      const changed: string[] = []
      for (const { name, file, content, mode } of saved) {
        let now: Buffer | undefined
        try {
          now = readFileSync(file)
        } catch {
          now = undefined
        }
        if (!now || !now.equals(content)) {
          writeFileSync(file, content)
          const added =
            now && now.subarray(0, content.length).equals(content) ? now.length - content.length : 0
          changed.push(
            added > 0
              ? `${added} bytes appended to ${name} during the loop were cut back`
              : `${name} was changed during the loop and was put back as it was`
          )
        }
        try {
          chmodSync(file, mode)
        } catch {
          // Gone meanwhile: written again above.
        }
      }
      return changed
    }
  }
}
