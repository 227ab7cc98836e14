import { DataSource } from 'typeorm';
import { OptionRename, renamedOption, warnOnce } from '../core/deprecated-options';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { createWebhooksRouter } from '../express/webhooks-router';
import { WebhooksRouterOptions } from '../express/webhooks-router.options';
import { stripeEndpoint } from '../providers/endpoints';
import { PendingPaymentsQuery } from '../reconciliation/pending-payments.source';
import { ReconciliationService } from '../reconciliation/reconciliation';
import { webhookEntities } from '../store/schema/entities';
import { webhooksMigrations } from '../store/schema/migrations';
import { alertsConfigured } from './observability-options.resolver';
import { WebhooksModuleOptions } from './webhooks-module-options.interface';
import { resolveWebhooksOptions } from './webhooks-options.resolver';
import { catchDeprecationWarnings } from '../spec-support/deprecation-warnings';

const warned = catchDeprecationWarnings();

function startupError(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    expect((error as Error).name).toBe(WebhookConfigurationError.name);
    return error as Error;
  }
  throw new Error('expected a startup error');
}

const RENAME: OptionRename = {
  from: 'old',
  to: 'fresh',
  where: 'someFactory()',
  unit: 'ms',
  code: 'NPW_DEP_SPEC_OLD',
};

describe('renamedOption()', () => {
  it('reads the new name quietly, and the old one with a warning once per code', () => {
    expect(renamedOption(5, undefined, RENAME, 'ctx')).toBe(5);
    expect(warned('NPW_DEP_SPEC_OLD')).toEqual([]);
    expect(renamedOption(undefined, 7, RENAME, 'ctx')).toBe(7);
    expect(renamedOption(undefined, 8, RENAME, 'ctx')).toBe(8);
    warnOnce(RENAME);
    expect(warned('NPW_DEP_SPEC_OLD')).toEqual([
      'someFactory(): `old` (ms) is deprecated and will be removed in 2.0: use `fresh`.',
    ]);
  });

  it('takes both names with equal values (lists and records compared by content)', () => {
    expect(renamedOption(['a', 'b'], ['a', 'b'], RENAME, 'ctx')).toEqual(['a', 'b']);
    expect(renamedOption({ x: 1, y: 2 }, { y: 2, x: 1 }, RENAME, 'ctx')).toEqual({ x: 1, y: 2 });
  });

  it('refuses both names with different values, naming the one to keep', () => {
    const error = startupError(() => renamedOption(['a'], ['a', 'b'], RENAME, 'Endpoint "x"'));
    expect(error.message).toBe(
      'Endpoint "x": `old` and `fresh` are both given, with different values. `old` is the ' +
        'deprecated name of `fresh` (ms): remove `old` and keep `fresh`.',
    );
  });
});

