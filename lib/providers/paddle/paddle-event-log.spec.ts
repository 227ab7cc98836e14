import {
  eventLogFailure,
  normalizeBoth,
  readWholeWindow,
} from '../../spec-support/event-log-checks';
import {
  FakeEventLogAnswer,
  FakeEventLogApi,
  FakeEventLogRequest,
} from '../../spec-support/fake-event-log-api';
import { ProviderEventLog } from '../event-log.interface';
import { paddleEndpoint } from './paddle.provider';
import { PaddleWebhookEvent, paddleFixtures } from './paddle.fixtures';
import { signPaddleDelivery } from './paddle.signer';

const API_KEY = 'pdl_sdbx_apikey_01fakepaddlekey0000000000_Fake';
const SECRET = 'pdl_ntfset_01fake00000000000000000000_fakesecret';
const UNTIL = new Date('2026-03-10T12:00:00Z');
const WINDOW = { since: new Date('2026-03-09T12:00:00Z'), until: UNTIL };
const MINUTE = 60_000;

/** Paddle's event entities (no `notification_id`), in `id[DESC]` order: newest first. */
let stream: Record<string, unknown>[] = [];

/** `GET /events` as Paddle documents it: Bearer key, `after`, `per_page` (max 200), `meta.pagination`. */
function paddle(request: FakeEventLogRequest): FakeEventLogAnswer {
  if (request.headers.authorization !== `Bearer ${API_KEY}`) {
    return {
      status: 403,
      body: { error: { type: 'request_error', code: 'forbidden', detail: 'not authorized' } },
    };
  }
  if (request.method !== 'GET' || request.path !== '/events') {
    return { status: 404, body: { error: { code: 'not_found' } } };
  }
  const perPage = Math.min(Number(request.query.get('per_page') ?? '50'), 200);
  const after = request.query.get('after');
  const start = after === null ? 0 : stream.findIndex((e) => e.event_id === after) + 1;
  const data = stream.slice(start, start + perPage);
  const hasMore = start + perPage < stream.length;
  const last = data.at(-1)?.event_id;
  return {
    status: 200,
    body: {
      data,
      meta: {
        request_id: 'req-1',
        pagination: {
          per_page: perPage,
          next: `https://sandbox-api.paddle.com/events?after=${String(last)}&order_by=id%5BDESC%5D`,
          has_more: hasMore,
          estimated_total: stream.length,
        },
      },
    },
  };
}

let fake: FakeEventLogApi;

beforeAll(async () => {
  fake = await FakeEventLogApi.start(paddle);
});

afterEach(() => {
  fake.reset();
  stream = [];
});

afterAll(() => fake.close());

function endpoint() {
  return paddleEndpoint({
    name: 'paddle',
    secret: SECRET,
    api: { apiKey: API_KEY, apiUrl: fake.url },
  });
}

function eventLog(): ProviderEventLog {
  return endpoint().eventLog!;
}

/** An event entity as `GET /events` lists it: the notification without `notification_id`. */
function entity(event: PaddleWebhookEvent): Record<string, unknown> {
  const { notification_id: _notification, ...rest } = event;
  return rest;
}

/** Transactions every `stepMinutes` going back from `newest`, newest first. */
function listTransactions(count: number, newest: Date, stepMinutes = 10): PaddleWebhookEvent[] {
  const events = Array.from({ length: count }, (_, i) =>
    paddleFixtures.transactionCompleted({
      orderId: `order-${i}`,
      occurredAt: new Date(newest.getTime() - i * stepMinutes * MINUTE),
    }),
  );
  stream.push(...events.map(entity));
  return events;
}

describe('PaddleEventLog', () => {
  it('is on an endpoint with an API key, and keeps 90 days', () => {
    expect(eventLog()).toMatchObject({ kind: 'paddle', retentionMs: 90 * 24 * 60 * MINUTE });
    expect(paddleEndpoint({ name: 'paddle', secret: SECRET }).eventLog).toBeUndefined();
  });

  it('refuses an empty API key at startup, naming where to copy it', () => {
    expect(() => paddleEndpoint({ name: 'paddle', secret: SECRET, api: { apiKey: '' } })).toThrow(
      /apiKey is required.*Paddle → Developer tools → Authentication → API keys/,
    );
  });

  it('pages newest first with after, skips events newer than the window and stops past it', async () => {
    const newer = listTransactions(3, new Date(UNTIL.getTime() + 30 * MINUTE));
    const inWindow = listTransactions(250, new Date(UNTIL.getTime() - MINUTE), 5);
    const older = listTransactions(300, new Date(WINDOW.since.getTime() - MINUTE));

    const { events, cursors } = await readWholeWindow(eventLog(), WINDOW);

    const ids = events.map((e) => JSON.parse(e.body).event_id);
    const expected = inWindow
      .filter((e) => Date.parse(e.occurred_at) >= WINDOW.since.getTime())
      .map((e) => e.event_id);
    expect(ids).toEqual(expected);
    expect(ids).not.toContain(newer[0].event_id);
    expect(ids).not.toContain(older[0].event_id);
    expect(cursors).toEqual([null, stream[199].event_id]);
    expect(fake.requests).toHaveLength(2);
    expect(Object.fromEntries(fake.requests[0].query)).toEqual({
      order_by: 'id[DESC]',
      per_page: '200',
    });
    expect(fake.requests[1].query.get('after')).toBe(stream[199].event_id);
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('gives a listed event the eventId, type and paymentRef of its signed notification', async () => {
    const [event] = listTransactions(1, new Date(UNTIL.getTime() - MINUTE));
    const delivery = signPaddleDelivery({ payload: event, secret: SECRET });
    const page = await eventLog().readPage(WINDOW, null);

    const { delivered, recovered } = await normalizeBoth(endpoint(), delivery, page.events[0]);

    expect(recovered.eventId).toBe(delivered.eventId);
    expect(recovered.eventId).toBe(event.event_id);
    expect(recovered.type).toBe(delivered.type);
    expect(recovered.type).toBe('payment.succeeded');
    expect(recovered.paymentRef).toBe(delivered.paymentRef);
    expect(recovered.merchantRef).toBe('order-0');
  });

  it.each([
    [429, 'unavailable'],
    [500, 'unavailable'],
    [503, 'unavailable'],
    [401, 'unauthorized'],
  ])('fails on HTTP %i with %s, naming no credential', async (status, expected) => {
    fake.failNext(status, { error: { code: 'too_many_requests', detail: `key ${API_KEY}` } });
    const error = await eventLogFailure(eventLog().readPage(WINDOW, null), [API_KEY]);
    expect(error.failure).toBe(expected);
  });

  it('fails with invalid_response when the answer is not a page of events', async () => {
    fake.failNext(200, { items: [] });
    const noData = await eventLogFailure(eventLog().readPage(WINDOW, null), [API_KEY]);
    expect(noData.failure).toBe('invalid_response');

    fake.failNext(200, { data: [{ event_type: 'transaction.completed' }] });
    const noId = await eventLogFailure(eventLog().readPage(WINDOW, null), [API_KEY]);
    expect(noId.failure).toBe('invalid_response');

    fake.failNext(200, { data: [], meta: { pagination: { has_more: true, next: 'not a url' } } });
    const noNext = await eventLogFailure(eventLog().readPage(WINDOW, null), [API_KEY]);
    expect(noNext.failure).toBe('invalid_response');
  });
});
