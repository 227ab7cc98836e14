import { stripeEndpoint } from '../providers/endpoints';
import { resolveWebhooksOptions } from '../options/webhooks-options.resolver';
import { PendingPaymentsQuery } from './pending-payments.source';
import { ReconciliationService } from './reconciliation';
import { catchDeprecationWarnings } from '../spec-support/deprecation-warnings';

const warned = catchDeprecationWarnings();
const NOW = new Date('2026-06-01T12:00:00Z');

/** A service over a Stripe endpoint with API credentials, and the queries its source was asked. */
function reconciliation(): { service: ReconciliationService; queries: PendingPaymentsQuery[] } {
  const queries: PendingPaymentsQuery[] = [];
  const endpoint = stripeEndpoint({
    name: 'stripe',
    secret: 'whsec_reconcile_options_spec',
    api: { apiKey: 'sk_test_reconcile_options_spec' },
  });
  const service = new ReconciliationService(
    resolveWebhooksOptions({ endpoints: [endpoint] }),
    {} as never,
    {} as never,
    {} as never,
    () => ({
      // NOTE: no payment is unfinished, so the provider's API is never called.
      pendingPayments: async (query) => {
        queries.push(query);
        return [];
      },
    }),
  );
  return { service, queries };
}

describe("ReconciliationService.reconcile()'s age: olderThanMs, and olderThan for a time", () => {
  beforeEach(() => jest.useFakeTimers({ now: NOW }));
  afterEach(() => jest.useRealTimers());

  it('asks for payments older than olderThanMs, or started before the olderThan time', async () => {
    const { service, queries } = reconciliation();
    await service.reconcile({ endpoint: 'stripe', olderThanMs: 60_000 });
    await service.reconcile({ endpoint: 'stripe', olderThan: new Date('2026-06-01T11:00:00Z') });
    await service.reconcile({ endpoint: 'stripe' });
    expect(queries.map((query) => NOW.getTime() - query.olderThan.getTime())).toEqual([
      60_000,
      3_600_000,
      15 * 60_000,
    ]);
    expect(warned('NPW_DEP_RECONCILE_OLDER_THAN')).toEqual([]);
  });

  it('still reads milliseconds given as olderThan, warning once', async () => {
    const { service, queries } = reconciliation();
    await service.reconcile({ endpoint: 'stripe', olderThan: 90_000 });
    await service.reconcile({ endpoint: 'stripe', olderThan: 90_000 });
    expect(queries.map((query) => NOW.getTime() - query.olderThan.getTime())).toEqual([
      90_000, 90_000,
    ]);
    expect(warned('NPW_DEP_RECONCILE_OLDER_THAN')).toEqual([
      'ReconciliationService.reconcile(): `olderThan` (milliseconds; a Date stays `olderThan`) ' +
        'is deprecated and will be removed in 2.0: use `olderThanMs`.',
    ]);
  });

  it('refuses an age and a time together, and two different ages', async () => {
    const { service, queries } = reconciliation();
    await expect(
      service.reconcile({ endpoint: 'stripe', olderThan: NOW, olderThanMs: 60_000 }),
    ).rejects.toThrow(/`olderThan` \(a time\) and `olderThanMs` \(an age\) are both given/);
    await expect(
      service.reconcile({ endpoint: 'stripe', olderThan: 60_000, olderThanMs: 90_000 }),
    ).rejects.toThrow(/remove `olderThan` and keep `olderThanMs`/);
    expect(queries).toEqual([]);
  });
});
