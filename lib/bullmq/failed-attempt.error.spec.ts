import { FailedAttemptError } from './failed-attempt.error';

describe('FailedAttemptError', () => {
  const event = { id: '5f0c8a9e-7a51-4d0e-9a55-0c1b1a2b3c4d', endpoint: 'stripe', tenant: '' };
  const at = new Date('2026-12-01T10:00:00.123Z');

  it('says on one line which attempt failed, why, and when the event runs again', () => {
    const error = new FailedAttemptError({ ...event, eventId: 'evt_1' }, 2, {
      status: 'retrying',
      nextAttemptAt: at,
      error: 'payments: Error: card declined\n    at handler (shop.ts:1:1)',
      summary: 'payments: Error: card declined',
    });
    expect(error.message).toBe(
      `Event ${event.id} (stripe/evt_1) attempt 2 failed: payments: Error: card declined; ` +
        'retrying at 2026-12-01T10:00:00.123Z',
    );
    expect(error.status).toBe('retrying');
    expect(error.stack).toBe(`FailedAttemptError: ${error.message}`);
  });

  it('says the event is dead, naming the tenant of a tenant endpoint', () => {
    const error = new FailedAttemptError(
      { ...event, endpoint: 'merchants', tenant: 'acme', eventId: 'evt_2' },
      3,
      { status: 'dead', error: 'refunds: Error: gone', summary: 'refunds: Error: gone' },
    );
    expect(error.message).toBe(
      `Event ${event.id} (merchants/acme/evt_2) attempt 3 failed: refunds: Error: gone; ` +
        'the event is dead',
    );
  });

  it('keeps a summary of any size and any characters to one bounded, masked line', () => {
    const summary = `payments: Error: card 4111111111111111 \u001b[31m${'x'.repeat(100_000)}`;
    const error = new FailedAttemptError({ ...event, eventId: 'evt\n3' }, 1, {
      status: 'dead',
      error: summary,
      summary,
    });
    expect(error.message.length).toBeLessThan(1_300);
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain('\u001b');
    expect(error.message).not.toContain('4111111111111111');
    expect(error.message).toContain('(stripe/evt\\n3)');
    expect(error.message).toMatch(/… \(\d+ characters\); the event is dead$/);
  });
});
