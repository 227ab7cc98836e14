import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { WebhookTelemetry, paypalEndpoint, webhookEntities } from 'nestjs-payment-webhooks';
import { DeliveryRecord } from 'nestjs-payment-webhooks/observability';
import {
  PAYPAL_TEST_CA_PEM,
  PAYPAL_TEST_CERTIFICATE_PEM,
  SignedDelivery,
  WebhookTestClient,
  paypalFixtures,
  signPayPalDelivery,
} from 'nestjs-payment-webhooks/testing';
import { withCrc32 } from '../support/crc32-forge';
import {
  AddEventOutcomes1764500000000,
  crc32,
  CreateWebhooksTables1764400000000,
  WebhookWorkEntity,
} from '../support/internals';
import { createTestDatabase } from '../support/postgres';
import { Database, TestApp, countEffects, eventually, startTestApp } from '../support/test-app';

/**
 * PayPal signs a transmission (id, time, webhook id) and only the CRC-32 of the body. One
 * genuine signed delivery is enough to make another body with the same CRC: another event id,
 * another order, another amount, and 48 padding letters that restore the CRC. Sent with the
 * genuine headers it verifies; the transmission check refuses it because a different body
 * already came under that transmission id.
 */
const WEBHOOK_ID = 'WH_E2E_TRANSMISSIONS';
const suffix = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** `genuine` rewritten for another order and amount, with its CRC-32 and its headers. */
function forgedFrom(genuine: SignedDelivery, eventId = `WH-FORGED-${suffix()}`): SignedDelivery {
  const event = JSON.parse(genuine.body) as { resource: Record<string, unknown> };
  const other = {
    ...event,
    id: eventId,
    resource: {
      ...event.resource,
      custom_id: 'order-of-someone-else',
      amount: { currency_code: 'USD', value: '9999.00' },
    },
  };
  const text = JSON.stringify(other);
  const body = withCrc32(`${text.slice(0, -1)},"note":"`, '"}', crc32(genuine.body));
  return { ...genuine, body };
}

/** A PayPal endpoint trusting the package's test certificate. */
const endpoint = (name: string) =>
  paypalEndpoint({
    name,
    webhookId: WEBHOOK_ID,
    certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
    trustedRoots: PAYPAL_TEST_CA_PEM,
  });

function genuineDelivery(orderId = 'order-genuine'): { delivery: SignedDelivery; eventId: string } {
  const event = paypalFixtures.captureCompleted({ orderId, eventId: `WH-GENUINE-${suffix()}` });
  return {
    delivery: signPayPalDelivery({ payload: event, webhookId: WEBHOOK_ID }),
    eventId: event.id,
  };
}

