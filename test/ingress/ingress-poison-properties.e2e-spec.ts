import fc from 'fast-check';
import { WebhookTestClient } from 'nestjs-payment-webhooks/testing';
import { PROVIDER_KITS } from '../providers/kits';
import { PoisonValues, ProviderKit } from '../providers/provider-kit';
import { WebhookEventEntity } from '../support/internals';
import { asStored, SeeingHandlers, whenSeen } from '../support/seen-events';
import { Database, startTestApp, TestApp } from '../support/test-app';

/**
 * Property: a validly signed delivery never fails to store because of its content. For every
 * provider, deliveries carry generated values in every field the inbox stores: longer than the
 * column, with NUL and other control characters, astral and (where the encoding can carry
 * them) unpaired UTF-16 halves. Whatever they hold, the answer is the provider's success, never
 * a 5xx; a re-delivery gets the same answer and is stored once; the handler sees every value
 * as the delivery carried it. Every provider folder's test kit (test/providers/) gives its case.
 */

// NOTE: the examples below give every field of every case each kind of value the arbitraries
// make (over-long, short with each control character, unpaired halves, astral pairs), which
// random runs reach only by chance (20 left a given kind out of a given field of a case about
// one time in 3,000, 8 one in 25); the random runs are there for the mixes of them.
const RUNS = Number(process.env.POISON_PROPERTY_RUNS ?? 8);
const UNIQUE = `${process.pid}-${Date.now()}`;

const PLAIN = ['a', 'Z', '0', '-', '_', '.', '~', ' ', 'é', 'Ж', '😀'];
const POISON = ['\u0000', '\u0001', '\u0007', '\u001b', '\u007f', '\u0085', '\u2028'];
const LONE_HALVES = ['\uD800', '\uDFFF'];

/** One field's value: over-long, short with a NUL or control character, or plain. */
function valueArb(units: readonly string[]): fc.Arbitrary<string> {
  const unit = fc.constantFrom(...units);
  const plain = fc.string({ unit: fc.constantFrom(...PLAIN), minLength: 1, maxLength: 20 });
  return fc.oneof(
    fc.string({ unit, minLength: 256, maxLength: 700 }),
    fc
      .tuple(plain, fc.string({ unit, minLength: 1, maxLength: 30 }), fc.constantFrom(...POISON))
      .map(([head, tail, poison]) => `${head}${poison}${tail}`),
    fc.string({ unit, minLength: 1, maxLength: 12 }).map((text) => `v${text}`),
  );
}

/**
 * A value a header carries: printable ASCII, often longer than a column. (No ".": the
 * Standard Webhooks provider refuses one in `webhook-id`, where it separates the signed parts.)
 */
const headerIdArb = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_~!*'()-]{256,600}$/),
  fc.stringMatching(/^[A-Za-z0-9_~!*'()-]{1,40}$/),
);

function valuesArb(form: boolean): fc.Arbitrary<PoisonValues> {
  // NOTE: form encoding writes UTF-8, which has no form for an unpaired UTF-16 half.
  const value = valueArb([...PLAIN, ...POISON, ...(form ? [] : LONE_HALVES)]);
  return fc.record({
    id: value,
    type: value,
    paymentRef: value,
    merchantRef: value,
    currency: value,
    status: value,
    headerId: headerIdArb,
  });
}

/** The same value in every field the delivery's body carries, and a header id. */
const everyField = (value: string, headerId: string): PoisonValues => ({
  id: value,
  type: value,
  paymentRef: value,
  merchantRef: value,
  currency: value,
  status: value,
  headerId,
});

/**
 * Values every case gets besides the random ones: every field over-long, made of NUL, holding
 * each control and astral character the arbitraries draw from (and, where the encoding can
 * carry them, both unpaired halves), and over-long with pairs that a cut by UTF-16 units
 * would split.
 */
function examples(form: boolean): PoisonValues[] {
  return [
    {
      id: 'i'.repeat(600),
      type: 't'.repeat(300),
      paymentRef: 'p'.repeat(600),
      merchantRef: 'm'.repeat(600),
      currency: 'c'.repeat(9),
      status: 's'.repeat(65),
      headerId: 'h'.repeat(600),
    },
    everyField('\u0000', 'h'),
    everyField(`v${[...PLAIN, ...POISON].join('')}${form ? '' : LONE_HALVES.join('-')}`, 'h-~!*()'),
    everyField('a😀'.repeat(300), `${'H'.repeat(300)}'`),
  ];
}

describe.each<Database>(['sqlite', 'postgres'])(
  'poison properties on Express and %s',
  (database) => {
    let app: TestApp;
    let client: WebhookTestClient;
    let sequence = 0;

    beforeAll(async () => {
      app = await startTestApp({
        platform: 'express',
        database,
        handlers: [SeeingHandlers],
        webhooks: {
          endpoints: PROVIDER_KITS.map((kit) => kit.endpoint(kit.kind)),
          dispatch: { pollIntervalMs: 50 },
          retention: { intervalMs: 0 },
        },
      });
      client = new WebhookTestClient(app.url);
    });

    afterAll(async () => {
      await app?.close();
    });

    beforeEach(() => {
      SeeingHandlers.seen = [];
    });

    it.each(PROVIDER_KITS.map((kit): [string, ProviderKit] => [kit.kind, kit]))(
      'stores %s deliveries with any value in any stored field once, and the handler sees them as stored',
      async (_name, kit) => {
        await fc.assert(
          fc.asyncProperty(valuesArb(kit.poison.form === true), async (values) => {
            sequence += 1;
            const { delivery, expected } = kit.poison.build(
              values,
              `${UNIQUE}-${database}-${sequence}`,
            );
            const first = await client.send(kit.kind, delivery);
            expect(first.status).toBe(kit.answer.status);
            const again = await client.send(kit.kind, delivery);
            expect({ status: again.status, body: again.body }).toEqual({
              status: first.status,
              body: first.body,
            });
            for (const event of expected) {
              const seen = await whenSeen(event.eventId);
              expect(seen).toHaveLength(1);
              expect(seen[0]).toMatchObject(asStored(event));
              const repository = app.dataSource.getRepository(WebhookEventEntity);
              const row = await repository.findOneByOrFail({ id: seen[0].id });
              expect(row.deliveryCount).toBe(2);
              expect(
                await repository.countBy({ endpoint: row.endpoint, eventId: row.eventId }),
              ).toBe(1);
            }
          }),
          { numRuns: RUNS, examples: examples(kit.poison.form === true).map((values) => [values]) },
        );
      },
    );
  },
);
