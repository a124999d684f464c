// The timings delivery retries with: production values, the test-only variables, the jittered backoff, the
// deadline, retry-after, and the margin of max-time kept for delivery.
import { expect, test } from '@jest/globals'
import { backoffMs, mayRetry, retryAfterMs, retryTiming } from '../../src/github/retry.js'
import { deliveryMarginSeconds } from '../../src/action/plan.js'

test('production timings: 4 attempts from 1 s, 20 s per request, a push cut after 60 s still, 5 min per upload', () => {
  expect(retryTiming({})).toEqual({
    attempts: 4,
    baseDelayMs: 1000,
    maxDelayMs: 15_000,
    msPerSecond: 1000,
    requestTimeoutMs: 20_000,
    uploadTimeoutMs: 300_000,
    pushStallSeconds: 60,
    boundMs: 120_000
  })
})

test('the test-only variables shrink the waits and the timeouts, and nothing else; bad values are ignored', () => {
  const t = retryTiming({ RALPH_ACTION_TEST_WAIT_SCALE: '0.01', RALPH_ACTION_TEST_TIMEOUT_MS: '2500' })
  expect(t).toMatchObject({ attempts: 4, baseDelayMs: 10, msPerSecond: 10, requestTimeoutMs: 2500 })
  expect(t.pushStallSeconds).toBe(3)
  expect(t.uploadTimeoutMs).toBe(10_000)
  // A scale above 1 cannot make waits longer than production; junk is production.
  expect(retryTiming({ RALPH_ACTION_TEST_WAIT_SCALE: '50' }).baseDelayMs).toBe(1000)
  expect(retryTiming({ RALPH_ACTION_TEST_WAIT_SCALE: 'fast', RALPH_ACTION_TEST_TIMEOUT_MS: '-1' })).toEqual(
    retryTiming({})
  )
})

test('the backoff doubles, capped, and half of each wait is random', () => {
  const t = retryTiming({})
  expect([1, 2, 3, 4, 5, 6].map(n => backoffMs(t, n, () => 0))).toEqual([500, 1000, 2000, 4000, 7500, 7500])
  expect([1, 2, 3].map(n => backoffMs(t, n, () => 0.999999))).toEqual([1000, 2000, 4000])
  // Two jobs that failed together do not retry together.
  const waits = new Set(Array.from({ length: 20 }, () => backoffMs(t, 3)))
  expect(waits.size).toBeGreaterThan(1)
})

test('a retry starts while attempts are left and it begins before the deadline, however long the server asks', () => {
  const t = retryTiming({})
  const now = 1_000_000
  expect(mayRetry(t, { attempt: 1, waitMs: 1000, deadline: now + 1000 }, now)).toBe(true)
  expect(mayRetry(t, { attempt: 1, waitMs: 1001, deadline: now + 1000 }, now)).toBe(false)
  expect(mayRetry(t, { attempt: 4, waitMs: 0, deadline: now + 60_000 }, now)).toBe(false)
  expect(mayRetry(t, { attempt: 3, waitMs: 40 * 60_000, deadline: now + 50 * 60_000 }, now)).toBe(true)
})

test('retry-after: seconds or an HTTP date, in the scale of the timings', () => {
  const now = Date.parse('2026-11-26T10:00:00Z')
  expect(retryAfterMs(retryTiming({}), '60', now)).toBe(60_000)
  expect(retryAfterMs(retryTiming({}), 'Thu, 26 Nov 2026 10:00:30 GMT', now)).toBe(30_000)
  expect(retryAfterMs(retryTiming({ RALPH_ACTION_TEST_WAIT_SCALE: '0.01' }), '60', now)).toBe(600)
  expect(retryAfterMs(retryTiming({}), undefined, now)).toBeUndefined()
  expect(retryAfterMs(retryTiming({}), 'soon', now)).toBeUndefined()
})

test('the loop keeps a tenth of max-time for delivery, at most 5 minutes', () => {
  expect(deliveryMarginSeconds(60 * 60)).toBe(300)
  expect(deliveryMarginSeconds(30 * 60)).toBe(180)
  expect(deliveryMarginSeconds(50)).toBe(5)
})
