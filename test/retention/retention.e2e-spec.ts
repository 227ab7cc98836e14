import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  adyenEndpoint,
  stripeEndpoint,
  WebhookConfigurationError,
  WebhookEventStatus,
  WebhookRetention,
  webhooksMigrations,
  WebhooksModule,
  WebhooksModuleOptions,
  WebhookTransactions,
} from 'nestjs-payment-webhooks';
import { IdempotencyKeyEntity } from 'nestjs-payment-webhooks/idempotency';
import {
  resolveWebhooksOptions,
  WebhookEventEntity,
  WebhookHandlerRunEntity,
} from '../support/internals';
import { Database, eventually, startTestApp, TestApp } from '../support/test-app';
import { liveStatus, putInState } from '../support/inbox-state';

const DAY = 86_400_000;
/** A fixed "now" for the runs: the seeded ages are measured from it. */
const NOW = new Date('2025-06-30T12:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY);

const STRIPE = stripeEndpoint({ name: 'stripe', secret: 'whsec_retention' });

interface Seed {
  status: WebhookEventStatus;
  ageDays: number;
  /** Ledger rows to add for the event. */
  runs?: number;
}

/** A stored event as the ingress writes it, received `ageDays` before NOW. */
function eventRow(seed: Seed): WebhookEventEntity {
  const id = randomUUID();
  const body = JSON.stringify({ id: `evt_${id}`, type: 'payment_intent.succeeded' });
  const receivedAt = daysAgo(seed.ageDays);
  const settled = seed.status === 'processed' || seed.status === 'ignored';
  return Object.assign(new WebhookEventEntity(), {
    id,
    endpoint: 'stripe',
    provider: 'stripe',
    eventId: `evt_${id}`,
    type: 'payment.succeeded',
    nativeType: 'payment_intent.succeeded',
    paymentRef: `pi_${id}`,
    merchantRef: null,
    amount: 1000,
    currency: 'EUR',
    paymentStatus: 'succeeded',
    occurredAt: receivedAt,
    receivedAt,
    rawBody: body,
    bodySha256: createHash('sha256').update(body).digest('hex'),
    headers: { 'content-type': 'application/json', 'user-agent': 'Stripe/1.0' },
    status: seed.status,
    attempts: settled ? 1 : 0,
    nextAttemptAt: settled || seed.status === 'dead' ? null : receivedAt,
    lastError: seed.status === 'dead' ? 'card declined for good' : null,
    processedAt: settled ? receivedAt : null,
    deliveryCount: 1,
    outcome: null,
    providerStatus: null,
  });
}

describe.each<Database>(['sqlite', 'postgres'])('retention on %s', (database) => {
  let app: TestApp;
  let retention: WebhookRetention;
  let transactions: WebhookTransactions;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      idempotency: true,
      webhooks: {
        endpoints: [STRIPE],
        // NOTE: no workers, so the seeded pending rows stay exactly as seeded.
        dispatch: { enabled: false },
        retention: { processedDays: 10, dedupDays: 20, intervalMs: 0, batchSize: 3 },
      },
    });
    retention = app.app.get(WebhookRetention);
    transactions = app.app.get(WebhookTransactions);
  });

  afterAll(() => app.close());

  beforeEach(() =>
    transactions.run(async (manager) => {
      await manager.query('DELETE FROM webhook_handler_runs');
      await manager.query('DELETE FROM webhook_work');
      await manager.query('DELETE FROM webhook_events');
      await manager.query('DELETE FROM idempotency_keys');
    }),
  );

  async function seed(seeds: Seed[]): Promise<WebhookEventEntity[]> {
    const rows = seeds.map(eventRow);
    await transactions.run(async (manager) => {
      // NOTE: copies: on SQLite, insert() merges re-read rows back into the objects it is given.
      await manager.insert(
        WebhookEventEntity,
        rows.map((row) => ({ ...row })),
      );
      for (const [index, row] of rows.entries()) {
        if (row.status !== 'processed' && row.status !== 'ignored') {
          await putInState(manager, row.id, row.status, {
            attempts: row.attempts,
            nextAttemptAt: row.nextAttemptAt,
            lockedBy: row.status === 'processing' ? 'another-worker' : null,
            lockedUntil: row.status === 'processing' ? new Date(Date.now() + DAY) : null,
          });
        }
        for (let run = 0; run < (seeds[index].runs ?? 0); run += 1) {
          await manager.insert(WebhookHandlerRunEntity, {
            eventId: row.id,
            handlerKey: `Handlers.h${run}`,
            attempt: 1,
            finishedAt: row.receivedAt,
            outcome: 'applied',
          });
        }
      }
    });
    return rows;
  }

  /** The stored events, each with its live status (see `liveStatus()`). */
  const stored = () =>
    transactions.run(async (manager) => {
      const events = await manager.find(WebhookEventEntity);
      for (const event of events) {
        event.status = (await liveStatus(manager, event.id))!;
      }
      return events;
    });
  const ledgerOf = (eventId: string) =>
    transactions.run((manager) => manager.countBy(WebhookHandlerRunEntity, { eventId }));

  it('prunes payloads after processedDays, deletes after the dedup window, leaves everything else', async () => {
    const rows = await seed([
      { status: 'processed', ageDays: 25, runs: 2 }, // 0: deleted with its ledger
      { status: 'ignored', ageDays: 21 }, // 1: deleted
      { status: 'processed', ageDays: 19.9, runs: 1 }, // 2: pruned, kept (dedup window)
      { status: 'processed', ageDays: 15 }, // 3: pruned
      { status: 'ignored', ageDays: 12 }, // 4: pruned
      { status: 'processed', ageDays: 9.9, runs: 1 }, // 5: untouched
      { status: 'dead', ageDays: 60, runs: 1 }, // 6: untouched
      { status: 'pending', ageDays: 60 }, // 7: untouched
      { status: 'retrying', ageDays: 60 }, // 8: untouched
      { status: 'processing', ageDays: 60 }, // 9: untouched
    ]);
    const before = new Map(rows.map((row) => [row.id, row]));

    const report = await retention.run(NOW);

    expect(report).toEqual({
      payloadsPrunedBefore: daysAgo(10),
      eventsDeletedBefore: daysAgo(20),
      prunedPayloads: 3,
      deletedEvents: 2,
      deletedHandlerRuns: 2,
      idempotency: { keys: 0, calls: 0 },
    });
    const after = new Map((await stored()).map((row) => [row.id, row]));
    expect([...after.keys()].sort()).toEqual(
      rows
        .slice(2)
        .map((row) => row.id)
        .sort(),
    );
    for (const index of [2, 3, 4]) {
      const row = after.get(rows[index].id)!;
      expect(row.rawBody).toBe('');
      expect(row.headers).toEqual({});
      expect(row.bodySha256).toBe(rows[index].bodySha256);
      expect(row.eventId).toBe(rows[index].eventId);
      expect(row.paymentRef).toBe(rows[index].paymentRef);
      expect(row.status).toBe(rows[index].status);
    }
    for (const index of [5, 6, 7, 8, 9]) {
      const row = after.get(rows[index].id)!;
      const seeded = before.get(row.id)!;
      expect({ status: row.status, rawBody: row.rawBody, headers: row.headers }).toEqual({
        status: seeded.status,
        rawBody: seeded.rawBody,
        headers: seeded.headers,
      });
    }
    expect(await ledgerOf(rows[0].id)).toBe(0);
    expect(await ledgerOf(rows[2].id)).toBe(1);
    expect(await ledgerOf(rows[5].id)).toBe(1);
    expect(await ledgerOf(rows[6].id)).toBe(1);

    const again = await retention.run(NOW);
    expect([again.prunedPayloads, again.deletedEvents, again.deletedHandlerRuns]).toEqual([
      0, 0, 0,
    ]);
  });

  it('works through more rows than one batch, in batches', async () => {
    await seed(Array.from({ length: 7 }, () => ({ status: 'processed', ageDays: 30 })));
    const middle = await seed(
      Array.from({ length: 8 }, () => ({ status: 'ignored', ageDays: 15 })),
    );
    const fresh = await seed([{ status: 'processed', ageDays: 1 }]);

    const report = await retention.run(NOW);

    expect([report.deletedEvents, report.prunedPayloads]).toEqual([7, 8]);
    const after = await stored();
    expect(after.map((row) => row.id).sort()).toEqual(
      [...middle, ...fresh].map((row) => row.id).sort(),
    );
    expect(
      after
        .filter((row) => row.rawBody === '')
        .map((row) => row.id)
        .sort(),
    ).toEqual(middle.map((row) => row.id).sort());
  });

  if (database === 'postgres') {
    it('skips rows another transaction holds instead of waiting for them', async () => {
      const [held] = await seed([
        { status: 'processed', ageDays: 30 },
        { status: 'processed', ageDays: 30 },
      ]);
      const runner = app.dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        await runner.query('SELECT id FROM webhook_events WHERE id = $1 FOR UPDATE', [held.id]);
        const waited = new Promise<'waited'>((resolve) =>
          setTimeout(() => resolve('waited'), 5000).unref(),
        );
        const report = await Promise.race([retention.run(NOW), waited]);
        expect(report).not.toBe('waited');
        expect((report as { deletedEvents: number }).deletedEvents).toBe(1);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
      expect((await stored()).map((row) => row.id)).toEqual([held.id]);
      expect((await retention.run(NOW)).deletedEvents).toBe(1);
      expect(await stored()).toEqual([]);
    });
  }

  it('purges expired idempotency keys through the registered idempotency store', async () => {
    const key = (name: string, state: 'completed' | 'in_progress', expiresInDays: number) =>
      Object.assign(new IdempotencyKeyEntity(), {
        id: randomUUID(),
        scope: 'orders',
        principal: '',
        key: name,
        fingerprint: 'f'.repeat(64),
        state,
        lockToken: state === 'in_progress' ? randomUUID() : null,
        // NOTE: a lease still running at NOW: its holder is working, so the key stays.
        lockedUntil: state === 'in_progress' ? new Date(NOW.getTime() + DAY) : null,
        responseStatus: state === 'completed' ? 201 : null,
        responseHeaders: state === 'completed' ? { 'content-type': 'application/json' } : null,
        responseBody: state === 'completed' ? '{"id":"order-1"}' : null,
        responseEncoding: state === 'completed' ? 'utf8' : null,
        createdAt: daysAgo(3),
        expiresAt: new Date(NOW.getTime() + expiresInDays * DAY),
      });
    const keys = [
      key('expired', 'completed', -1),
      key('expired-held', 'in_progress', -1),
      key('live', 'completed', 1),
    ];
    await transactions.run((manager) =>
      manager.insert(
        IdempotencyKeyEntity,
        keys.map((key) => ({ ...key })),
      ),
    );

    const report = await retention.run(NOW);

    expect(report.idempotency).toEqual({ keys: 1, calls: 0 });
    const left = await transactions.run((manager) => manager.find(IdempotencyKeyEntity));
    expect(left.map((row) => row.key).sort()).toEqual(['expired-held', 'live']);
  });
});

