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
import { goCardlessEndpoint } from './gocardless.provider';
import { GoCardlessEvent, goCardlessFixtures } from './gocardless.fixtures';
import { signGoCardlessDelivery } from './gocardless.signer';
import { GOCARDLESS_API_VERSION } from './gocardless-event-log';

const ACCESS_TOKEN = 'live_FakeGoCardlessAccessToken00000000000000';
const SECRET = 'fake-gocardless-webhook-secret';
const UNTIL = new Date('2026-03-10T12:00:00Z');
const WINDOW = { since: new Date('2026-03-09T12:00:00Z'), until: UNTIL };
const MINUTE = 60_000;

/** Every event GoCardless knows, newest first, as `GET /events` lists them. */
let known: GoCardlessEvent[] = [];

/**
 * `GET /events` as GoCardless documents it: Bearer token, `GoCardless-Version`, the
 * `created_at[gte]`/`[lte]` filter, `limit` up to 500, `after` from `meta.cursors.after`.
 */
function goCardless(request: FakeEventLogRequest): FakeEventLogAnswer {
  if (request.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) {
    return {
      status: 401,
      body: {
        error: {
          type: 'invalid_api_usage',
          code: 401,
          message: 'Unauthorized',
          errors: [{ reason: 'unauthorized', message: 'Unauthorized' }],
        },
      },
    };
  }
  const since = Date.parse(request.query.get('created_at[gte]') ?? '');
  const until = Date.parse(request.query.get('created_at[lte]') ?? '');
  const limit = Math.min(Number(request.query.get('limit') ?? '50'), 500);
  const matching = known.filter(
    (e) => Date.parse(e.created_at) >= since && Date.parse(e.created_at) <= until,
  );
  const after = request.query.get('after');
  const start = after === null ? 0 : matching.findIndex((e) => e.id === after) + 1;
  const events = matching.slice(start, start + limit);
  const more = start + limit < matching.length;
  return {
    status: 200,
    body: {
      events,
      linked: {},
      meta: { cursors: { before: after, after: more ? events.at(-1)!.id : null }, limit },
    },
  };
}

let fake: FakeEventLogApi;

beforeAll(async () => {
  fake = await FakeEventLogApi.start(goCardless);
});

afterEach(() => {
  fake.reset();
  known = [];
});

afterAll(() => fake.close());

function endpoint() {
  return goCardlessEndpoint({
    name: 'gocardless',
    secret: SECRET,
    api: { accessToken: ACCESS_TOKEN, apiUrl: fake.url },
  });
}

function eventLog(): ProviderEventLog {
  return endpoint().eventLog!;
}

function confirmedPayments(count: number, newest: Date): GoCardlessEvent[] {
  const events = Array.from({ length: count }, (_, i) =>
    goCardlessFixtures.paymentConfirmed({
      orderId: `order-${i}`,
      createdAt: new Date(newest.getTime() - i * MINUTE),
    }),
  );
  known.push(...events);
  return events;
}

describe('GoCardlessEventLog', () => {
  it('is on an endpoint with an access token', () => {
    expect(eventLog()).toMatchObject({ kind: 'gocardless' });
    expect(goCardlessEndpoint({ name: 'gocardless', secret: SECRET }).eventLog).toBeUndefined();
  });

  it('refuses an empty access token at startup, naming where to copy it', () => {
    expect(() =>
      goCardlessEndpoint({ name: 'gocardless', secret: SECRET, api: { accessToken: '' } }),
    ).toThrow(/accessToken is required.*Developers → Create → Access token/);
  });

  it('reads the window 500 at a time, after the cursor GoCardless names', async () => {
    confirmedPayments(2, new Date(UNTIL.getTime() + 5 * MINUTE));
    const inWindow = confirmedPayments(1200, new Date(UNTIL.getTime() - MINUTE));

    const { events, cursors } = await readWholeWindow(eventLog(), WINDOW);

    const expected = inWindow.filter((e) => Date.parse(e.created_at) >= WINDOW.since.getTime());
    expect(events.map((e) => JSON.parse(e.body).events[0].id)).toEqual(expected.map((e) => e.id));
    expect(cursors).toEqual([null, expected[499].id, expected[999].id]);
    expect(fake.requests).toHaveLength(3);
    for (const request of fake.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
      expect(request.headers['gocardless-version']).toBe(GOCARDLESS_API_VERSION);
      expect(request.query.get('created_at[gte]')).toBe('2026-03-09T12:00:00.000Z');
      expect(request.query.get('created_at[lte]')).toBe('2026-03-10T12:00:00.000Z');
      expect(request.query.get('limit')).toBe('500');
    }
    expect(fake.requests[1].query.get('after')).toBe(expected[499].id);
  });

  it('gives a listed event the eventId, type and paymentRef of its signed delivery', async () => {
    const [event] = confirmedPayments(1, new Date(UNTIL.getTime() - MINUTE));
    const delivery = signGoCardlessDelivery({
      payload: goCardlessFixtures.webhook(event),
      secret: SECRET,
    });
    const page = await eventLog().readPage(WINDOW, null);
    expect(JSON.parse(page.events[0].body)).toEqual({ events: [event] });

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
    [401, 'unauthorized'],
  ])('fails on HTTP %i with %s, naming no credential', async (status, expected) => {
    fake.failNext(status, { error: { type: 'invalid_api_usage', message: `t ${ACCESS_TOKEN}` } });
    const error = await eventLogFailure(eventLog().readPage(WINDOW, null), [ACCESS_TOKEN]);
    expect(error.failure).toBe(expected);
  });

  it('fails with invalid_response when the answer is not a list of events', async () => {
    fake.failNext(200, { payments: [] });
    const noList = await eventLogFailure(eventLog().readPage(WINDOW, null), [ACCESS_TOKEN]);
    expect(noList.failure).toBe('invalid_response');

    fake.failNext(200, { events: [{ resource_type: 'payments' }] });
    const noId = await eventLogFailure(eventLog().readPage(WINDOW, null), [ACCESS_TOKEN]);
    expect(noId.failure).toBe('invalid_response');
  });
});
