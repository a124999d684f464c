// A usage limit the agent hit: whether the loop can wait for it to lift, and for how long.

/** Without a time budget, the longest wait for a usage limit to lift (a GitHub-hosted job's own limit). */
export const MAX_USAGE_LIMIT_WAIT_MS = 6 * 3600 * 1000
/** Past the announced reset, a little more, so the next request does not arrive a moment too early. */
const USAGE_LIMIT_MARGIN_MS = 2000

/** Whether the loop can wait for a usage limit to lift, and for how long; or why it cannot. */
export function usageLimitWait(
  failure: { message: string; resetsAt?: string },
  now: number,
  deadline: number | undefined
): { waitMs: number; detail: string } | { stop: string } {
  const said = failure.message
  if (failure.resetsAt === undefined)
    return { stop: `the agent hit a usage limit and did not say when it lifts (${said})` }
  const resetsAt = Date.parse(failure.resetsAt)
  const waitMs = Math.max(0, resetsAt - now) + USAGE_LIMIT_MARGIN_MS
  if (deadline !== undefined && now + waitMs >= deadline)
    return {
      stop: `the agent hit a usage limit that lifts at ${failure.resetsAt}, after the time budget ends (${new Date(deadline).toISOString()}): ${said}`
    }
  if (deadline === undefined && waitMs > MAX_USAGE_LIMIT_WAIT_MS)
    return {
      stop: `the agent hit a usage limit that lifts at ${failure.resetsAt}, more than 6 hours away (set a longer --max-time to wait for it): ${said}`
    }
  return { waitMs, detail: `the agent hit a usage limit; waiting until it lifts at ${failure.resetsAt}` }
}
