// The fast tier (`npm run test:unit`): the specs next to the code under lib/, which need no
// database server, no Redis and no browser, so no global setup looks for them.
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/lib'],
  testRegex: '.*\\.spec\\.ts$',
  globalSetup: undefined,
  globalTeardown: undefined,
};
