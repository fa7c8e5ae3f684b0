// Shared jest settings: TypeScript through swc, real services, generous timeouts for e2e files.
const path = require('node:path');

module.exports = (dir) => ({
  rootDir: dir,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  testTimeout: 60_000,
  maxWorkers: 2,
  reporters: [
    'default',
    [
      path.join(__dirname, 'scripts', 'jest-count-reporter.js'),
      { name: process.env.JEST_RESULTS_NAME ?? path.basename(dir) },
    ],
  ],
});
