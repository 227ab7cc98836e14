import { FAKE_PAYPAL_CREDENTIALS, FakePayPalApi } from '../../spec-support/fake-paypal-api';
import {
  eventLogFailure,
  normalizeBoth,
  readWholeWindow,
} from '../../spec-support/event-log-checks';
import { WebhookEndpoint } from '../webhook-provider.interface';
import { paypalEndpoint } from './paypal.provider';
import { paypalFixtures } from './paypal.fixtures';
import { signPayPalDelivery } from './paypal.signer';
import { PAYPAL_TEST_CA_PEM, PAYPAL_TEST_CERTIFICATE_PEM } from './paypal-test-certificate';
import { PAYPAL_EVENT_LOG_PAGE_SIZE } from './paypal-event-log';

const WEBHOOK_ID = 'WH_TEST';
const UNTIL = new Date('2026-03-10T12:00:00Z');
const WINDOW = { since: new Date('2026-03-09T12:00:00Z'), until: UNTIL };
const MINUTE = 60_000;

let fake: FakePayPalApi;

beforeAll(async () => {
  fake = await FakePayPalApi.start();
});

afterEach(() => fake.reset());

afterAll(() => fake.close());

function endpoint(): WebhookEndpoint {
  return paypalEndpoint({
    name: 'paypal',
    webhookId: WEBHOOK_ID,
    certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
    trustedRoots: PAYPAL_TEST_CA_PEM,
    api: fake.clientOptions(),
  });
}

function eventLog() {
  const log = endpoint().eventLog;
  if (log === undefined) throw new Error('the endpoint has no event log');
  return log;
}

/** `count` capture events, one a minute before `UNTIL`, known to PayPal. */
function listedEvents(count: number) {
  return Array.from({ length: count }, (_, i) => {
    const event = paypalFixtures.captureCompleted({
      orderId: `order-${i}`,
      createTime: new Date(UNTIL.getTime() - (i + 1) * MINUTE),
    });
    fake.setEvent(event);
    return event;
  });
}

const SECRETS = [FAKE_PAYPAL_CREDENTIALS.clientSecret];

describe('PayPalEventLog', () => {
  it('is on an endpoint with api credentials, and keeps 30 days', () => {
    expect(eventLog()).toMatchObject({ kind: 'paypal', retentionMs: 30 * 24 * 60 * MINUTE });
    expect(paypalEndpoint({ name: 'paypal', webhookId: WEBHOOK_ID }).eventLog).toBeUndefined();
  });

  it('reads the window page by page, following the next link on the configured API', async () => {
    const events = listedEvents(PAYPAL_EVENT_LOG_PAGE_SIZE + 3);
    const outside = paypalFixtures.captureCompleted({
      createTime: new Date(WINDOW.since.getTime() - MINUTE),
    });
    fake.setEvent(outside);

    const { events: read, cursors } = await readWholeWindow(eventLog(), WINDOW);

    expect(read.map((e) => JSON.parse(e.body).id).sort()).toEqual(events.map((e) => e.id).sort());
    expect(cursors).toHaveLength(2);
    const lists = fake.requests.filter((r) =>
      r.path.startsWith('/v1/notifications/webhooks-events?'),
    );
    expect(lists).toHaveLength(2);
    expect(lists.every((r) => r.authorized)).toBe(true);
    const first = new URL(lists[0].path, fake.url).searchParams;
    expect(Object.fromEntries(first)).toEqual({
      page_size: String(PAYPAL_EVENT_LOG_PAGE_SIZE),
      start_time: '2026-03-09T12:00:00.000Z',
      end_time: '2026-03-10T12:00:00.000Z',
    });
    expect(new URL(lists[1].path, fake.url).searchParams.get('offset')).toBe(
      String(PAYPAL_EVENT_LOG_PAGE_SIZE),
    );
    expect(read[0].createdAt).toEqual(new Date(UNTIL.getTime() - MINUTE));
  });

  it('gives a listed event the eventId, type and paymentRef of its signed delivery', async () => {
    const [event] = listedEvents(1);
    const delivery = signPayPalDelivery({ payload: event, webhookId: WEBHOOK_ID });
    const page = await eventLog().readPage(WINDOW, null);

    const { delivered, recovered } = await normalizeBoth(endpoint(), delivery, page.events[0]);

    expect(recovered.eventId).toBe(delivered.eventId);
    expect(recovered.eventId).toBe(event.id);
    expect(recovered.type).toBe(delivered.type);
    expect(recovered.type).toBe('payment.succeeded');
    expect(recovered.paymentRef).toBe(delivered.paymentRef);
    expect(recovered.merchantRef).toBe('order-0');
  });

  it.each([
    [429, 'unavailable'],
    [500, 'unavailable'],
    [503, 'unavailable'],
    [403, 'unauthorized'],
  ])('fails on HTTP %i with %s, naming no credential', async (status, expected) => {
    fake.failNext(status, {
      name: 'ERROR',
      message: `refused ${FAKE_PAYPAL_CREDENTIALS.clientSecret}`,
    });
    const error = await eventLogFailure(eventLog().readPage(WINDOW, null), SECRETS);
    expect(error.failure).toBe(expected);
  });

  it('fails with unauthorized when the app credentials are refused', async () => {
    const log = paypalEndpoint({
      name: 'paypal',
      webhookId: WEBHOOK_ID,
      api: { ...fake.clientOptions(), clientSecret: 'EWrongSecret-0000000000' },
    }).eventLog!;
    const error = await eventLogFailure(log.readPage(WINDOW, null), ['EWrongSecret-0000000000']);
    expect(error.failure).toBe('unauthorized');

    fake.failNext(401, { error: 'invalid_token' });
    fake.failNext(401, { error: 'invalid_token' });
    const refused = await eventLogFailure(eventLog().readPage(WINDOW, null), SECRETS);
    expect(refused.failure).toBe('unauthorized');
  });

  it('fails with invalid_response when the answer is not a list of events', async () => {
    fake.failNext(200, { items: [] });
    const error = await eventLogFailure(eventLog().readPage(WINDOW, null), SECRETS);
    expect(error.failure).toBe('invalid_response');

    fake.failNext(200, { events: [{ event_type: 'PAYMENT.CAPTURE.COMPLETED' }] });
    const noId = await eventLogFailure(eventLog().readPage(WINDOW, null), SECRETS);
    expect(noId.failure).toBe('invalid_response');

    fake.failNext(200, {
      events: [],
      links: [{ rel: 'next', href: 'https://evil.example/steal?x=1' }],
    });
    const elsewhere = await eventLogFailure(eventLog().readPage(WINDOW, null), SECRETS);
    expect(elsewhere.failure).toBe('invalid_response');
  });
});
