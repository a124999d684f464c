// Clocks for the loop's `clock` port. Budgets are measured against the clock, so a test that must not race
// the machine's load decides when time moves: a fake clock moves only when told, and a paused clock stands
// still until the process under test has reached the moment the test is about.
import type { Clock } from '../../src/loop/index.js'

export interface FakeClock extends Clock {
  /** Moves time on by `ms`, firing every timer that falls due. */
  advance(ms: number): void
}

/** Time is a number that moves only by advance(). */
export function fakeClock(start = 1_700_000_000_000): FakeClock {
  let now = start
  const timers: { at: number; fn: () => void }[] = []
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const timer = { at: now + ms, fn }
      timers.push(timer)
      return () => {
        const i = timers.indexOf(timer)
        if (i >= 0) timers.splice(i, 1)
      }
    },
    advance(ms) {
      now += ms
      for (const timer of timers.filter(t => t.at <= now)) {
        timers.splice(timers.indexOf(timer), 1)
        timer.fn()
      }
    }
  }
}

export interface PausedClock extends Clock {
  /** Starts the time: from here on it runs like the wall clock, from the instant it was paused at. */
  resume(): void
}

/**
 * Real time that stands still until resume(): a budget of one second then means one second of the state the
 * test waited for (an agent that has started, a check that is running), however long the loaded machine
 * took to get there.
 */
export function pausedClock(): PausedClock {
  const pausedAt = Date.now()
  let offset: number | undefined // wall time minus clock time, once running
  let held: { due: number; fn: () => void; cancelled: boolean; cancel?: () => void }[] = []
  const now = (): number => (offset === undefined ? pausedAt : Date.now() - offset)
  const schedule = (fn: () => void, ms: number): (() => void) => {
    const timer = setTimeout(fn, Math.max(0, ms))
    return () => clearTimeout(timer)
  }
  return {
    now,
    setTimeout(fn, ms) {
      if (offset !== undefined) return schedule(fn, ms)
      const timer: (typeof held)[number] = { due: now() + ms, fn, cancelled: false }
      held.push(timer)
      return () => {
        timer.cancelled = true
        timer.cancel?.()
      }
    },
    resume() {
      if (offset !== undefined) return
      offset = Date.now() - pausedAt
      for (const timer of held) if (!timer.cancelled) timer.cancel = schedule(timer.fn, timer.due - now())
      held = []
    }
  }
}
