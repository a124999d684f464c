// A process that starts programs one after another should stay small: Node starts each one with fork(), which
// copies the page tables of our anonymous memory, and the child's exec then tears that copy down.
import { setFlagsFromString } from 'node:v8'

let set = false

/**
 * Keeps V8's heap near what the process holds, for a loop that allocates fast and never idles:
 * - the young generation stays at its size (V8 doubles it, up to 16 MiB a half on Node 20 and 32 on Node 24,
 *   whenever objects keep surviving its scavenges, as a fast loop's in-flight processes do, and a busy process
 *   never shrinks it back);
 * - the old generation grows in small steps past what is live (V8's limits for saving memory), not up to 4×;
 * - no optimising compiler (TurboFan, and Maglev on Node 24): its compiles on V8's worker threads leave
 *   their malloc arenas and the code space MiBs larger as the loop's functions turn hot, for no CPU a loop
 *   that waits on its programs can measure (the same ms an iteration; a 300 MB output streams as fast).
 * V8 reads the heap flags each time it sizes a space and the compiler ones each time a function would tier
 * up, so setting them at run time takes effect; measured with `npm run bench -- memory` (RSS of 1,000 plain
 * iterations, CPU unchanged).
 */
export function keepHeapSmall(): void {
  if (set) return
  set = true
  setFlagsFromString('--semi-space-growth-factor=1')
  setFlagsFromString('--optimize-for-size')
  setFlagsFromString('--no-turbofan')
  setFlagsFromString('--no-maglev')
}
