// The budget's windows: UTC calendar days and months, named by their keys (`2026-12-01`, `2026-12`).

export type WindowKind = 'day' | 'month'

export const WINDOW_KINDS: readonly WindowKind[] = ['day', 'month']

export const DAY_KEY = /^(\d{4})-(\d{2})-(\d{2})$/
export const MONTH_KEY = /^(\d{4})-(\d{2})$/

/** `YYYY-MM-DD` of the UTC day `at` falls in. */
export function dayKey(at: Date): string {
  return at.toISOString().slice(0, 10)
}

/** `YYYY-MM` of the UTC month `at` falls in. */
export function monthKey(at: Date): string {
  return at.toISOString().slice(0, 7)
}

export function windowKey(kind: WindowKind, at: Date): string {
  return kind === 'day' ? dayKey(at) : monthKey(at)
}

/** When the window `at` falls in ends (the next one starts). */
export function resetsAt(kind: WindowKind, at: Date): Date {
  const y = at.getUTCFullYear()
  const m = at.getUTCMonth()
  return kind === 'day' ? new Date(Date.UTC(y, m, at.getUTCDate() + 1)) : new Date(Date.UTC(y, m + 1, 1))
}

/** When the window `at` falls in started. */
export function startOf(kind: WindowKind, at: Date): Date {
  const y = at.getUTCFullYear()
  const m = at.getUTCMonth()
  return kind === 'day' ? new Date(Date.UTC(y, m, at.getUTCDate())) : new Date(Date.UTC(y, m, 1))
}

/** `at 00:00 UTC` (a day's, tomorrow) or `on 2027-01-01 at 00:00 UTC` (a month's). */
export function resetPhrase(kind: WindowKind, at: Date): string {
  return kind === 'day' ? 'at 00:00 UTC' : `on ${dayKey(resetsAt('month', at))} at 00:00 UTC`
}

/** Whether `key` names a real day or month (not 2026-02-30). */
export function validWindowKey(kind: WindowKind, key: string): boolean {
  const m = (kind === 'day' ? DAY_KEY : MONTH_KEY).exec(key)
  if (!m) return false
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, kind === 'day' ? Number(m[3]) : 1))
  return windowKey(kind, date) === key
}
