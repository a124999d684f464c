// The fast tier (`npm test`): unit tests and in-process integration (real git, real processes, the stand-ins).
// Jest in native ESM mode (NODE_OPTIONS=--experimental-vm-modules, set by the npm scripts).
// The suites that start dist/index.js as the runner does (*.e2e.test.ts) are `npm run test:e2e`; the real agent
// CLIs are `npm run test:agents`.
export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.test.json' }] },
  testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/__tests__/agents-live/', '\\.e2e\\.test\\.ts$'],
  // A guard against hangs, not a speed goal: end-to-end tests on a loaded 2-core machine take minutes.
  testTimeout: 300_000,
  // The isolation tests' agent users: a letter of their own per test run (scripts/jest-test-users.mjs).
  globalSetup: '<rootDir>/scripts/jest-test-users.mjs',
  // Integration tests spawn real processes; two workers keep a 2-core machine responsive.
  maxWorkers: 2,
  // The workers exit ~30 ms after jest asks them to (no handle is left open), but jest's default 500 ms grace
  // is measured on its own event loop, which a busy 2-core machine can starve that long: the "failed to exit
  // gracefully" warning was that race, not a leak.
  workerGracefulExitTimeout: 10_000,
  // In CI every test is printed as it ends (long end-to-end files are otherwise silent for minutes).
  reporters: process.env.CI === 'true' ? ['default', '<rootDir>/scripts/jest-progress.mjs'] : ['default']
}
