// File sizes as people write and read them: max-file-size's setting (`50 MB`, `1g`), and a size said back.

/** The largest file delivered by default: GitHub warns at 50 MiB and refuses a push with one over 100 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 50 * 1024 * 1024
const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1024,
  k: 1024,
  mb: 1024 ** 2,
  m: 1024 ** 2,
  gb: 1024 ** 3,
  g: 1024 ** 3
}

/** `50 MB`, `500KB`, `1g`, or a bare number of megabytes, in bytes (binary units); undefined when unreadable. */
export function parseFileSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]?b?)$/i.exec(text.trim())
  if (!m) return undefined
  const bytes = Math.floor(Number(m[1]) * (SIZE_UNITS[m[2].toLowerCase() || 'mb'] ?? 0))
  return bytes >= 1 ? bytes : undefined
}

/** A size for people: `60.0 MB` (binary megabytes, as GitHub's limits are). */
export function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024)
  return mb >= 1 ? `${mb.toFixed(mb >= 10 ? 0 : 1)} MB` : `${bytes} bytes`
}
