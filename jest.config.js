// NOTE: the suites are compiled file by file, with no type check (`npm run typecheck` does that):
// the options below are those of tsconfig.json that change the emitted code.
const SWC = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    target: 'es2022',
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

const { ALONE } = require('./test/suites');

// NOTE: a run of every suite runs the end-to-end specs of each folder of test/ as one suite
// (test/suites.js says why); a run naming spec files (`npx jest test/cli/cli-recover.e2e-spec.ts`)
// runs those files as suites of their own.
const namesSpecFiles = process.argv.slice(2).some((arg) => /\.e2e-spec\.ts$/.test(arg));
const escaped = (path) => path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const GROUPED = new RegExp(
  `^(?!.*/(?:${ALONE.map(escaped).join('|')})$).*/test/[^/]+/[^/]+\\.e2e-spec\\.ts$`,
);

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  rootDir: '.',
  roots: ['<rootDir>/lib', '<rootDir>/test'],
  testRegex: '.*\\.(spec|e2e-spec|e2e-suite)\\.ts$',
  testSequencer: '<rootDir>/test/sequencer.js',
  testPathIgnorePatterns: [
    '/node_modules/',
    namesSpecFiles ? '\\.e2e-suite\\.ts$' : GROUPED.source,
  ],
  transform: {
    '^.+\\.ts$': ['@swc/jest', SWC],
    '^.+\\.m?js$': '<rootDir>/test/support/esm-to-cjs.transform.js',
  },
  // NOTE: Nest 12 and some of what it loads ship ES modules only; see the transform's comment.
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|file-type|strtok3|token-types|@tokenizer|uint8array-extras|@borewit)/)',
  ],
  moduleNameMapper: {
    '^nestjs-payment-webhooks$': '<rootDir>/lib/index.ts',
    '^nestjs-payment-webhooks/testing$': '<rootDir>/lib/testing/index.ts',
    '^nestjs-payment-webhooks/idempotency$': '<rootDir>/lib/idempotency/index.ts',
    '^nestjs-payment-webhooks/providers$': '<rootDir>/lib/providers/index.ts',
    '^nestjs-payment-webhooks/payments$': '<rootDir>/lib/payments/index.ts',
    '^nestjs-payment-webhooks/observability$': '<rootDir>/lib/observability/index.ts',
    '^nestjs-payment-webhooks/express$': '<rootDir>/lib/express/index.ts',
    '^nestjs-payment-webhooks/bullmq$': '<rootDir>/lib/bullmq/index.ts',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
};
