import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuiltCli } from '../support/cli';

const ROOT = join(__dirname, '..', '..');

/**
 * The root entry's runtime names, as an app sees them in the built package. A new export fails
 * this list on purpose: add it here only when an app needs it from the root (see the rule at
 * the top of lib/index.ts); everything else belongs on a subpath.
 */
const ROOT_EXPORTS = [
  'InboxQueries',
  'InboxWorker',
  'InboxWriter',
  'NonRetryableError',
  'OnPaymentEvent',
  'PAYMENT_EVENT_TYPES',
  'PaymentWebhook',
  'PendingPaymentsSource',
  'ProviderStatusError',
  'RawBodyUnavailableException',
  'ReconciliationService',
  'UnknownWebhookEndpointException',
  'UnsupportedWebhookMediaTypeException',
  'WEBHOOKS_MODULE_OPTIONS',
  'WEBHOOKS_TRANSPORT',
  'WebhookAdmin',
  'WebhookAlerts',
  'WebhookConfigurationError',
  'WebhookDispatcher',
  'WebhookPayloadError',
  'WebhookPayloadException',
  'WebhookRefusalException',
  'WebhookRetention',
  'WebhookSignatureException',
  'WebhookSourceForbiddenException',
  'WebhookStore',
  'WebhookStoreUnavailableException',
  'WebhookTelemetry',
  'WebhookTooLargeException',
  'WebhookTransactions',
  'WebhookVerificationError',
  'WebhooksHealthIndicator',
  'WebhooksMetrics',
  'WebhooksModule',
  'adyenEndpoint',
  'defineEndpoint',
  'hmacEndpoint',
  'isPaymentEventType',
  'paddleEndpoint',
  'paypalEndpoint',
  'qvardEndpoint',
  'sberEndpoint',
  'squareEndpoint',
  'standardWebhooksEndpoint',
  'stripeEndpoint',
  'tbankEndpoint',
  'webhookEntities',
  'webhooksMigrations',
  'yookassaEndpoint',
  'yoomoneyEndpoint',
];

/** Names the root still exports, deprecated, for code written before they moved to a subpath. */
const DEPRECATED_ROOT_EXPORTS: Record<string, readonly string[]> = {
  payments: ['applyPaymentEvent', 'definePaymentStates', 'paymentStateTarget', 'transition'],
  idempotency: [
    'CreateIdempotencyTables1764560000000',
    'DEFAULT_IDEMPOTENCY_TTL_MS',
    'DEFAULT_IDEMPOTENT_CALL_TTL_MS',
    'IdempotencyKeyEntity',
    'IdempotencyKeyFormatError',
    'IdempotencyKeyInProgressError',
    'IdempotencyKeyInUseException',
    'IdempotencyKeyMalformedException',
    'IdempotencyKeyMissingException',
    'IdempotencyKeyReusedException',
    'IdempotencyStore',
    'IdempotencyStoreUnavailableException',
    'Idempotent',
    'IdempotentCall',
    'IdempotentCallEntity',
    'MAX_IDEMPOTENCY_TTL_MS',
    'MIN_IDEMPOTENCY_TTL_MS',
    'idempotencyKeyFor',
  ],
};

/** Internals that an app once could import from the root and now cannot. */
const PRIVATE_NAMES = [
  'StripeWebhookProvider',
  'SberWebhookProvider',
  'WebhookEventEntity',
  'WebhookHandlerRunEntity',
  'CreateWebhooksTables1764400000000',
  'AddEventOutcomes1764500000000',
  'notificationsOf',
  'adyenSigningString',
  'redact',
];

interface PackageJson {
  main: string;
  types: string;
  exports: Record<string, string | { types: string; default: string }>;
  typesVersions: { '*': Record<string, string[]> };
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** The package's subpath entries (`./testing`, …) with their files, from package.json. */
function subpaths(): Array<[string, { types: string; default: string }]> {
  return Object.entries(pkg.exports)
    .filter(([path]) => path !== '.' && path !== './package.json')
    .map(([path, target]) => {
      if (typeof target === 'string') throw new Error(`${path} has no types/default conditions`);
      return [path, target];
    });
}

function load(file: string): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(join(ROOT, file)) as Record<string, unknown>;
}

