// What a CLI command is given: where it runs, its environment and its output (tests pass their own).
export interface CliIO {
  cwd: string
  env: NodeJS.ProcessEnv
  home: string
  stdout: (text: string) => void
  stderr: (text: string) => void
  /** A promise while stdout's reader is behind (the agent's output then waits); see outputRoomOf. */
  stdoutRoom?: () => Promise<void> | undefined
  /** Whether a human is at the terminal (the first Ctrl+C then finishes the iteration, as in ralphify). */
  interactive: boolean
}
