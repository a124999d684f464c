// What a test file needs to run an @actions/* client in jest's own process: the stand-ins' variables set in
// process.env and put back after the file, and @actions/core's workflow commands kept off jest's output.
import { jest } from '@jest/globals'

/** Variables set for a test file: `restore` puts each back as it was before its first `set` (or deletes it). */
export class SavedEnv {
  private readonly saved: Record<string, string | undefined> = {}

  set(vars: Record<string, string>): void {
    for (const [key, value] of Object.entries(vars)) {
      if (!(key in this.saved)) this.saved[key] = process.env[key]
      process.env[key] = value
    }
  }

  restore(): void {
    for (const [key, value] of Object.entries(this.saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
      delete this.saved[key]
    }
  }
}

/** @actions/core writes ::debug:: workflow commands to stdout; the runner hides them, jest would not. */
export function quietStdout(): void {
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true)
}
