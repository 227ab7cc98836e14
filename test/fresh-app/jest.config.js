// The fresh-app checks (npm run test:fresh-app): slow, they install from the npm registry, so they
// are kept out of `npm test`. They share its PostgreSQL discovery.
const base = require('../../jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  rootDir: '../..',
  roots: ['<rootDir>/test/fresh-app'],
  testRegex: '\\.check\\.ts$',
  testTimeout: 600000,
};
