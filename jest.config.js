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
  testTimeout: 60000,
  // Integration tests spawn real processes; two workers keep a 2-core machine responsive.
  maxWorkers: 2
}
