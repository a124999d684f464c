// Back-pressure from a front-end's output (the runner reads the job's stdout through a pipe, maybe slowly).
import type { Writable } from 'node:stream'

/**
 * A LoopPorts.outputRoom for `stream`: a promise while the stream holds more than its buffer (its reader is
 * behind), settled once it drains, closes or fails (a reader that is gone must not hold the agent forever).
 */
export function outputRoomOf(stream: Writable): () => Promise<void> | undefined {
  let waiting: Promise<void> | undefined
  return () => {
    if (waiting) return waiting
    if (!stream.writableNeedDrain || stream.destroyed) return undefined
    waiting = new Promise<void>(resolve => {
      const done = (): void => {
        stream.off('drain', done)
        stream.off('close', done)
        stream.off('error', done)
        waiting = undefined
        resolve()
      }
      stream.on('drain', done)
      stream.on('close', done)
      stream.on('error', done)
    })
    return waiting
  }
}