describe.each<Database>(['sqlite', 'postgres'])('PayPal transmissions on %s', (database) => {
  let app: TestApp;
  let client: WebhookTestClient;
  const journal: DeliveryRecord[] = [];

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: {
        endpoints: [endpoint('paypal'), endpoint('paypal-pruned'), endpoint('paypal-down')],
        dispatch: { pollIntervalMs: 50 },
      },
    });
    app.app.get(WebhookTelemetry).subscribe({ delivery: (record) => journal.push(record) });
    client = new WebhookTestClient(app.url);
  });

  afterAll(() => app?.close());

  beforeEach(() => {
    journal.length = 0;
  });

  const param = (i: number) => (database === 'postgres' ? `$${i}` : '?');

  async function stored(eventId: string): Promise<number> {
    const rows: { n: number | string }[] = await app.dataSource.query(
      `SELECT COUNT(*) AS n FROM webhook_events WHERE event_id = ${param(1)}`,
      [eventId],
    );
    return Number(rows[0].n);
  }

  async function transmissionIds(name: string): Promise<string[]> {
    const rows: { id: string }[] = await app.dataSource.query(
      `SELECT transmission_id AS id FROM webhook_transmissions WHERE endpoint = ${param(1)} ORDER BY transmission_id`,
      [name],
    );
    return rows.map((row) => row.id);
  }

  it('refuses a body forged with the CRC restored under a genuine transmission, and runs no handler for it', async () => {
    const { delivery, eventId } = genuineDelivery();
    const forgedId = `WH-FORGED-${suffix()}`;
    const forged = forgedFrom(delivery, forgedId);
    expect(crc32(forged.body)).toBe(crc32(delivery.body));
    expect(forged.body).not.toBe(delivery.body);

    expect((await client.send('paypal', delivery)).status).toBe(200);
    const refused = await client.send('paypal', forged);
    expect(refused.status).toBe(400);
    expect(await stored(forgedId)).toBe(0);
    expect(journal[1]).toMatchObject({
      endpoint: 'paypal',
      decision: 'rejected_signature',
      status: 400,
      eventIds: [forgedId],
    });
    expect(journal[1].reason).toMatch(
      /A different body arrived under transmission id ".+", already seen on endpoint "paypal"/,
    );
    expect(JSON.parse(refused.body).message).toBe(journal[1].reason);

    // The genuine delivery sent again is an ordinary duplicate.
    expect((await client.send('paypal', delivery)).status).toBe(200);
    expect(journal[2]).toMatchObject({ decision: 'duplicate', eventIds: [eventId] });

    await eventually(async () => (await countEffects(app, eventId)) === 1);
    // Every stored event settled: a handler run for the forged body could only have been before.
    await eventually(
      async () => (await app.dataSource.getRepository(WebhookWorkEntity).count()) === 0,
    );
    expect(await countEffects(app, forgedId)).toBe(0);
    expect(app.control.calls.map((call) => call.eventId)).not.toContain(forgedId);
    expect(await stored(eventId)).toBe(1);
  });

  it('refuses the forged body whatever its event id, also the genuine event id', async () => {
    const { delivery, eventId } = genuineDelivery();
    expect((await client.send('paypal', delivery)).status).toBe(200);
    // Same event id as the genuine one: without the check it would pass as a duplicate.
    const sameId = await client.send('paypal', forgedFrom(delivery, eventId));
    expect(sameId.status).toBe(400);
    expect(journal[1]).toMatchObject({ decision: 'rejected_signature', eventIds: [eventId] });
  });

  it('takes one body of a transmission when two arrive at once, and refuses the other', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { delivery, eventId } = genuineDelivery();
      const forgedId = `WH-FORGED-${suffix()}`;
      const answers = await Promise.all([
        client.send('paypal', delivery),
        client.send('paypal', forgedFrom(delivery, forgedId)),
        client.send('paypal', delivery),
      ]);
      const statuses = answers.map((answer) => answer.status);
      const storedIds = [(await stored(eventId)) > 0, (await stored(forgedId)) > 0];
      // Whichever body came first is kept; the other body is refused every time it comes.
      expect(storedIds.filter(Boolean)).toHaveLength(1);
      expect(statuses).toEqual(storedIds[0] ? [200, 400, 200] : [400, 200, 400]);
    }
  });

  it('answers 503 and stores nothing when the transmission cannot be checked', async () => {
    const { delivery, eventId } = genuineDelivery();
    await app.dataSource.query(
      'ALTER TABLE webhook_transmissions RENAME TO webhook_transmissions_away',
    );
    try {
      expect((await client.send('paypal-down', delivery)).status).toBe(503);
    } finally {
      await app.dataSource.query(
        'ALTER TABLE webhook_transmissions_away RENAME TO webhook_transmissions',
      );
    }
    expect(journal[0]).toMatchObject({
      decision: 'store_failed',
      status: 503,
      eventIds: [eventId],
    });
    expect(await stored(eventId)).toBe(0);
    // PayPal's retry of it is taken once the store answers.
    expect((await client.send('paypal-down', delivery)).status).toBe(200);
    expect(await stored(eventId)).toBe(1);
  });

  it('forgets transmissions once no replay of them can pass the time check', async () => {
    const day = 86_400_000;
    const at = (daysAgo: number) => {
      const date = new Date(Date.now() - daysAgo * day);
      return database === 'postgres' ? date : date.toISOString().replace('T', ' ').replace('Z', '');
    };
    for (const [id, daysAgo] of [
      ['old-9-days', 9],
      ['recent-7-days', 7],
    ] as const) {
      await app.dataSource.query(
        'INSERT INTO webhook_transmissions (endpoint, transmission_id, body_digest, received_at) ' +
          `VALUES ('paypal-pruned', ${param(1)}, ${param(2)}, ${param(3)})`,
        [id, 'f'.repeat(64), at(daysAgo)],
      );
    }
    const { delivery } = genuineDelivery();
    expect((await client.send('paypal-pruned', delivery)).status).toBe(200);
    // Kept for twice the 4-day tolerance: a transmission time may lie 4 days ahead of its arrival.
    await eventually(async () => !(await transmissionIds('paypal-pruned')).includes('old-9-days'));
    expect(await transmissionIds('paypal-pruned')).toEqual(
      [delivery.headers['paypal-transmission-id'], 'recent-7-days'].sort(),
    );
  });

  if (database === 'sqlite') {
    it('refuses it too while a handler holds the database file, the transmission seen in the intake', async () => {
      const holder = genuineDelivery('order-slow');
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      app.control.scripts.set(holder.eventId, { until: released });
      const { delivery, eventId } = genuineDelivery();
      const forged = forgedFrom(delivery);
      try {
        expect((await client.send('paypal', holder.delivery)).status).toBe(200);
        await eventually(() => app.control.calls.some((call) => call.eventId === holder.eventId));
        expect((await client.send('paypal', delivery)).status).toBe(200);
        expect((await client.send('paypal', forged)).status).toBe(400);
      } finally {
        release();
      }
      expect(journal.slice(1).map((record) => record.decision)).toEqual([
        'accepted',
        'rejected_signature',
      ]);

      // Once moved into the app's file, the transmission is still known there.
      await eventually(async () => (await countEffects(app, eventId)) === 1);
      expect((await client.send('paypal', forged)).status).toBe(400);
      expect((await client.send('paypal', delivery)).status).toBe(200);
      const rows: { n: number }[] = await app.dataSource.query(
        "SELECT COUNT(*) AS n FROM webhook_transmissions WHERE endpoint = 'paypal' AND transmission_id = ?",
        [delivery.headers['paypal-transmission-id']],
      );
      expect(rows[0].n).toBe(1);
    });
  }
});

