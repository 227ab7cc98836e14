// The fresh-app checks (npm run test:fresh-app): slow, they install from the npm registry, so they
// are kept out of `npm test`. They share its PostgreSQL discovery, and one packed tarball; the two
// files run side by side (most of their time is npm install and nest new).
const base = require('../../jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/test/fresh-app'],
  testRegex: '\\.check\\.ts$',
  globalSetup: '<rootDir>/test/fresh-app/global-setup.ts',
  globalTeardown: '<rootDir>/test/fresh-app/global-teardown.ts',
  testTimeout: 600000,
};
