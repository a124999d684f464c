// Jest in native ESM mode (NODE_OPTIONS=--experimental-vm-modules, set by `npm test`).
export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.test.json' }] },
  testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
  // The real agent CLIs are a separate tier: npm run test:agents.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/__tests__/agents-live/'],
  // A guard against hangs, not a speed goal: end-to-end tests on a loaded 2-core machine take minutes.
  testTimeout: 300_000,
  // Integration tests spawn real processes; two workers keep a 2-core machine responsive.
  maxWorkers: 2,
  // The workers exit ~30 ms after jest asks them to (no handle is left open), but jest's default 500 ms grace
  // is measured on its own event loop, which a busy 2-core machine can starve that long: the "failed to exit
  // gracefully" warning was that race, not a leak.
  workerGracefulExitTimeout: 10_000,
  // In CI every test is printed as it ends (long end-to-end files are otherwise silent for minutes).
  reporters: process.env.CI === 'true' ? ['default', '<rootDir>/scripts/jest-progress.mjs'] : ['default']
}
