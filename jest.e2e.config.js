// The end-to-end tier (`npm run test:e2e`): the suites that start dist/index.js on Node 24 the way the Actions
// runner does (INPUT_* and GITHUB_* variables, the file commands, main then post), against a bare git remote,
// the GitHub API stand-in and the artifact service in front of azurite. One test per rule, proving the wiring;
// the decisions behind them are tested in-process in the fast tier.
import base from './jest.config.js'

export default {
  ...base,
  testMatch: ['<rootDir>/__tests__/**/*.e2e.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/__tests__/agents-live/']
}