describe('retention options', () => {
  const resolve = (options: Partial<WebhooksModuleOptions>) =>
    resolveWebhooksOptions({ endpoints: [STRIPE], ...options });
  const adyen = adyenEndpoint({ name: 'adyen-eu', hmacKey: '44782DEF547AAA06C910C43932B1EB0C' });

  it('defaults to 30 days of payloads and 7 days of dedup keys, every hour', () => {
    expect(resolve({}).retention).toEqual({
      processedDays: 30,
      dedupDays: 7,
      intervalMs: 3_600_000,
      batchSize: 500,
    });
  });

  it('refuses a dedup window below 7 days, naming the longest retry horizon configured', () => {
    expect(() => resolve({ retention: { dedupDays: 3 } })).toThrow(WebhookConfigurationError);
    expect(() => resolve({ retention: { dedupDays: 3 } })).toThrow(
      /retention\.dedupDays` must be at least 7 \(got 3\).*Stripe's 3 day\(s\)/,
    );
  });

  it("keeps dedup keys for Adyen's 30-day retry horizon when an Adyen endpoint is configured", () => {
    const options = resolveWebhooksOptions({ endpoints: [STRIPE, adyen] });
    expect(options.retention.dedupDays).toBe(30);
    expect(() =>
      resolveWebhooksOptions({ endpoints: [STRIPE, adyen], retention: { dedupDays: 7 } }),
    ).toThrow(
      /must be at least 30 \(got 7\): endpoint "adyen-eu" is adyen, and Adyen re-sends a delivery for up to 30 days/,
    );
  });

  it('refuses an interval under a second, a zero batch and fractional days', () => {
    expect(() => resolve({ retention: { intervalMs: 10 } })).toThrow(/intervalMs.*at least 1000/);
    expect(() => resolve({ retention: { batchSize: 0 } })).toThrow(/batchSize.*from 1 to 10000/);
    expect(() => resolve({ retention: { processedDays: 1.5 } })).toThrow(/processedDays/);
    expect(resolve({ retention: { intervalMs: 0 } }).retention.intervalMs).toBe(0);
  });

  it('fails the app at startup with the dedup floor error', async () => {
    @Module({
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: join(mkdtempSync(join(tmpdir(), 'pw-retention-')), 'inbox.sqlite'),
          autoLoadEntities: true,
          migrations: webhooksMigrations,
          migrationsRun: true,
        }),
        WebhooksModule.forRoot({ endpoints: [STRIPE], retention: { dedupDays: 2 } }),
      ],
    })
    class TooShortModule {}
    await expect(
      NestFactory.create(TooShortModule, { logger: false, abortOnError: false }).then((app) =>
        app.close(),
      ),
    ).rejects.toThrow(/retention\.dedupDays` must be at least 7 \(got 2\)/);
  });

  it('skips the idempotency keys in an app without IdempotencyModule', async () => {
    const app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: { endpoints: [STRIPE], dispatch: { enabled: false }, retention: { intervalMs: 0 } },
    });
    try {
      expect((await app.app.get(WebhookRetention).run()).idempotency).toBeNull();
    } finally {
      await app.close();
    }
  });

  it('runs on its schedule while the app is up', async () => {
    const app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: {
        endpoints: [STRIPE],
        dispatch: { enabled: false },
        retention: { intervalMs: 1000 },
      },
    });
    try {
      const transactions = app.app.get(WebhookTransactions);
      const expired = Object.assign(eventRow({ status: 'processed', ageDays: 0 }), {
        receivedAt: new Date(Date.now() - 31 * DAY),
      });
      const recent = eventRow({ status: 'processed', ageDays: 0 });
      recent.receivedAt = new Date(Date.now() - DAY);
      await transactions.run((manager) =>
        manager.insert(WebhookEventEntity, [{ ...expired }, { ...recent }]),
      );
      await eventually(
        async () =>
          (await transactions.run((manager) => manager.countBy(WebhookEventEntity, {}))) === 1,
        5000,
      );
      const [left] = await transactions.run((manager) => manager.find(WebhookEventEntity));
      expect(left.id).toBe(recent.id);
      expect(left.rawBody).toBe(recent.rawBody);
    } finally {
      await app.close();
    }
  });
});
