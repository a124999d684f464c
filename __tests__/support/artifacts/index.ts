// The Actions results service (Twirp JSON: artifacts, and the cache service v2) in front of a real azurite
// blob store. Usage:
//
//   const artifacts = await startArtifactService()         // starts azurite too (~1-2 s)
//   // run the action with { ...artifacts.env } (ACTIONS_RUNTIME_TOKEN, ACTIONS_RESULTS_URL, GITHUB_SERVER_URL)
//   const [record] = artifacts.listArtifacts()              // { id, name, size, digest, … }
//   const files = await artifacts.downloadArtifact(record.name)  // Map<path in zip, Buffer>
//   expect(files.get('progress.md')?.toString()).toContain('Iteration 1')
//   expect(artifacts.violations).toEqual([])
//   await artifacts.close()
export { startArtifactService } from './server.js'
export type {
  ArtifactFailure,
  ArtifactRequest,
  ArtifactService,
  ArtifactViolation,
  StoredArtifact,
  StoredCacheEntry
} from './server.js'
export { startAzurite, DEV_ACCOUNT, DEV_ACCOUNT_KEY } from './azurite.js'
export type { Azurite } from './azurite.js'
export { readZip, readZipEntries, writeZip } from './zip.js'
export type { ZipEntry, ZipSpec } from './zip.js'