describe.each<Database>(['sqlite', 'postgres'])('AddWebhookTransmissions on %s', (database) => {
  it('adds webhook_transmissions to a database with the inbox of today, keeping its rows', async () => {
    const db = database === 'postgres' ? await createTestDatabase() : undefined;
    const sqliteFile = join(mkdtempSync(join(tmpdir(), 'pw-transmissions-')), 'inbox.sqlite');
    const before = await new DataSource({
      ...(db
        ? { type: 'postgres' as const, url: db.url }
        : { type: 'better-sqlite3', database: sqliteFile }),
      entities: webhookEntities,
      migrations: [CreateWebhooksTables1764400000000, AddEventOutcomes1764500000000],
      migrationsRun: true,
    }).initialize();
    const p = (i: number) => (db ? `$${i}` : '?');
    await before.query(
      'INSERT INTO webhook_events (id, endpoint, provider, event_id, type, native_type, received_at, ' +
        'raw_body, body_sha256, headers, status, outcome) ' +
        `VALUES (${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map(p).join(', ')})`,
      [
        '00000000-0000-7000-8000-000000000001',
        'paypal',
        'paypal',
        'WH-BEFORE-MIGRATION',
        'payment.succeeded',
        'PAYMENT.CAPTURE.COMPLETED',
        db ? new Date() : new Date().toISOString().replace('T', ' ').replace('Z', ''),
        '{}',
        'e'.repeat(64),
        '{}',
        'processed',
        'applied',
      ],
    );
    await before.destroy();

    const target = db ? { databaseUrl: db.url } : { sqliteFile };
    const webhooks = { endpoints: [endpoint('paypal')], dispatch: { enabled: false } };
    // Not migrated yet: startup is refused, naming the table and the migrations.
    await expect(
      startTestApp({ platform: 'express', database, ...target, webhooks, migrations: false }),
    ).rejects.toThrow(/"webhook_transmissions" is missing.*webhooksMigrations/);

    const app = await startTestApp({
      platform: 'express',
      database,
      ...target,
      webhooks,
    });
    try {
      const { delivery } = genuineDelivery();
      const client = new WebhookTestClient(app.url);
      expect((await client.send('paypal', delivery)).status).toBe(200);
      expect((await client.send('paypal', forgedFrom(delivery))).status).toBe(400);
      const events: { event_id: string; outcome: string | null }[] = await app.dataSource.query(
        'SELECT event_id, outcome FROM webhook_events ORDER BY event_id',
      );
      expect(events).toEqual([
        { event_id: 'WH-BEFORE-MIGRATION', outcome: 'applied' },
        { event_id: expect.stringMatching(/^WH-GENUINE-/), outcome: null },
      ]);
      const migrations: { name: string }[] = await app.dataSource.query(
        'SELECT name FROM migrations ORDER BY id',
      );
      expect(migrations.map((m) => m.name)).toContain('AddWebhookTransmissions1764600000000');
    } finally {
      await app.close();
      await db?.drop();
    }
  });
});