describe('module options', () => {
  const stripe = stripeEndpoint({
    name: 'stripe',
    secret: 'whsec_m',
    api: { apiKey: 'sk_test_m' },
  });

  describe('reconciliation[].olderThan, read as olderThanMs', () => {
    const schedule = (extra: object): WebhooksModuleOptions => ({
      endpoints: [stripe],
      reconciliation: [{ endpoint: 'stripe', intervalMs: 1000, ...extra }],
    });

    afterEach(() => jest.useRealTimers());

    it('asks for the payments older than the old name says, and warns once', async () => {
      jest.useFakeTimers({ now: new Date('2026-06-01T12:00:00Z') });
      const queries: PendingPaymentsQuery[] = [];
      const service = new ReconciliationService(
        resolveWebhooksOptions(schedule({ olderThan: 60_000 })),
        {} as never,
        {} as never,
        {} as never,
        () => ({
          pendingPayments: async (query) => {
            queries.push(query);
            return [];
          },
        }),
      );
      resolveWebhooksOptions(schedule({ olderThan: 60_000 }));
      service.start();
      await jest.advanceTimersByTimeAsync(1000);
      service.stop();
      expect(queries).toHaveLength(1);
      expect(Date.now() - queries[0].olderThan.getTime()).toBe(60_000);
      expect(warned('NPW_DEP_RECONCILIATION_OLDER_THAN')).toEqual([
        'WebhooksModule.forRoot() / createWebhooksRouter(): `reconciliation[].olderThan` ' +
          '(milliseconds) is deprecated and will be removed in 2.0: use `reconciliation[].olderThanMs`.',
      ]);
    });

    it('refuses both names with different values', () => {
      const error = startupError(() =>
        resolveWebhooksOptions(schedule({ olderThan: 60_000, olderThanMs: 90_000 })),
      );
      expect(error.message).toMatch(
        /^WebhooksModule option reconciliation\[0\]: .*remove `reconciliation\[\]\.olderThan` and keep `reconciliation\[\]\.olderThanMs`/,
      );
    });
  });

  describe('observability.expectDeliveryWithin, read as expectDeliveryWithinMs', () => {
    const resolve = (observability: WebhooksModuleOptions['observability']) =>
      resolveWebhooksOptions({ endpoints: [stripe], observability }).observability;

    it('expects deliveries within the old name, turns alerts on, and warns once', () => {
      const old = { expectDeliveryWithin: { stripe: 3_600_000 } };
      expect(resolve(old).expectDeliveryWithinMs).toEqual(new Map([['stripe', 3_600_000]]));
      expect(resolve(old).alerts.enabled).toBe(true);
      expect(alertsConfigured(old)).toBe(true);
      expect(warned('NPW_DEP_EXPECT_DELIVERY_WITHIN')).toEqual([
        'WebhooksModule.forRoot() / createWebhooksRouter(): `observability.expectDeliveryWithin` ' +
          '(milliseconds per endpoint) is deprecated and will be removed in 2.0: use ' +
          '`observability.expectDeliveryWithinMs`.',
      ]);
    });

    it('refuses both names with different values', () => {
      const error = startupError(() =>
        resolve({
          expectDeliveryWithin: { stripe: 3_600_000 },
          expectDeliveryWithinMs: { stripe: 60_000 },
        }),
      );
      expect(error.message).toContain(
        'remove `observability.expectDeliveryWithin` and keep `observability.expectDeliveryWithinMs`',
      );
    });
  });
});

describe("the router's start, read as autoStart", () => {
  let dataSource: DataSource;
  const lines: string[] = [];
  const logger = {
    log: (line: unknown) => lines.push(String(line)),
    warn: (line: unknown) => lines.push(String(line)),
    error: (line: unknown) => lines.push(String(line)),
  };
  const options = (extra: Partial<WebhooksRouterOptions>): WebhooksRouterOptions => ({
    dataSource,
    endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_router' })],
    logger,
    ...extra,
  });

  beforeAll(async () => {
    dataSource = new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: webhookEntities,
      migrations: webhooksMigrations,
    });
    await dataSource.initialize();
    await dataSource.runMigrations();
  });

  afterAll(() => dataSource.destroy());

  it('builds a router that starts nothing until router.start() with start: false, and warns once', async () => {
    for (let i = 0; i < 2; i++) {
      lines.length = 0;
      const router = await createWebhooksRouter(options({ start: false }));
      expect(lines.join('\n')).toContain('the router was created with autoStart: false');
      lines.length = 0;
      await router.start();
      expect(lines.join('\n')).not.toContain('autoStart: false');
      await router.stop();
    }
    expect(warned('NPW_DEP_ROUTER_START')).toEqual([
      'createWebhooksRouter(): `start` (a boolean, as before; router.start() stays) is ' +
        'deprecated and will be removed in 2.0: use `autoStart`.',
    ]);
  });

  it('refuses start and autoStart with different values', async () => {
    await expect(
      createWebhooksRouter(options({ start: false, autoStart: true })),
    ).rejects.toMatchObject({
      name: WebhookConfigurationError.name,
      message: expect.stringContaining('remove `start` and keep `autoStart`'),
    });
  });
});
