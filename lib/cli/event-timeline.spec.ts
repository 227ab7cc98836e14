import type { EventHistoryEntry, WebhookEventDetails } from '../admin/webhook-admin';
import { eventTimeline } from './event-timeline';

const at = (seconds: number) => new Date(Date.UTC(2025, 5, 30, 12, 0, seconds));

function entry(fields: Partial<EventHistoryEntry>): EventHistoryEntry {
  return {
    kind: 'attempt',
    at: at(0),
    finishedAt: null,
    attempt: null,
    handlerKey: null,
    outcome: 'retrying',
    errorClass: null,
    error: null,
    fingerprint: null,
    worker: null,
    actor: null,
    detail: null,
    ...fields,
  };
}

function details(
  history: EventHistoryEntry[],
  handlerRuns: WebhookEventDetails['handlerRuns'] = [],
): WebhookEventDetails {
  return {
    event: { id: 'e1', receivedAt: at(0), deliveryCount: 2 } as WebhookEventDetails['event'],
    handlerRuns,
    history,
  };
}

describe('eventTimeline', () => {
  it('lists deliveries, attempts, replays, runs and settlements in time order', () => {
    const lines = eventTimeline(
      details(
        [
          entry({
            at: at(1),
            finishedAt: new Date(at(1).getTime() + 250),
            attempt: 1,
            handlerKey: 'Orders.paid',
            outcome: 'dead',
            error: 'Error: ERP down\n    at Orders.paid (src/orders.ts:10:5)\n',
            worker: 'web-1',
          }),
          entry({
            kind: 'replay',
            at: at(5),
            outcome: 'dead',
            actor: 'alice@cli',
            detail: '{"status":["dead"],"handler":"Orders.paid"}',
          }),
          entry({ kind: 'replay', at: at(7), outcome: 'dead', detail: '{"id":"e1"}' }),
          entry({ kind: 'settle', at: at(9), outcome: 'ignored', actor: 'bob', detail: 'gone' }),
        ],
        [
          {
            eventId: 'e1',
            handlerKey: 'Orders.paid',
            attempt: 1,
            finishedAt: at(6),
            outcome: 'applied',
          },
        ],
      ),
    );
    expect(lines).toEqual([
      '  2025-06-30T12:00:00.000Z  received (2 deliveries in all)',
      '  2025-06-30T12:00:01.000Z  attempt 1 failed: Orders.paid → dead',
      '      2025-06-30T12:00:01.000Z → 2025-06-30T12:00:01.250Z (250 ms), worker web-1',
      '      Error: ERP down',
      '          at Orders.paid (src/orders.ts:10:5)',
      '  2025-06-30T12:00:05.000Z  replayed by alice@cli from dead (status=dead, handler=Orders.paid)',
      '  2025-06-30T12:00:06.000Z  Orders.paid succeeded on attempt 1 (outcome applied)',
      '  2025-06-30T12:00:07.000Z  replayed by (unnamed) from dead (by its id)',
      '  2025-06-30T12:00:09.000Z  settled ignored by hand by bob: gone',
    ]);
  });

  it('keeps an error line break a line break and escapes every other control character', () => {
    const lines = eventTimeline(
      details([entry({ attempt: 1, error: 'Error: a\r\n\u001b[2Jforged 4111111111111111' })]),
    );
    expect(lines.slice(-2)).toEqual(['      Error: a\\r', '      \\x1b[2Jforged 411111******1111']);
  });
});
