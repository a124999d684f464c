// Server-sent events as the proxy reads them on the way through: the JSON of each `data:` field, for the meter.

/**
 * Splits a server-sent event stream into the JSON of its `data:` fields, across chunk boundaries. Bytes are
 * only read here: the proxy forwards them untouched.
 */
export class SseReader {
  private pending = ''
  private data: string[] = []
  private readonly decoder = new TextDecoder()

  constructor(private readonly onEvent: (json: unknown) => void) {}

  push(chunk: Buffer): void {
    this.pending += this.decoder.decode(chunk, { stream: true })
    let newline: number
    while ((newline = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, newline).replace(/\r$/, '')
      this.pending = this.pending.slice(newline + 1)
      this.line(line)
    }
    // A line that never ends (a hostile or broken upstream) must not grow without bound.
    if (this.pending.length > MAX_LINE) this.pending = ''
  }

  end(): void {
    if (this.pending) this.line(this.pending)
    this.pending = ''
    this.line('')
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length === 0) return
      const text = this.data.join('\n')
      this.data = []
      try {
        this.onEvent(JSON.parse(text))
      } catch {
        // not JSON ([DONE], a comment): nothing to meter
      }
      return
    }
    if (line.startsWith('data:')) this.data.push(line.slice(line.startsWith('data: ') ? 6 : 5))
  }
}

/** A usage event is small; a longer line is content, and is not kept whole. */
const MAX_LINE = 4 * 1024 * 1024
