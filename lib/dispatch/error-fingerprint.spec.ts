import { join } from 'node:path';
import {
  errorClassOf,
  errorFingerprint,
  firstAppFrame,
  maskedMessage,
  readableError,
} from './error-fingerprint';

/** An error as thrown from `/app/src/shop.handlers.ts`, through a library in node_modules. */
function thrown(message: string, line = 41, name = 'Error'): Error {
  const error = new Error(message);
  error.name = name;
  error.stack =
    `${name}: ${message}\n` +
    '    at Client.request (/app/node_modules/pg/lib/client.js:526:17)\n' +
    `    at ShopHandlers.onPaid (/app/src/shop.handlers.ts:${line}:11)\n` +
    '    at processTicksAndRejections (node:internal/process/task_queues:95:5)';
  return error;
}

describe('errorFingerprint', () => {
  it('is the same for one cause whatever ids, amounts and line numbers the failures carry', () => {
    const one = thrown(
      'Order 1042 not found for pi_3NkABCDEF12345 (550e8400-e29b-41d4-a716-446655440000)',
      41,
    );
    const two = thrown(
      'Order 77 not found for pi_3NkZZZZZZ99999 (6ba7b810-9dad-11d1-80b4-00c04fd430c8)',
      58,
    );
    expect(errorFingerprint(one, '/app')).toBe(errorFingerprint(two, '/app'));
    expect(errorFingerprint(one, '/app')).toMatch(/^[0-9a-f]{16}$/);
  });

  it('tells apart another class, another message and another place in the app', () => {
    const base = errorFingerprint(thrown('Order 1 not found'), '/app');
    expect(errorFingerprint(thrown('Order 1 not found', 41, 'TypeError'), '/app')).not.toBe(base);
    expect(errorFingerprint(thrown('Stock 1 exhausted'), '/app')).not.toBe(base);
    const elsewhere = thrown('Order 1 not found');
    elsewhere.stack = elsewhere.stack!.replace('ShopHandlers.onPaid', 'ShopHandlers.onRefund');
    expect(errorFingerprint(elsewhere, '/app')).not.toBe(base);
  });

  it('fingerprints what is not an Error by its type and text', () => {
    expect(errorClassOf('boom')).toBe('string');
    expect(errorFingerprint('boom 12')).toBe(errorFingerprint('boom 13'));
    expect(errorFingerprint('boom')).not.toBe(errorFingerprint({ toString: () => 'boom' }));
  });
});

describe('the parts of a fingerprint', () => {
  it('masks ids of several parts whatever letters their parts hold', () => {
    expect(maskedMessage(new Error('order for evt_9128_mx78xtqk_2 can never be applied'))).toBe(
      'order for <id> can never be applied',
    );
    expect(maskedMessage(new Error('no seat_map here'))).toBe('no seat_map here');
  });

  it('masks ids and numbers, and keeps the words', () => {
    expect(maskedMessage(new Error('Order 1042 of acct_1AbCdEf234 refused: HTTP 503'))).toBe(
      'Order <n> of <id> refused: HTTP <n>',
    );
  });

  it('takes the first frame in the app, relative to it, without line and column', () => {
    expect(firstAppFrame(thrown('x'), '/app')).toBe('ShopHandlers.onPaid src/shop.handlers.ts');
  });

  it('prints the error on several lines with paths relative to the app', () => {
    const text = readableError(thrown('Order 1 not found'), '/app');
    expect(text.split('\n')).toEqual([
      'Error: Order 1 not found',
      '    at Client.request (node_modules/pg/lib/client.js:526:17)',
      '    at ShopHandlers.onPaid (src/shop.handlers.ts:41:11)',
    ]);
  });

  it("writes an ES module's frames (file:// URLs) relative to the app too, as a CommonJS app's", () => {
    const error = new Error('no such table: orders');
    error.stack =
      'QueryFailedError: no such table: orders\n' +
      '    at OrderPayments.paid (file:///app/dist/app.module.js:51:19)\n' +
      '    at Object.run (/app/dist/orders.js:12:3)';
    expect(readableError(error, '/app').split('\n').slice(1)).toEqual([
      '    at OrderPayments.paid (dist/app.module.js:51:19)',
      '    at Object.run (dist/orders.js:12:3)',
    ]);
  });

  it("folds each run of the package's own frames into one line, so the app's fit", () => {
    const own = join(__dirname, 'handler-runs.ts');
    const error = new Error('boom');
    error.stack = [
      'Error: boom',
      `    at HandlerRuns.invoke (${own}:10:1)`,
      '    at OrderPayments.paid (/app/src/orders.ts:41:30)',
      ...Array.from({ length: 7 }, (_, i) => `    at async HandlerRuns.step${i} (${own}:${i}:1)`),
      '    at Shop.bootstrap (/app/src/main.ts:9:3)',
      `    at HandlerRuns.last (${own}:99:1)`,
    ].join('\n');

    expect(readableError(error, '/app').split('\n').slice(1)).toEqual([
      '    … 1 frame of nestjs-payment-webhooks',
      '    at OrderPayments.paid (src/orders.ts:41:30)',
      '    … 7 frames of nestjs-payment-webhooks',
      '    at Shop.bootstrap (src/main.ts:9:3)',
      '    … 1 frame of nestjs-payment-webhooks',
    ]);
    expect(firstAppFrame(error, '/app')).toBe('OrderPayments.paid src/orders.ts');
  });
});
