export { startArtifactService } from './server.js'
export type {
  ArtifactFailure,
  ArtifactRequest,
  ArtifactService,
  ArtifactViolation,
  StoredArtifact
} from './server.js'
export { startAzurite, DEV_ACCOUNT, DEV_ACCOUNT_KEY } from './azurite.js'
export type { Azurite } from './azurite.js'
export { readZip, readZipEntries } from './zip.js'
export type { ZipEntry } from './zip.js'