describe('public surface of the built package', () => {
  beforeAll(() => ensureBuiltCli(), 120_000);

  it('exports exactly the pinned names from the root entry, plus the deprecated ones', () => {
    const deprecated = Object.values(DEPRECATED_ROOT_EXPORTS).flat();
    const expected = [...ROOT_EXPORTS, ...deprecated].sort();
    expect(Object.keys(load(pkg.main)).sort()).toEqual(expected);
  });

  it('keeps internals out of the root entry', () => {
    const root = load(pkg.main);
    for (const name of PRIVATE_NAMES) expect(root).not.toHaveProperty(name);
  });

  it('serves each deprecated root name as the same value as its subpath', () => {
    const root = load(pkg.main);
    for (const [subpath, names] of Object.entries(DEPRECATED_ROOT_EXPORTS)) {
      const entry = load(`dist/${subpath}/index.js`);
      const different = names.filter((name) => !entry[name] || root[name] !== entry[name]);
      expect({ subpath, different }).toEqual({ subpath, different: [] });
    }
  });

  it('declares the root entry and every subpath with files that exist', () => {
    expect(pkg.exports['.']).toEqual({ types: `./${pkg.types}`, default: `./${pkg.main}` });
    expect(existsSync(join(ROOT, pkg.types))).toBe(true);
    expect(existsSync(join(ROOT, pkg.main))).toBe(true);
    expect(subpaths().map(([path]) => path)).toEqual(
      expect.arrayContaining([
        './testing',
        './idempotency',
        './providers',
        './payments',
        './observability',
      ]),
    );
    for (const [path, target] of subpaths()) {
      expect({ path, types: existsSync(join(ROOT, target.types)) }).toEqual({ path, types: true });
      expect({ path, main: existsSync(join(ROOT, target.default)) }).toEqual({ path, main: true });
    }
  });

  it('points typesVersions at the same declarations as exports, for older TypeScript settings', () => {
    const declared = Object.fromEntries(
      subpaths().map(([path, target]) => [path.slice(2), [target.types.slice(2)]]),
    );
    expect(pkg.typesVersions['*']).toEqual(declared);
  });

  it('loads each subpath entry, and none repeats a root value except the deprecated ones', () => {
    const root = load(pkg.main);
    // NOTE: `/express` is a whole entry of its own (endpoint factories, errors, migrations), so
    // a plain Express app never imports the root, which loads Nest; every value it shares with
    // the root must be the same value.
    for (const [path, target] of subpaths()) {
      const entry = load(target.default);
      if (path === './express') {
        const shared = Object.keys(entry).filter((name) => name in root);
        expect(shared).toEqual(expect.arrayContaining(['stripeEndpoint', 'webhooksMigrations']));
        expect(shared.filter((name) => entry[name] !== root[name])).toEqual([]);
        continue;
      }
      const shared = Object.keys(entry).filter((name) => name in root);
      const allowed = DEPRECATED_ROOT_EXPORTS[path.slice(2)] ?? [];
      expect({ path, shared: shared.filter((name) => !allowed.includes(name)) }).toEqual({
        path,
        shared: [],
      });
    }
  });

  it('loads the bullmq entry without any Nest package, with the transport and its job helpers', () => {
    // NOTE: a fresh process, so what this suite's own imports loaded does not count.
    const script =
      `const entry = require(${JSON.stringify(join(ROOT, 'dist', 'bullmq', 'index.js'))});` +
      "const loaded = Object.keys(require.cache).filter((path) => path.includes('@nestjs'));" +
      'process.stdout.write(JSON.stringify({ names: Object.keys(entry).sort(), loaded }));';
    const output = execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
    const { names, loaded } = JSON.parse(output) as { names: string[]; loaded: string[] };
    expect(loaded).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining([
        'BullmqWebhookTransport',
        'WEBHOOK_JOB_NAME',
        'bullmqTransport',
        'webhookJobId',
      ]),
    );
  });

  it('gives the providers and payments entries what the README shows imported from them', () => {
    const providers = load('dist/providers/index.js');
    for (const name of [
      'StripeStatusClient',
      'YooKassaStatusClient',
      'TBankStatusClient',
      'SberStatusClient',
      'createPayPalCertificateResolver',
      'YOOKASSA_IP_RANGES',
      'tbankToken',
      'PROVIDER_RETRY_HORIZONS',
    ]) {
      expect(providers).toHaveProperty(name);
    }
    const payments = load('dist/payments/index.js');
    for (const name of [
      'definePaymentStates',
      'paymentStateTarget',
      'transition',
      'applyPaymentEvent',
    ]) {
      expect(typeof payments[name]).toBe('function');
    }
  });
});
