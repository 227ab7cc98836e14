import type { DispatchPause } from '../store/ports/pause-queries.port';
import type { RecordedNames } from '../store/ports/inbox-queries.port';
import { OperatorNames, UnknownNameError } from './operator-names';

describe('OperatorNames', () => {
  const configured = () => ({ endpoints: ['stripe', 'paypal'], handlers: ['Orders.onPaid'] });
  const recorded: RecordedNames = { endpoints: ['legacy', 'stripe'], handlers: ['Old.onPaid'] };
  const paused: DispatchPause[] = [
    { endpoint: 'retired', handler: '*', pausedAt: new Date(), pausedBy: null, reason: null },
  ];
  let reads: string[];
  const queries = {
    recordedNames: async () => {
      reads.push('recordedNames');
      return recorded;
    },
    pauses: async () => {
      reads.push('pauses');
      return paused;
    },
  };

  beforeEach(() => {
    reads = [];
  });

  it('lets configured names and "every" through without a query', async () => {
    const names = new OperatorNames(queries, configured);
    await names.check('pause', { endpoint: 'stripe', handler: 'Orders.onPaid' });
    await names.check('replay', { endpoint: '*', handler: undefined });
    await names.check('discard', {});
    expect(reads).toEqual([]);
  });

  it('knows, besides the configuration, the pauses for resume and the database for replay', async () => {
    const names = new OperatorNames(queries, configured);
    await expect(names.check('pause', { endpoint: 'retired' })).rejects.toThrow(UnknownNameError);
    await names.check('resume', { endpoint: 'retired' });
    await expect(names.check('resume', { endpoint: 'legacy' })).rejects.toThrow(
      /^No endpoint is named "legacy"; the configured endpoints and those of the pauses in force: paypal, retired, stripe\. Nothing was resumed\.$/,
    );
    await names.check('replay', { endpoint: 'legacy', handler: 'Old.onPaid' });
    await names.check('discard', { handler: 'Old.onPaid' });
    expect(reads).toEqual(['pauses', 'pauses', 'recordedNames', 'recordedNames']);
  });

  it('knows the recorded names only without a configuration, as in the CLI', async () => {
    const names = new OperatorNames(queries);
    await names.check('pause', { endpoint: 'legacy' });
    const refused = names.check('pause', { handler: 'Orders.onPiad' });
    await expect(refused).rejects.toMatchObject({ kind: 'handler', unknownName: 'Orders.onPiad' });
    await expect(refused).rejects.toThrow(/the handlers the database records, .*: Old\.onPaid\./);
    await expect(refused).rejects.toThrow(/admin routes, which know its configuration\.$/);
  });

  it('suggests the nearest known name of a typo', async () => {
    const names = new OperatorNames(queries, configured);
    await expect(names.check('pause', { endpoint: 'strpe' })).rejects.toThrow(
      'No endpoint is named "strpe" (did you mean "stripe"?); the configured endpoints: paypal, stripe. Nothing was paused.',
    );
    await expect(names.check('replay', { handler: 'orders.onpaid' })).rejects.toThrow(
      /did you mean "Orders.onPaid"\?/,
    );
  });
});
