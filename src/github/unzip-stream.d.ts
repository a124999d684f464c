// unzip-stream (the zip reader @actions/artifact itself uses) ships without typings of its own. Its parser
// proper: a writable zip that emits each entry as it reaches it (its Parse() wrapper ends with a 'close' before
// its 'finish', which stream.pipeline takes for a premature close).
declare module 'unzip-stream/lib/unzip-stream.js' {
  import type { Readable, Transform } from 'node:stream'
  /** One entry of the zip, its bytes as they are inflated. */
  export interface ZipEntry extends Readable {
    path: string
    type: 'File' | 'Directory'
    /** The size the entry's header declares; undefined when a data descriptor follows its bytes. */
    size?: number
  }
  export default class UnzipStream extends Transform {
    constructor(options?: { decodeString?: (bytes: Buffer) => string })
    on(event: 'entry', listener: (entry: ZipEntry) => void): this
    on(event: string | symbol, listener: (...args: unknown[]) => void): this
  }
}
