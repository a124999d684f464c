// Durations as people write them, for the CLI's --max-time and the action's time inputs: a number, or a
// number with a unit (90s, 2m, 1h). What a bare number means is the caller's: seconds on the CLI (as
// ralphify's --timeout), minutes in the action (as a job's timeout-minutes).

const UNIT_SECONDS: Record<string, number> = { s: 1, sec: 1, m: 60, min: 60, h: 3600 }

/** `90s`, `45m`, `2h`, `1.5` (in `bare` units) → seconds; undefined when it is not a positive duration. */
export function parseDuration(value: string, bare: 's' | 'm'): number | undefined {
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(s|sec|m|min|h)?$/i.exec(value.trim())
  if (!m) return undefined
  const seconds = Number(m[1]) * UNIT_SECONDS[(m[2] ?? bare).toLowerCase()]
  return seconds > 0 ? seconds : undefined
}
