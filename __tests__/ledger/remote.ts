// The ledger's remote for a test file: a fresh git server stand-in (one commit on main) per test, and ledger
// stores on it with short waits, closed after the test.
import { afterEach, beforeEach } from '@jest/globals'
import { LedgerStore, type LedgerStoreOptions } from '../../src/ledger/index.js'
import { retryTiming } from '../../src/github/retry.js'
import { startGitServer, WRITE_TOKEN, type GitServer } from '../support/git-server.js'

export interface LedgerRemote {
  /** This test's server. */
  server(): GitServer
  /** A store on it (the write token, short waits); `warnings` collects what it warned. */
  store(over?: Partial<LedgerStoreOptions>): Promise<LedgerStore & { warnings: string[] }>
}

/** Registers the hooks: call it once, at the top of a test file. */
export function ledgerRemote(): LedgerRemote {
  let server: GitServer | undefined
  const stores: LedgerStore[] = []
  beforeEach(async () => {
    server = await startGitServer()
    server.commitOnRemote('main', { 'README.md': 'hello\n' }, 'start')
  })
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close()
    await server?.close()
  })
  const current = (): GitServer => {
    if (!server) throw new Error('no server outside a test')
    return server
  }
  return {
    server: current,
    async store(over = {}) {
      const warnings: string[] = []
      const s = await LedgerStore.open({
        serverUrl: current().url,
        repository: current().repository,
        token: WRITE_TOKEN,
        timing: { ...retryTiming(), baseDelayMs: 10, maxDelayMs: 40, pushStallSeconds: 2 },
        raceWaitMs: () => 5,
        warn: w => warnings.push(w),
        ...over
      })
      stores.push(s)
      return Object.assign(s, { warnings })
    }
  }
}
