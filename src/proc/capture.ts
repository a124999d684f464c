import type { Captured } from './types.js'

/**
 * A byte buffer that keeps at most `capacity` bytes: while it has room it grows (so a 10-byte output
 * costs 10 bytes, not the whole limit), once full it overwrites its oldest bytes (a ring).
 */
class ByteRing {
  private buf = Buffer.alloc(0)
  private start = 0
  length = 0

  constructor(readonly capacity: number) {}

  append(data: Buffer): void {
    const cap = this.capacity
    if (cap === 0 || data.length === 0) return
    if (data.length >= cap) {
      // Only the last `cap` bytes can survive; copy them instead of wrapping round and round.
      if (this.buf.length < cap) this.buf = Buffer.allocUnsafe(cap)
      data.copy(this.buf, 0, data.length - cap)
      this.start = 0
      this.length = cap
      return
    }
    const needed = this.length + data.length
    if (this.buf.length < cap && needed > this.buf.length) {
      // Not wrapped yet (start is 0 until the buffer reaches its capacity), so a plain copy keeps the order.
      const grown = Buffer.allocUnsafe(Math.min(cap, Math.max(needed, this.buf.length * 2, 4096)))
      this.buf.copy(grown, 0, 0, this.length)
      this.buf = grown
    }
    const size = this.buf.length
    const pos = (this.start + this.length) % size
    const first = Math.min(data.length, size - pos)
    data.copy(this.buf, pos, 0, first)
    if (first < data.length) data.copy(this.buf, 0, first)
    if (needed > size) {
      this.start = (this.start + (needed - size)) % size
      this.length = size
    } else {
      this.length = needed
    }
  }

  /** A copy of the kept bytes, oldest first. */
  bytes(): Buffer {
    const out = Buffer.allocUnsafe(this.length)
    const firstLen = Math.min(this.length, this.buf.length - this.start)
    this.buf.copy(out, 0, this.start, this.start + firstLen)
    if (firstLen < this.length) this.buf.copy(out, firstLen, 0, this.length - firstLen)
    return out
  }
}

/**
 * Keeps the first half and the last half of a stream of chunks, whatever its size: memory is bounded by
 * `limit` bytes (plus nothing per chunk, since chunks are copied, never retained).
 */
export class BoundedCapture {
  private readonly head: ByteRing
  private readonly tail: ByteRing
  totalBytes = 0

  constructor(readonly limit: number) {
    const headLimit = Math.floor(limit / 2)
    this.head = new ByteRing(headLimit)
    // The odd byte goes to the tail: the end of an output is where errors usually are.
    this.tail = new ByteRing(limit - headLimit)
  }

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length
    const roomInHead = this.head.capacity - this.head.length
    if (roomInHead > 0) {
      this.head.append(roomInHead >= chunk.length ? chunk : chunk.subarray(0, roomInHead))
      if (roomInHead >= chunk.length) return
      chunk = chunk.subarray(roomInHead)
    }
    this.tail.append(chunk)
  }

  result(): Captured {
    const truncated = this.totalBytes > this.limit
    if (!truncated) {
      // Nothing was dropped: hand back all of it as one piece.
      const head =
        this.tail.length === 0 ? this.head.bytes() : Buffer.concat([this.head.bytes(), this.tail.bytes()])
      return { head, tail: Buffer.alloc(0), totalBytes: this.totalBytes, truncated: false }
    }
    return { head: this.head.bytes(), tail: this.tail.bytes(), totalBytes: this.totalBytes, truncated: true }
  }
}
