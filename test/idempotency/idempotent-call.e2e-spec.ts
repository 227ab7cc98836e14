import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { eventually } from '../../lib/spec-support/eventually';
import { Gate } from '../../lib/spec-support/gate';
import {
  WebhookConfigurationError,
  webhookEntities,
  webhooksMigrations,
} from 'nestjs-payment-webhooks';
import {
  idempotencyEntities,
  idempotencyKeyFor,
  IdempotencyKeyFormatError,
  IdempotencyKeyInProgressError,
  IdempotentCall,
  IdempotentCallEntity,
  idempotencyMigrations,
} from 'nestjs-payment-webhooks/idempotency';
import {
  DataSourceTransactions,
  TypeOrmIdempotencyStore,
  TypeOrmWebhookStore,
} from '../support/internals';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A provider refund API stand-in that counts what it is asked to do. */
class ProviderRefunds {
  readonly keys: string[] = [];
  failuresLeft = 0;
  delayMs = 0;
  /** Refunds wait for its opening before they answer. */
  gate?: Gate;

  async refund(key: string, amount: number): Promise<{ id: string; amount: number }> {
    this.keys.push(key);
    if (this.delayMs) {
      await sleep(this.delayMs);
    }
    await this.gate?.opened;
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      throw new Error('provider answered 503');
    }
    return { id: `re_${this.keys.length}`, amount };
  }
}

