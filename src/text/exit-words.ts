// How a program ended, in words: `exit 1`, or `killed by SIGKILL` (never `exit null`).

export interface ProcessExit {
  exitCode: number | null
  /** The signal that ended it, when one did. */
  signal?: string | null
}

/** `exit N`, `killed by SIGX`, or `did not start` when it has neither. */
export function exitWords(run: ProcessExit): string {
  if (run.exitCode !== null) return `exit ${run.exitCode}`
  return run.signal ? `killed by ${run.signal}` : 'did not start'
}
