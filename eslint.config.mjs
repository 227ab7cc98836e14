import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'sample-app/dist/**',
      'node_modules/**',
      'coverage/**',
      '**/*.js',
      '!lib/admin/page/**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // NOTE: the engine knows no HTTP framework and no Nest; the adapters in their folders know
    // the engine, never the reverse (DESIGN.md, "Boundaries"). IdempotencyModule is Nest-shaped.
    files: ['lib/**/*.ts'],
    ignores: ['**/*.spec.ts', 'lib/nest/**', 'lib/idempotency/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@nestjs/*', 'express', 'fastify'],
              message: 'Engine code imports no HTTP framework and no Nest: put this in an adapter.',
            },
            {
              group: ['**/spec-support/*'],
              message: 'lib/spec-support/ is for specs only: it is not built into the package.',
            },
          ],
        },
      ],
    },
  },
  {
    // NOTE: the Express shop is what a plain Express app writes: no Nest, and the package only
    // through its `/express` entry (the root entry loads the Nest module). The same holds for
    // the Nest shop's plain files that the Express shop imports; types may come from anywhere.
    files: [
      'sample-express/**/*.ts',
      'sample-app/src/shop-*.ts',
      'sample-app/src/orders/*.migration.ts',
      'sample-app/src/orders/order-migrations.ts',
      'sample-app/src/orders/order.entity.ts',
      'sample-app/src/orders/create-order.dto.ts',
      'sample-app/src/orders/orders-awaiting-payment.source.ts',
      'sample-app/src/merchants/merchant.entity.ts',
      'sample-app/src/merchants/merchant-secrets.ts',
      'sample-app/src/merchants/demo-merchant.ts',
      'sample-app/src/merchants/*.migration.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'nestjs-payment-webhooks',
              allowTypeImports: true,
              message: 'The Express shop imports the package from nestjs-payment-webhooks/express.',
            },
          ],
          patterns: [
            {
              group: [
                '@nestjs/*',
                'nestjs-payment-webhooks/*',
                '!nestjs-payment-webhooks/express',
                '!nestjs-payment-webhooks/payments',
                '!nestjs-payment-webhooks/providers',
              ],
              allowTypeImports: true,
              message:
                'The Express shop loads no Nest: import from nestjs-payment-webhooks/express, /payments or /providers.',
            },
          ],
        },
      ],
    },
  },
  {
    // NOTE: the specs use the package as an app does, through its entries; what they need of
    // lib/ beyond them is listed in one file, so a spec cannot come to lean on an internal unseen.
    files: ['test/**/*.ts'],
    ignores: ['test/support/internals.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // NOTE: relative paths only; a dependency's lib/ (Adyen's typings) is not ours.
              // lib/spec-support/ holds what the specs next to the code and these share.
              regex: '^\\.\\.?/(.+/)?lib(/(?!spec-support/)|$)',
              message:
                'Import internals from test/support/internals.ts, the rest from the package entries.',
            },
          ],
        },
      ],
    },
  },
  {
    // NOTE: the inbox page's modules run in the browser as they are, with the page's CSP: only
    // the browser's globals they use exist for them, no HTML is ever parsed from a string (an
    // event's body or error is the provider's or the app's text), and nothing is evaluated.
    files: ['lib/admin/page/**/*.js'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {
        document: 'readonly',
        location: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        setInterval: 'readonly',
        URLSearchParams: 'readonly',
        FormData: 'readonly',
        Node: 'readonly',
      },
    },
    rules: {
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      'no-restricted-properties': [
        'error',
        ...['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'write', 'writeln'].map((property) => ({
          property,
          message: 'The inbox page puts text in as text: use textContent, text nodes or el().',
        })),
      ],
    },
  },
  {
    // NOTE: one module makes the page's requests, so each is same-origin and a change is a POST
    // of JSON, which the admin routes' write check requires.
    files: ['lib/admin/page/**/*.js'],
    ignores: ['lib/admin/page/admin-api.js'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'Make requests through admin-api.js.' },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
