// Running one program: bounded capture, a log of every byte, and the whole tree killed on timeout or abort.
export { scrubInitialEnvironment, type ScrubResult } from './environ.js'
export { BoundedCapture } from './capture.js'
export { runProcess } from './run.js'
export {
  killMarked,
  killProcessTree,
  listDescendants,
  processIdentity,
  type KillTreeOptions
} from './tree.js'
export {
  combineOutput,
  decodeCaptured,
  defaultTruncationMarker,
  translateNewlines,
  type DecodeOptions
} from './text.js'
export type { Captured, RunOptions, RunResult, Signaller } from './types.js'
export { SYSTEM_PATH, trustedProgram, which } from './which.js'
export { keepHeapSmall } from './small-heap.js'
