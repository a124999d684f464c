// The Actions cache, for folders kept across runs (an installed agent CLI). @actions/cache is imported only
// here and only when a cache is used: start-up time matters (DESIGN.md), and most runs never touch it.
// Both calls are best effort: the library already turns service errors into warnings, and a cache that is
// not there (no ACTIONS_RESULTS_URL, a GHES server without the service) is a miss, never a failure.

/** Restores `folder` saved under `key`; answers whether it was found (and is now on disk). */
export async function restoreFolder(folder: string, key: string): Promise<boolean> {
  const cache = await import('@actions/cache')
  if (!cache.isFeatureAvailable()) return false
  return (await cache.restoreCache([folder], key)) === key
}

/** Saves `folder` under `key`; answers whether the service took it (another job may hold the key). */
export async function saveFolder(folder: string, key: string): Promise<boolean> {
  const cache = await import('@actions/cache')
  if (!cache.isFeatureAvailable()) return false
  // -1: not saved (another job holds the key, or the service failed: the library said why in a warning).
  return (await cache.saveCache([folder], key)) !== -1
}
