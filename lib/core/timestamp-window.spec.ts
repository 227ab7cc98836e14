import { assertEventNotOlderThan } from './timestamp-window';
import { WebhookVerificationError } from './webhook-errors';

describe('assertEventNotOlderThan', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  const explain = (age: number) => `event is ${age}s old`;

  it('passes an event up to the limit old, and one dated in the future', () => {
    expect(() =>
      assertEventNotOlderThan(new Date('2026-02-28T12:00:00Z'), now, 86_400, explain),
    ).not.toThrow();
    expect(() =>
      assertEventNotOlderThan(new Date('2026-03-02T12:00:00Z'), now, 86_400, explain),
    ).not.toThrow();
  });

  it('refuses an older event as out of the window, with the explanation for its age', () => {
    let error: unknown;
    try {
      assertEventNotOlderThan(new Date('2026-02-28T11:59:59Z'), now, 86_400, explain);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({
      reason: 'timestamp_out_of_window',
      message: 'event is 86401s old',
    });
  });
});
