import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { settled, SignedDelivery, WebhookTestClient } from 'nestjs-payment-webhooks/testing';
import { PROVIDER_KITS } from './kits';
import { ProviderKit } from './provider-kit';
import { PROVIDER_DESCRIPTORS, WebhookEventEntity, WebhookWorkEntity } from '../support/internals';
import { MatrixApp, MatrixPlatform, startMatrixApp } from '../support/router-app';
import { countEffects, Database } from '../support/test-app';

/**
 * Every provider folder, end to end, through the Nest module and the plain Express router on
 * SQLite and PostgreSQL, from its test kit (test/providers/<folder>.kit.ts): a genuine delivery
 * signed the provider's way is answered exactly, stored once however often it comes (under the
 * id the package's signer names, for a kit that signs with it), and handled once, as
 * `settled()` sees it; a tampered one and one signed with another secret get the provider's
 * refusal and store nothing. A new provider folder is in this suite once its kit is listed by
 * `npm run providers:catalog`.
 */

// NOTE: how a platform reads a provider's delivery does not depend on the database, nor what
// the store makes of its values on the platform: each kit runs on both platforms and both
// databases, each platform on one database.
const MATRIX: [MatrixPlatform, Database][] = [
  ['express', 'sqlite'],
  ['router', 'postgres'],
];

/** The kit's endpoint, and its twin configured with another secret. */
const wrongName = (kit: ProviderKit) => `${kit.kind}-wrong`;

describe.each(MATRIX)('every provider on %s with %s', (platform, database) => {
  let app: MatrixApp;
  let client: WebhookTestClient;

  beforeAll(async () => {
    app = await startMatrixApp({
      platform,
      database,
      webhooks: {
        endpoints: PROVIDER_KITS.flatMap((kit) => [
          kit.endpoint(kit.kind),
          kit.endpoint(wrongName(kit), 'wrong'),
        ]),
        dispatch: { pollIntervalMs: 50 },
        retention: { intervalMs: 0 },
      },
    });
    client = new WebhookTestClient(app.url);
  });

  afterAll(async () => {
    await app?.close();
  });

  const rows = (endpoint: string) =>
    app.dataSource.getRepository(WebhookEventEntity).countBy({ endpoint });

  it.each(PROVIDER_KITS.map((kit): [string, string, ProviderKit] => [kit.kind, kit.signedBy, kit]))(
    '%s (signed by %s): answers a delivery and its re-delivery exactly, stores one event with its fields and handles it once',
    async (_kind, _signedBy, kit) => {
      const orderId = `order-${randomUUID().slice(0, 8)}`;
      const { delivery, expected, answer = kit.answer } = kit.paid(orderId);
      // NOTE: a kit's deliveries are distinct events: another order's has another dedup key.
      expect(kit.paid(`${orderId}-other`).expected.eventId).not.toBe(expected.eventId);
      // NOTE: a delivery the package's signer built names its dedup key; one a kit built with the
      // provider's SDK or node:crypto names none, and the kit's expectation does.
      if (delivery.eventId !== undefined) expect(delivery.eventId).toBe(expected.eventId);
      const first = await client.send(kit.kind, delivery);
      const again = await client.send(kit.kind, delivery);
      expect([first.status, first.body]).toEqual([answer.status, answer.body]);
      expect([again.status, again.body]).toEqual([answer.status, answer.body]);

      const repository = app.dataSource.getRepository(WebhookEventEntity);
      const stored = await repository.findBy({ endpoint: kit.kind, eventId: expected.eventId });
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({
        provider: kit.kind,
        type: expected.type,
        deliveryCount: 2,
        ...(expected.paymentRef === undefined ? {} : { paymentRef: expected.paymentRef }),
        ...(expected.merchantRef === undefined ? {} : { merchantRef: expected.merchantRef }),
        ...(expected.amount === undefined ? {} : { amount: expected.amount }),
        ...(expected.currency === undefined ? {} : { currency: expected.currency }),
      });
      // Settled, with no work row left that could run the handler again: handled once for good.
      const { event } = await settled(
        app.settledTarget,
        delivery.eventId === undefined ? expected.eventId : delivery,
      );
      expect(event).toMatchObject({ id: stored[0].id, status: 'processed' });
      expect(
        await app.dataSource.getRepository(WebhookWorkEntity).countBy({ eventId: stored[0].id }),
      ).toBe(0);
      expect(await countEffects(app, expected.eventId)).toBe(1);
    },
  );

  it.each(PROVIDER_KITS.map((kit): [string, ProviderKit] => [kit.kind, kit]))(
    "%s: the package's own signer names the event it builds, and settled() waits for it by that name",
    async (_kind, kit) => {
      const delivery = signedByPackage(kit, kit.cli.payload(`order-${randomUUID().slice(0, 8)}`));
      expect(delivery.eventId).toEqual(expect.any(String));

      expect((await client.send(kit.kind, delivery)).status).toBe(kit.answer.status);
      const { event } = await settled(app.settledTarget, delivery);

      expect(event).toMatchObject({ eventId: delivery.eventId, status: 'processed' });
    },
  );

  it.each(PROVIDER_KITS.map((kit): [string, ProviderKit] => [kit.kind, kit]))(
    '%s: refuses a tampered delivery and one signed with another secret, and stores neither',
    async (_kind, kit) => {
      const refused = kit.refusedStatus ?? 400;
      const before = [await rows(kit.kind), await rows(wrongName(kit))];
      const forged = kit.paid(`order-${randomUUID().slice(0, 8)}`).delivery;
      expect((await client.send(wrongName(kit), forged)).status).toBe(refused);
      // NOTE: a kit has no tampered delivery only where the provider signs nothing (YooKassa).
      const tampered: SignedDelivery | undefined = kit.tampered?.(
        `order-${randomUUID().slice(0, 8)}`,
      );
      if (tampered) expect((await client.send(kit.kind, tampered)).status).toBe(refused);
      expect([await rows(kit.kind), await rows(wrongName(kit))]).toEqual(before);
    },
  );
});

/**
 * The delivery the package's signer for the kit's kind builds from the kit's command-line flags
 * and payload, as `nestjs-payment-webhooks sign --provider <kind>` builds it: one uniform way to
 * sign for every provider in the catalog.
 */
function signedByPackage(kit: ProviderKit, payload: unknown): SignedDelivery {
  const descriptor = PROVIDER_DESCRIPTORS.find((candidate) => candidate.kind === kit.kind);
  if (!descriptor) throw new Error(`no provider descriptor has kind ${kit.kind}`);
  const flags: Record<string, string> = {};
  for (let i = 0; i < kit.cli.flags.length; i += 2) {
    flags[kit.cli.flags[i].replace(/^--/, '')] = kit.cli.flags[i + 1];
  }
  const { secret, timestamp, ...options } = flags;
  return descriptor.signing.sign({
    text: JSON.stringify(payload),
    json: payload,
    secret,
    timestamp: timestamp === undefined ? undefined : Number(timestamp),
    options,
    readFile: (flag) => readFileSync(options[flag], 'utf8'),
  });
}
