// Amounts in the ledger are whole micro-dollars: sums of many runs' spend stay exact, so a window's limit is
// never crossed by a rounding error. A cost metered as a float is rounded up (what was spent is never made
// smaller); a limit or a grant is exact.

/** Whole micro-dollars (1 USD = 1,000,000). */
export type Micros = number

export const MICROS_PER_USD = 1_000_000

/** The most any amount in the ledger may be: a billion dollars, well inside exact integers. */
export const MAX_MICROS = 1e9 * MICROS_PER_USD

/** Dollars to micro-dollars; spend rounds up (fail closed), a limit or a grant rounds down. */
export function microsOf(usd: number, round: 'up' | 'down'): Micros {
  // An amount no meter could give (NaN, infinite) is the most there is when rounding up, nothing when down.
  if (Number.isNaN(usd) || usd === Infinity) return round === 'up' ? MAX_MICROS : 0
  if (usd <= 0) return 0
  const scaled = usd * MICROS_PER_USD
  // 0.29 * 1e6 is 289999.99999999994: a float a hair off a whole number is that number.
  const near = Math.round(scaled)
  const whole =
    Math.abs(scaled - near) < 1e-6 ? near : round === 'up' ? Math.ceil(scaled) : Math.floor(scaled)
  return Math.min(MAX_MICROS, whole)
}

export function usdOf(micros: Micros): number {
  return micros / MICROS_PER_USD
}

/** `$1.25`; under a cent (but not nothing), four places: `$0.0040`. */
export function formatUsd(micros: Micros): string {
  const usd = usdOf(micros)
  return micros > 0 && micros < 10_000 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`
}

/** A limit as people write it: `$20`, `$2.50`, `$0.125` (no trailing zeros past the cents). */
export function formatLimit(micros: Micros): string {
  const usd = usdOf(micros)
  if (micros % MICROS_PER_USD === 0) return `$${usd}`
  const cents = usd.toFixed(2)
  return Number(cents) === usd ? `$${cents}` : `$${Number(usd.toFixed(6))}`
}
