import { BoundedCapture } from '../../src/proc/capture.js'

/** Feeds `data` in pieces of the given sizes (cycled) and returns what was kept. */
function capture(data: Buffer, limit: number, sizes: number[]) {
  const c = new BoundedCapture(limit)
  for (let at = 0, i = 0; at < data.length; i++) {
    const n = sizes[i % sizes.length]
    c.push(data.subarray(at, at + n))
    at += n
  }
  return c.result()
}

const bytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + 3) % 256))

describe('BoundedCapture', () => {
  test('keeps everything, as one piece, while the output fits the limit', () => {
    const data = bytes(100)
    const r = capture(data, 100, [7])
    expect(r).toEqual({ head: data, tail: Buffer.alloc(0), totalBytes: 100, truncated: false })
  })

  test.each([
    [10, [1]],
    [10, [3, 11, 2]],
    [11, [64]],
    [1000, [1, 999, 5000, 3]],
    [4097, [4096, 1, 8191]],
    [65536, [65536, 100, 65535, 70000]]
  ])('keeps the first and the last half of a larger output (limit %i, pieces %j)', (limit, sizes) => {
    const data = bytes(150_000)
    const r = capture(data, limit, sizes)
    const headLen = Math.floor(limit / 2)
    expect(r.truncated).toBe(true)
    expect(r.totalBytes).toBe(data.length)
    // Compared as hex: jest's toEqual walks a Buffer byte by byte, which is slow at this size.
    expect(r.head.toString('hex')).toBe(data.subarray(0, headLen).toString('hex'))
    expect(r.tail.toString('hex')).toBe(data.subarray(data.length - (limit - headLen)).toString('hex'))
  })

  test('with a limit of 0 it only counts', () => {
    const r = capture(bytes(10), 0, [3])
    expect(r).toEqual({ head: Buffer.alloc(0), tail: Buffer.alloc(0), totalBytes: 10, truncated: true })
  })

  test('does not keep references to the chunks it was given', () => {
    const chunk = Buffer.from('abcdef')
    const c = new BoundedCapture(4)
    c.push(chunk)
    chunk.fill(0)
    expect(c.result().head.toString() + c.result().tail.toString()).toBe('abef')
  })
})
