// Writing a test's files into a folder from a map of them: the e2e projects' trees and a record to upload.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathBytes } from '../../src/text/tree-path.js'

/** A file's content, or its content and mode (0o644 when only content is given). */
export type FileSpec = string | Buffer | { content: string | Buffer; mode: number }

/** Writes `files`; a name is a path string (src/text/tree-path.ts), so a test may give one that is not UTF-8. */
export function writeFiles(dir: string, files: Record<string, FileSpec>): void {
  for (const [name, spec] of Object.entries(files)) {
    const file = path.join(dir, name)
    mkdirSync(pathBytes(path.dirname(file)), { recursive: true })
    const { content, mode } =
      typeof spec === 'string' || Buffer.isBuffer(spec) ? { content: spec, mode: 0o644 } : spec
    writeFileSync(pathBytes(file), content)
    chmodSync(pathBytes(file), mode)
  }
}
