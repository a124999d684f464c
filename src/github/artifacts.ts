// Uploading the run record (progress.md, status.json, logs/) as one artifact. @actions/artifact is imported
// only here and only when an upload happens: it is most of the bundle and ~250 ms of start-up.
import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'

export interface UploadedArtifact {
  id?: number
  size?: number
  name: string
  files: number
}

/** Every file under `dir`, absolute, skipping status.json's in-flight temp files. */
export function recordFiles(dir: string): string[] {
  const files: string[] = []
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile() && !entry.name.endsWith('.tmp')) files.push(full)
    }
  }
  walk(dir)
  return files.sort()
}

/** A name the artifact service accepts: no " : < > | * ? \ / or control characters. */
export function safeArtifactName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/["<>|*?:\\/\x00-\x1f]+/g, '-')
}

/**
 * Uploads the record folder as artifact `name`. Throws when the service refuses it (the caller turns that
 * into a warning: a lost upload must not fail a run that did its work).
 */
export async function uploadRecord(
  dir: string,
  name: string,
  options: { retentionDays?: number | undefined } = {}
): Promise<UploadedArtifact> {
  statSync(dir)
  const files = recordFiles(dir)
  const { DefaultArtifactClient } = await import('@actions/artifact')
  const client = new DefaultArtifactClient()
  const uploaded = await client.uploadArtifact(safeArtifactName(name), files, dir, {
    ...(options.retentionDays !== undefined ? { retentionDays: options.retentionDays } : {}),
    // Logs compress well; the default level is a good trade for text.
    compressionLevel: 6
  })
  return {
    ...(uploaded.id !== undefined ? { id: uploaded.id } : {}),
    ...(uploaded.size !== undefined ? { size: uploaded.size } : {}),
    name: safeArtifactName(name),
    files: files.length
  }
}

/** Where another run's artifacts are (the job token needs `actions: read`); absent: this run's. */
export interface FindBy {
  token: string
  workflowRunId: number
  repositoryOwner: string
  repositoryName: string
}

/** Downloads artifact `id` into `dir` (of this run, or `findBy`'s). */
export async function downloadInto(id: number, dir: string, findBy?: FindBy): Promise<void> {
  const { DefaultArtifactClient } = await import('@actions/artifact')
  // Its unzip calls Buffer() (DEP0005): from the bundle, Node cannot tell that from our code, and warns.
  const warned = process.noDeprecation
  process.noDeprecation = true
  try {
    await new DefaultArtifactClient().downloadArtifact(id, { path: dir, ...(findBy ? { findBy } : {}) })
  } finally {
    process.noDeprecation = warned === true
  }
}
