import { ProviderStatusError, WebhookVerificationError } from '../core/webhook-errors';
import { ApiCallBudgetOptions, ProviderApiCalls } from './provider-api-calls';

/** A provider API whose answers the test releases, counting the calls made. */
class FakeApi {
  readonly calls: string[] = [];
  private readonly pending: { id: string; release: (found: boolean) => void; fail: () => void }[] =
    [];

  fetch(id: string): Promise<{ id: string }> {
    this.calls.push(id);
    return new Promise((resolve, reject) => {
      this.pending.push({
        id,
        release: (found) =>
          found
            ? resolve({ id })
            : reject(new ProviderStatusError('not_found', `no payment ${id}`, 404)),
        fail: () => reject(new ProviderStatusError('unavailable', 'Mollie answered 503', 503)),
      });
    });
  }

  /** Answers every call still open: found, not found, or failed. */
  answer(how: 'found' | 'not_found' | 'fail'): void {
    for (const call of this.pending.splice(0)) {
      if (how === 'fail') call.fail();
      else call.release(how === 'found');
    }
  }
}

async function reasonOf(lookup: Promise<unknown>): Promise<WebhookVerificationError> {
  try {
    await lookup;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error;
    throw error;
  }
  throw new Error('the lookup did not refuse');
}

describe('ProviderApiCalls', () => {
  let now = 0;
  const clock = () => now;
  let api: FakeApi;
  const callsOf = (budget?: ApiCallBudgetOptions) =>
    new ProviderApiCalls({ endpoint: 'mollie', kind: 'mollie', provider: 'Mollie', budget }, clock);
  const lookup = (calls: ProviderApiCalls, id: string) =>
    calls.lookup(id, `payment ${id}`, () => api.fetch(id));

  beforeEach(() => {
    now = 1_000_000;
    api = new FakeApi();
  });

  it('makes one call for deliveries about one payment at once: only the first may store what it found', async () => {
    const calls = callsOf();
    const first = lookup(calls, 'tr_1');
    const joined = [lookup(calls, 'tr_1'), lookup(calls, 'tr_1')].map(reasonOf);
    now += 40;
    api.answer('found');
    expect(await first).toEqual({ kind: 'fetched', value: { id: 'tr_1' } });
    for (const refusal of await Promise.all(joined)) {
      expect(refusal.reason).toBe('unconfirmed');
      expect(refusal.message).toMatch(
        /^The Mollie API was asked about payment tr_1 0 ms ago for another delivery; .* refused \(503\) so that Mollie calls again/,
      );
    }
    expect(api.calls).toEqual(['tr_1']);
  });

  it('refuses a delivery about a payment found less than 2 s ago, and asks again after', async () => {
    const calls = callsOf();
    const first = lookup(calls, 'tr_1');
    api.answer('found');
    await first;
    now += 1_999;
    expect((await reasonOf(lookup(calls, 'tr_1'))).message).toMatch(/1999 ms ago/);
    now += 1;
    const fresh = lookup(calls, 'tr_1');
    api.answer('found');
    expect(await fresh).toEqual({ kind: 'fetched', value: { id: 'tr_1' } });
    expect(api.calls).toEqual(['tr_1', 'tr_1']);
  });

  it('tells "not found" for 30 s without asking, to a delivery that joined the call too', async () => {
    const calls = callsOf();
    const first = lookup(calls, 'tr_x');
    const joined = lookup(calls, 'tr_x');
    api.answer('not_found');
    expect(await first).toEqual({ kind: 'not_found' });
    expect(await joined).toEqual({ kind: 'not_found', sharedAgeMs: 0 });
    now += 29_999;
    expect(await lookup(calls, 'tr_x')).toEqual({ kind: 'not_found', sharedAgeMs: 29_999 });
    expect(api.calls).toHaveLength(1);
    now += 1;
    const again = lookup(calls, 'tr_x');
    api.answer('not_found');
    await again;
    expect(api.calls).toHaveLength(2);
  });

  it('remembers no failure: the deliveries that joined the call get its error, the next asks again', async () => {
    const calls = callsOf();
    const first = lookup(calls, 'tr_1');
    const joined = lookup(calls, 'tr_1');
    api.answer('fail');
    await expect(first).rejects.toMatchObject({ failure: 'unavailable' });
    await expect(joined).rejects.toMatchObject({ failure: 'unavailable' });
    const next = lookup(calls, 'tr_1');
    api.answer('found');
    expect(await next).toMatchObject({ kind: 'fetched' });
    expect(api.calls).toHaveLength(2);
  });

  it('makes no call past its budget, and says when one is back and which option to raise', async () => {
    const calls = callsOf({ perMinute: 60, burst: 3 });
    const made = ['tr_1', 'tr_2', 'tr_3'].map((id) => lookup(calls, id));
    const refusal = await reasonOf(lookup(calls, 'tr_4'));
    expect(refusal.reason).toBe('api_budget_spent');
    expect(refusal.retryAfterMs).toBe(1_000);
    expect(refusal.message).toMatch(
      /^Endpoint "mollie" has spent its budget of Mollie API calls \(apiCallBudget: 60 per minute, burst 3\), so payment tr_4 was not looked up: refused \(503, Retry-After 1 s\).* raise apiCallBudget.perMinute \(or apiCallBudget.burst\) of endpoint "mollie"/,
    );
    api.answer('found');
    await Promise.all(made);
    // NOTE: an answer remembered costs nothing.
    expect((await reasonOf(lookup(calls, 'tr_1'))).reason).toBe('unconfirmed');
    now += 1_000;
    const later = lookup(calls, 'tr_4');
    api.answer('found');
    expect(await later).toMatchObject({ kind: 'fetched' });
    expect(api.calls).toEqual(['tr_1', 'tr_2', 'tr_3', 'tr_4']);
  });

  it('makes 60 calls at once and 5 a second (300 a minute) by default', async () => {
    const calls = callsOf();
    const settled = async (ids: string[]) => {
      const asked = ids.map((id) => lookup(calls, id));
      api.answer('not_found');
      return (await Promise.allSettled(asked)).filter((r) => r.status === 'rejected').length;
    };
    expect(await settled(Array.from({ length: 70 }, (_, i) => `tr_${i}`))).toBe(10);
    now += 1_000;
    expect(await settled(['tr_a', 'tr_b', 'tr_c', 'tr_d', 'tr_e', 'tr_f'])).toBe(1);
    now += 60_000;
    expect(await settled(Array.from({ length: 61 }, (_, i) => `tr_m${i}`))).toBe(1);
    expect(api.calls).toHaveLength(125);
  });

  it('remembers at most 1000 answers, the oldest forgotten first', async () => {
    const calls = callsOf({ perMinute: 10_000, burst: 2_000 });
    for (let i = 0; i <= 1_000; i += 1) {
      const asked = lookup(calls, `tr_${i}`);
      api.answer('not_found');
      await asked;
    }
    const again = [lookup(calls, 'tr_1000'), lookup(calls, 'tr_0')];
    api.answer('not_found');
    expect(await Promise.all(again)).toEqual([
      { kind: 'not_found', sharedAgeMs: 0 },
      { kind: 'not_found' },
    ]);
    expect(api.calls).toHaveLength(1_002);
  });

  it.each([
    [
      { perMinute: 0 },
      /apiCallBudget.perMinute must be a whole number of calls, 1 or more \(got 0\); leave it out for 300/,
    ],
    [
      { burst: 2.5 },
      /apiCallBudget.burst must be a whole number of calls, 1 or more \(got 2.5\); leave it out for 60/,
    ],
    [100, /apiCallBudget must be an object, e.g. apiCallBudget: \{ perMinute: 300, burst: 60 \}/],
  ])('refuses apiCallBudget %j at startup', (budget, message) => {
    expect(() => callsOf(budget as ApiCallBudgetOptions)).toThrow(message);
    expect(() => callsOf(budget as ApiCallBudgetOptions)).toThrow(
      /Webhook endpoint "mollie" \(mollie\)/,
    );
  });
});
