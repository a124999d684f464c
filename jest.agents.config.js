// The live agent tier: the real claude and codex CLIs against scripted model servers on loopback.
// Run with `NODE_OPTIONS=--experimental-vm-modules npx jest -c jest.agents.config.js` after
// `node scripts/install-agent-clis.mjs`; RECORD_STREAMS=1 rewrites __tests__/fixtures/streams/.
import base from './jest.config.js'

export default {
  ...base,
  testMatch: ['<rootDir>/__tests__/agents-live/**/*.test.ts'],
  testPathIgnorePatterns: [],
  // One CLI at a time: timings stay meaningful and the 2-core machine stays usable.
  maxWorkers: 1,
  testTimeout: 120000
}
