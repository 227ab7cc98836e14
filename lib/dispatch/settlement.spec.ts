import { ProviderStatusError } from '../core/webhook-errors';
import { NonRetryableError } from './non-retryable.error';
import { AttemptResult, RetryPolicy, SettlementContext, decideSettlement } from './settlement';

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 5000, maxDelayMs: 3_600_000 };
const now = new Date('2026-03-01T12:00:00.000Z');

function at(attempt: number, random: () => number = () => 0.5): SettlementContext {
  return { attempt, now, policy, random };
}

function delayOf(settlement: ReturnType<typeof decideSettlement>): number {
  if (settlement.status !== 'retrying') {
    throw new Error(`expected retrying, got ${settlement.status}`);
  }
  return settlement.nextAttemptAt.getTime() - now.getTime();
}

function declined(): Error {
  return new Error('card declined');
}

const handled = (
  failures: { key: string; error: unknown }[],
  extra: { outcome?: string | null; providerStatus?: string | null } = {},
): AttemptResult => ({
  kind: 'handled',
  failures: failures.map((failure) => ({ ...failure, startedAt: now, finishedAt: now })),
  outcome: extra.outcome ?? null,
  providerStatus: extra.providerStatus ?? null,
});

describe('decideSettlement', () => {
  describe('after the handlers ran', () => {
    it('is processed when none failed, keeping the outcomes and the provider status', () => {
      expect(
        decideSettlement(
          handled([], { outcome: 'fulfilled,invoiced', providerStatus: 'paid' }),
          at(1),
        ),
      ).toEqual({ status: 'processed', outcome: 'fulfilled,invoiced', providerStatus: 'paid' });
      expect(decideSettlement(handled([]), at(5))).toEqual({
        status: 'processed',
        outcome: null,
        providerStatus: null,
      });
    });

    it('is retried with backoff when a handler failed and attempts are left', () => {
      const settlement = decideSettlement(
        handled([{ key: 'Orders.paid', error: declined() }], { providerStatus: 'succeeded' }),
        at(1, () => 0),
      );
      expect(settlement).toMatchObject({
        status: 'retrying',
        nextAttemptAt: new Date(now.getTime() + 2500),
        summary: 'Orders.paid: Error: card declined',
        providerStatus: 'succeeded',
      });
    });

    it("keeps the handler's first frames in the error, after the one-line summary, relative to the app", () => {
      const error = declined();
      error.stack =
        'Error: card declined\n' +
        `    at Orders.paid (${process.cwd()}/src/orders.ts:41:30)\n` +
        `    at HandlerRuns.runOne (${__dirname}/handler-runs.ts:201:11)\n` +
        `    at async HandlerRuns.run (${__dirname}/handler-runs.ts:133:35)`;
      const settlement = decideSettlement(handled([{ key: 'Orders.paid', error }]), at(2));
      expect(settlement.status).toBe('retrying');
      const { error: stored, summary } = settlement as { error: string; summary: string };
      expect(stored.split('\n')).toEqual([
        summary,
        '    at Orders.paid (src/orders.ts:41:30)',
        '    … 2 frames of nestjs-payment-webhooks',
      ]);
    });

    it('writes a null provider status on a retry when the provider was not asked', () => {
      const settlement = decideSettlement(
        handled([{ key: 'Orders.paid', error: declined() }]),
        at(1),
      );
      expect(settlement).toHaveProperty('providerStatus', null);
    });

    it('is dead when the last attempt failed', () => {
      const settlement = decideSettlement(
        handled([{ key: 'Orders.paid', error: declined() }]),
        at(policy.maxAttempts),
      );
      expect(settlement).toMatchObject({
        status: 'dead',
        summary: 'Orders.paid: Error: card declined',
      });
      expect(settlement).not.toHaveProperty('nextAttemptAt');
    });

    it('is retried on the attempt before the last', () => {
      expect(
        decideSettlement(handled([{ key: 'a', error: declined() }]), at(policy.maxAttempts - 1))
          .status,
      ).toBe('retrying');
    });

    it('is dead at once when a handler threw NonRetryableError, attempts left or not', () => {
      const settlement = decideSettlement(
        handled([
          { key: 'Orders.paid', error: declined() },
          { key: 'Ledger.book', error: new NonRetryableError('unknown currency XTS') },
        ]),
        at(1),
      );
      expect(settlement).toMatchObject({
        status: 'dead',
        summary:
          'Orders.paid: Error: card declined; Ledger.book: NonRetryableError: unknown currency XTS',
      });
    });

    it('treats a thrown non-Error as retryable and describes it as text', () => {
      expect(decideSettlement(handled([{ key: 'a', error: 'boom' }]), at(1))).toMatchObject({
        status: 'retrying',
        summary: 'a: boom',
        error: 'a: boom',
      });
    });
  });

  describe('when the provider was asked first', () => {
    const asked = 'Asking stripe about stripe/evt_1';

    it('retries when the provider could not answer, keeping the stored provider status', () => {
      const settlement = decideSettlement(
        { kind: 'provider-failed', asked, error: new ProviderStatusError('timeout', 'timed out') },
        at(1),
      );
      expect(settlement).toMatchObject({
        status: 'retrying',
        error: `${asked} failed: ProviderStatusError: timed out`,
        summary: `${asked} failed: ProviderStatusError: timed out`,
      });
      expect(settlement).not.toHaveProperty('providerStatus');
    });

    it('retries on any other error from the client (a network failure)', () => {
      expect(
        decideSettlement({ kind: 'provider-failed', asked, error: new Error('ECONNRESET') }, at(1))
          .status,
      ).toBe('retrying');
    });

    it('is dead when the provider will never answer (not retryable)', () => {
      expect(
        decideSettlement(
          {
            kind: 'provider-failed',
            asked,
            error: new ProviderStatusError('not_found', 'no such'),
          },
          at(1),
        ),
      ).toEqual({
        status: 'dead',
        error: `${asked} failed: ProviderStatusError: no such`,
        summary: `${asked} failed: ProviderStatusError: no such`,
      });
    });

    it('is dead when the provider could not answer on the last attempt', () => {
      expect(
        decideSettlement(
          { kind: 'provider-failed', asked, error: new ProviderStatusError('unavailable', '503') },
          at(policy.maxAttempts),
        ).status,
      ).toBe('dead');
    });

    it('retries while the provider has not reached the event state, keeping its status', () => {
      const reason = 'yookassa reports status "pending" for pay_1, not yet payment.succeeded';
      const settlement = decideSettlement(
        { kind: 'provider-pending', reason, providerStatus: 'pending' },
        at(3),
      );
      expect(settlement).toMatchObject({
        status: 'retrying',
        error: reason,
        summary: reason,
        providerStatus: 'pending',
      });
      expect(
        decideSettlement(
          { kind: 'provider-pending', reason, providerStatus: 'pending' },
          at(policy.maxAttempts),
        ),
      ).toEqual({ status: 'dead', error: reason, summary: reason });
    });

    it('is processed as provider_disagrees when the provider reports another final state', () => {
      expect(
        decideSettlement({ kind: 'provider-disagrees', providerStatus: 'canceled' }, at(1)),
      ).toEqual({ status: 'processed', outcome: 'provider_disagrees', providerStatus: 'canceled' });
    });
  });

  it('is ignored when no handler wants the event', () => {
    expect(decideSettlement({ kind: 'unhandled' }, at(1))).toEqual({ status: 'ignored' });
  });

  it('is dead when the event was claimed past its attempts because leases were lost', () => {
    expect(decideSettlement({ kind: 'lease-lost' }, at(policy.maxAttempts + 1))).toEqual({
      status: 'dead',
      error: 'Gave up after 5 attempts; the last ones never finished (worker lost its lease)',
      summary: 'Gave up after 5 attempts; the last ones never finished (worker lost its lease)',
    });
  });

  describe('the retry delay', () => {
    const failed = handled([{ key: 'a', error: declined() }]);
    const big: RetryPolicy = { maxAttempts: 100, baseDelayMs: 5000, maxDelayMs: 3_600_000 };

    it('doubles per attempt, with jitter between half and all of the step', () => {
      expect(
        delayOf(
          decideSettlement(
            failed,
            at(1, () => 0),
          ),
        ),
      ).toBe(2500);
      expect(
        delayOf(
          decideSettlement(
            failed,
            at(1, () => 1),
          ),
        ),
      ).toBe(5000);
      expect(
        delayOf(
          decideSettlement(
            failed,
            at(3, () => 0),
          ),
        ),
      ).toBe(10_000);
      expect(
        delayOf(
          decideSettlement(
            failed,
            at(3, () => 1),
          ),
        ),
      ).toBe(20_000);
    });

    it('stays within its bounds for every attempt and jitter value, never past the cap', () => {
      for (let attempt = 1; attempt < big.maxAttempts; attempt++) {
        const step = Math.min(big.maxDelayMs, big.baseDelayMs * 2 ** (attempt - 1));
        for (const random of [0, 0.001, 0.25, 0.5, 0.999, 1]) {
          const delay = delayOf(
            decideSettlement(failed, { attempt, now, policy: big, random: () => random }),
          );
          expect(delay).toBeGreaterThanOrEqual(Math.floor(step / 2));
          expect(delay).toBeLessThanOrEqual(step);
          expect(delay).toBeLessThanOrEqual(big.maxDelayMs);
        }
      }
    });

    it('counts from the given time, not the clock', () => {
      const later = new Date('2030-01-01T00:00:00.000Z');
      const settlement = decideSettlement(failed, {
        attempt: 1,
        now: later,
        policy,
        random: () => 1,
      });
      expect(settlement).toHaveProperty('nextAttemptAt', new Date(later.getTime() + 5000));
    });

    it('uses Math.random when no jitter source is given', () => {
      for (let i = 0; i < 50; i++) {
        const delay = delayOf(decideSettlement(failed, { attempt: 2, now, policy }));
        expect(delay).toBeGreaterThanOrEqual(5000);
        expect(delay).toBeLessThanOrEqual(10_000);
      }
    });
  });
});