describe.each([
  ['sqlite', 'webhook store'],
  ['postgres', 'webhook store'],
  ['sqlite', 'own'],
  ['postgres', 'own'],
] as const)('IdempotentCall on %s with the transactions of its %s', (kind, transactions) => {
  let dataSource: DataSource;
  let store: TypeOrmIdempotencyStore;
  let calls: IdempotentCall;
  let cleanup: () => Promise<void>;
  let sequence = 0;
  const nextKey = () => idempotencyKeyFor('refund', `order-${process.pid}-${sequence++}`);

  beforeAll(async () => {
    let database: TestDatabase | undefined;
    let dir: string | undefined;
    if (kind === 'postgres') {
      database = await createTestDatabase();
      dataSource = new DataSource({
        type: 'postgres',
        url: database.url,
        entities: [...webhookEntities, ...idempotencyEntities],
        migrations: [...webhooksMigrations, ...idempotencyMigrations],
        migrationsRun: true,
      });
    } else {
      dir = mkdtempSync(join(tmpdir(), 'pw-idem-call-'));
      dataSource = new DataSource({
        type: 'better-sqlite3',
        database: join(dir, 'calls.sqlite'),
        entities: [...webhookEntities, ...idempotencyEntities],
        migrations: [...webhooksMigrations, ...idempotencyMigrations],
        migrationsRun: true,
      });
    }
    await dataSource.initialize();
    let webhookStore: TypeOrmWebhookStore | undefined;
    if (transactions === 'webhook store') {
      webhookStore = new TypeOrmWebhookStore(dataSource);
      await webhookStore.initialize();
    }
    store = new TypeOrmIdempotencyStore(
      dataSource,
      webhookStore ?? new DataSourceTransactions(dataSource),
    );
    await store.initialize();
    calls = new IdempotentCall(store);
    cleanup = async () => {
      await dataSource.destroy();
      await database?.drop();
      if (dir) {
        rmSync(dir, { recursive: true, force: true });
      }
    };
  });
  afterAll(() => cleanup());

  const row = (key: string) =>
    dataSource.getRepository(IdempotentCallEntity).findOneByOrFail({ key });

  it('calls out once and returns the stored result to every later run (done)', async () => {
    const provider = new ProviderRefunds();
    const key = nextKey();
    const first = await calls.run(key, (k) => provider.refund(k, 500));
    const second = await calls.run(key, (k) => provider.refund(k, 500));
    expect(first).toEqual({ id: 're_1', amount: 500 });
    expect(second).toEqual(first);
    expect(provider.keys).toEqual([key]);
    expect(await row(key)).toMatchObject({
      scope: 'refund',
      state: 'done',
      attempts: 1,
      result: JSON.stringify(first),
      error: null,
      lockToken: null,
      lockedUntil: null,
    });
  });

  it('passes its key to the call, to be sent as the provider Idempotency-Key', async () => {
    const key = nextKey();
    const seen = await calls.run(key, async (k) => k);
    expect(seen).toBe(key);
  });

  it('records a thrown error as failed and calls out again on the next run', async () => {
    const provider = new ProviderRefunds();
    provider.failuresLeft = 1;
    const key = nextKey();
    await expect(calls.run(key, (k) => provider.refund(k, 700))).rejects.toThrow(
      'provider answered 503',
    );
    expect(await row(key)).toMatchObject({
      state: 'failed',
      attempts: 1,
      result: null,
      error: 'Error: provider answered 503',
    });
    const retried = await calls.run(key, (k) => provider.refund(k, 700));
    expect(retried).toEqual({ id: 're_2', amount: 700 });
    expect(provider.keys).toEqual([key, key]);
    expect(await row(key)).toMatchObject({ state: 'done', attempts: 2, error: null });
    await calls.run(key, (k) => provider.refund(k, 700));
    expect(provider.keys).toHaveLength(2);
  });

  it('refuses a second attempt while the first runs (in_progress), with retryAfterMs', async () => {
    const provider = new ProviderRefunds();
    const gate = (provider.gate = new Gate());
    const key = nextKey();
    const first = calls.run(key, (k) => provider.refund(k, 100), { leaseMs: 5000 });
    await eventually(() => provider.keys.length === 1);
    const second = await calls.run(key, (k) => provider.refund(k, 100)).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(IdempotencyKeyInProgressError);
    const error = second as IdempotencyKeyInProgressError;
    expect(error.key).toBe(key);
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(error.retryAfterMs).toBeLessThanOrEqual(5000);
    gate.open();
    expect(await first).toEqual({ id: 're_1', amount: 100 });
    expect(provider.keys).toEqual([key]);
  });

  it('lets exactly one of many concurrent runs call out', async () => {
    const provider = new ProviderRefunds();
    provider.delayMs = 100;
    const key = nextKey();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => calls.run(key, (k) => provider.refund(k, 250))),
    );
    expect(provider.keys).toEqual([key]);
    const fulfilled = outcomes.filter((o) => o.status === 'fulfilled');
    const rejected = outcomes.filter((o) => o.status === 'rejected');
    expect(fulfilled.length).toBeGreaterThanOrEqual(1);
    for (const outcome of rejected) {
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(
        IdempotencyKeyInProgressError,
      );
    }
    expect(await calls.run(key, (k) => provider.refund(k, 250))).toEqual({
      id: 're_1',
      amount: 250,
    });
  });

  it('renews the lease while the call runs longer than it', async () => {
    const provider = new ProviderRefunds();
    const gate = (provider.gate = new Gate());
    const key = nextKey();
    const first = calls.run(key, (k) => provider.refund(k, 300), { leaseMs: 1000 });
    await eventually(() => provider.keys.length === 1);
    // The claim was made before the call went out: its lease of 1 s ends before this.
    const claimedLeaseEnd = Date.now() + 1000;
    const { lockedUntil: claimed } = await row(key);
    await eventually(
      async () => Date.now() > claimedLeaseEnd && (await row(key)).lockedUntil! > claimed!,
    );
    await expect(calls.run(key, (k) => provider.refund(k, 300))).rejects.toBeInstanceOf(
      IdempotencyKeyInProgressError,
    );
    gate.open();
    await first;
    expect(provider.keys).toEqual([key]);
  });

  it('takes over a call whose attempt crashed once its lease has run out', async () => {
    const provider = new ProviderRefunds();
    const key = nextKey();
    // A process claimed the call and died: nothing renews or settles it.
    const crashed = await store.claimCall({
      scope: 'refund',
      key,
      ttlMs: 3_600_000,
      leaseMs: 1000,
      now: new Date(),
    });
    expect(crashed.outcome).toBe('acquired');
    await expect(calls.run(key, (k) => provider.refund(k, 900))).rejects.toBeInstanceOf(
      IdempotencyKeyInProgressError,
    );
    // Its lease runs out (as one second later): the time it was locked until is past.
    await dataSource
      .getRepository(IdempotentCallEntity)
      .update({ key }, { lockedUntil: new Date(Date.now() - 1) });
    expect(await calls.run(key, (k) => provider.refund(k, 900))).toEqual({
      id: 're_1',
      amount: 900,
    });
    expect(await row(key)).toMatchObject({ state: 'done', attempts: 2 });
    // The crashed attempt can no longer settle the call.
    if (crashed.outcome === 'acquired') {
      expect(await store.failCall(crashed.id, crashed.token, 'late', new Date())).toBe(false);
    }
    expect(await row(key)).toMatchObject({ state: 'done' });
  });

  it('returns the JSON form of a result on the first run as on replays', async () => {
    const key = nextKey();
    const at = new Date('2026-01-02T03:04:05.678Z');
    const first = await calls.run(key, async () => ({ at, amount: 5 }));
    const replayed = await calls.run(key, async () => ({ at: new Date(), amount: 6 }));
    expect(first).toEqual({ at: '2026-01-02T03:04:05.678Z', amount: 5 });
    expect(replayed).toEqual(first);
    const none = nextKey();
    expect(await calls.run(none, async () => undefined)).toBeUndefined();
    let called = 0;
    expect(await calls.run(none, async () => ++called)).toBeUndefined();
    expect(called).toBe(0);
  });

  it('fails a result that cannot be stored as JSON, and the call may be retried', async () => {
    const key = nextKey();
    await expect(calls.run(key, async () => ({ amount: 10n }))).rejects.toThrow(
      /cannot be stored as JSON/,
    );
    expect(await row(key)).toMatchObject({ state: 'failed' });
    expect(await calls.run(key, async () => ({ amount: '10' }))).toEqual({ amount: '10' });
  });

  it('keeps keys of different scopes apart', async () => {
    const key = `shared-${process.pid}-${sequence++}`;
    const a = await calls.run(key, async () => 'a', { scope: 'refund' });
    const b = await calls.run(key, async () => 'b', { scope: 'capture' });
    expect([a, b]).toEqual(['a', 'b']);
  });

  it('refuses a malformed key and options out of range', async () => {
    await expect(calls.run('has space', async () => 1)).rejects.toBeInstanceOf(
      IdempotencyKeyFormatError,
    );
    await expect(calls.run('', async () => 1)).rejects.toBeInstanceOf(IdempotencyKeyFormatError);
    await expect(calls.run(nextKey(), async () => 1, { ttlMs: 1000 })).rejects.toThrow(
      WebhookConfigurationError,
    );
    await expect(calls.run(nextKey(), async () => 1, { leaseMs: 10 })).rejects.toThrow(/`leaseMs`/);
  });

  it('purges expired calls in batches and keeps running ones', async () => {
    const expired = [nextKey(), nextKey(), nextKey()];
    for (const key of expired) {
      await calls.run(key, async () => 'ok');
    }
    const failed = nextKey();
    await calls.run(failed, async () => Promise.reject(new Error('x'))).catch(() => undefined);
    const running = nextKey();
    await store.claimCall({
      scope: 'refund',
      key: running,
      ttlMs: 3_600_000,
      leaseMs: 60 * 60_000,
      now: new Date(),
    });
    const kept = nextKey();
    await calls.run(kept, async () => 'kept');

    // Two hours later the first ones have expired (ttl 1 h); the running one's lease has not.
    await dataSource
      .createQueryBuilder()
      .update(IdempotentCallEntity)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('idempotency_key IN (:...keys)', { keys: [...expired, failed, running] })
      .execute();
    const purged = await store.purgeExpired(new Date(), 2);
    expect(purged).toEqual({ keys: 0, calls: 4 });
    const left = await dataSource
      .getRepository(IdempotentCallEntity)
      .findBy([...expired, failed, running, kept].map((key) => ({ key })));
    expect(left.map((r) => r.key).sort()).toEqual([kept, running].sort());
  });
});
