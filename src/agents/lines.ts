// Splits a byte stream into lines as it arrives, with a bound on what a single line may hold in memory.

/** Bytes one line may hold; a longer line is dropped (reported as oversized), never buffered whole. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024

export class LineSplitter {
  private parts: Buffer[] = []
  private size = 0
  private oversized = false

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOversized: (bytes: number) => void = () => undefined,
    private readonly maxLineBytes = MAX_LINE_BYTES
  ) {}

  push(chunk: Buffer): void {
    let start = 0
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, nl))
      this.emit()
      start = nl + 1
    }
    if (start < chunk.length) this.take(chunk.subarray(start))
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    if (this.size > 0 || this.oversized) this.emit()
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return
    this.size += piece.length
    if (this.oversized) return
    if (this.size > this.maxLineBytes) {
      this.oversized = true
      this.parts = []
      return
    }
    // Copy: the chunk's buffer may be reused by the stream.
    this.parts.push(Buffer.from(piece))
  }

  private emit(): void {
    if (this.oversized) this.onOversized(this.size)
    else this.onLine(Buffer.concat(this.parts).toString('utf8').replace(/\r$/, ''))
    this.parts = []
    this.size = 0
    this.oversized = false
  }
}
