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
import { squareEndpoint } from './square.provider';
import { SquareWebhookEvent, squareFixtures } from './square.fixtures';
import { signSquareDelivery } from './square.signer';
import { SQUARE_API_VERSION } from './square-event-log';

const ACCESS_TOKEN = 'EAAAlFakeSquareAccessToken0000000000000000000000000000000000000';
const SIGNATURE_KEY = 'fake-square-signature-key-0000000000';
const NOTIFICATION_URL = 'https://shop.example.test/webhooks/square';
const UNTIL = new Date(Date.now() - 60 * 60_000);
const WINDOW = { since: new Date(UNTIL.getTime() - 24 * 60 * 60_000), until: UNTIL };
const MINUTE = 60_000;
const PAGE = 100;

/** Every event Square knows, as SearchEvents lists it (the webhook body's shape). */
let known: SquareWebhookEvent[] = [];

interface SearchEventsBody {
  cursor?: string;
  limit?: number;
  query?: { filter?: { created_at?: { start_at?: string; end_at?: string } } };
}

/**
 * SearchEvents as Square documents it: Bearer token, `Square-Version`, the `created_at` filter,
 * `limit` up to 100, an opaque `cursor` valid with the original query only.
 */
function square(request: FakeEventLogRequest): FakeEventLogAnswer {
  if (request.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) {
    return {
      status: 401,
      body: { errors: [{ category: 'AUTHENTICATION_ERROR', code: 'UNAUTHORIZED', detail: 'no' }] },
    };
  }
  const search = request.body as SearchEventsBody;
  const range = search.query?.filter?.created_at;
  const since = Date.parse(range?.start_at ?? '');
  const until = Date.parse(range?.end_at ?? '');
  const matching = known
    .filter((e) => Date.parse(e.created_at) >= since && Date.parse(e.created_at) <= until)
    .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  const offset =
    search.cursor === undefined
      ? 0
      : Number(Buffer.from(search.cursor, 'base64url').toString().split('|')[1]);
  const events = matching.slice(offset, offset + Math.min(search.limit ?? PAGE, PAGE));
  const more = offset + events.length < matching.length;
  return {
    status: 200,
    body: {
      events: events.length > 0 ? events : undefined,
      metadata: events.map((e) => ({ event_id: e.event_id, api_version: SQUARE_API_VERSION })),
      ...(more
        ? {
            cursor: Buffer.from(`${JSON.stringify(range)}|${offset + events.length}`).toString(
              'base64url',
            ),
          }
        : {}),
    },
  };
}

let fake: FakeEventLogApi;

beforeAll(async () => {
  fake = await FakeEventLogApi.start(square);
});

afterEach(() => {
  fake.reset();
  known = [];
});

afterAll(() => fake.close());

function endpoint() {
  return squareEndpoint({
    name: 'square',
    signatureKey: SIGNATURE_KEY,
    notificationUrl: NOTIFICATION_URL,
    api: { accessToken: ACCESS_TOKEN, apiUrl: fake.url },
  });
}

function eventLog(): ProviderEventLog {
  return endpoint().eventLog!;
}

function payments(count: number, newest: Date): SquareWebhookEvent[] {
  const events = Array.from({ length: count }, (_, i) =>
    squareFixtures.paymentUpdated({ createdAt: new Date(newest.getTime() - i * MINUTE) }),
  );
  known.push(...events);
  return events;
}

describe('SquareEventLog', () => {
  it('is on an endpoint with an access token, and keeps 28 days', () => {
    expect(eventLog()).toMatchObject({ kind: 'square', retentionMs: 28 * 24 * 60 * MINUTE });
    expect(
      squareEndpoint({
        name: 'square',
        signatureKey: SIGNATURE_KEY,
        notificationUrl: NOTIFICATION_URL,
      }).eventLog,
    ).toBeUndefined();
  });

  it('refuses an empty access token at startup, naming where to copy it', () => {
    expect(() =>
      squareEndpoint({
        name: 'square',
        signatureKey: SIGNATURE_KEY,
        notificationUrl: NOTIFICATION_URL,
        api: { accessToken: ' ' },
      }),
    ).toThrow(/accessToken is required.*Developer Console → your application → Credentials/);
  });

  it('searches the window 100 at a time, the cursor sent with the original query', async () => {
    const inWindow = payments(230, new Date(UNTIL.getTime() - MINUTE));
    payments(2, new Date(UNTIL.getTime() + 10 * MINUTE));
    payments(2, new Date(WINDOW.since.getTime() - MINUTE));

    const { events, cursors } = await readWholeWindow(eventLog(), WINDOW);

    expect(events.map((e) => JSON.parse(e.body).event_id).sort()).toEqual(
      inWindow.map((e) => e.event_id).sort(),
    );
    expect(cursors).toHaveLength(3);
    expect(fake.requests).toHaveLength(3);
    for (const request of fake.requests) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/v2/events');
      expect(request.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
      expect(request.headers['square-version']).toBe(SQUARE_API_VERSION);
      expect(request.body).toMatchObject({
        limit: 100,
        query: {
          filter: {
            created_at: { start_at: WINDOW.since.toISOString(), end_at: UNTIL.toISOString() },
          },
        },
      });
    }
    expect((fake.requests[0].body as SearchEventsBody).cursor).toBeUndefined();
    expect((fake.requests[2].body as SearchEventsBody).cursor).toBe(cursors[2]);
  });

  it('answers an empty window with no events and no next page', async () => {
    await expect(eventLog().readPage(WINDOW, null)).resolves.toEqual({ events: [], next: null });
  });

  it('gives a listed event the eventId, type and paymentRef of its signed delivery', async () => {
    const [event] = payments(1, new Date(UNTIL.getTime() - MINUTE));
    const delivery = signSquareDelivery({
      payload: event,
      signatureKey: SIGNATURE_KEY,
      notificationUrl: NOTIFICATION_URL,
    });
    const page = await eventLog().readPage(WINDOW, null);

    const { delivered, recovered } = await normalizeBoth(
      endpoint(),
      delivery,
      page.events[0],
      new Date(Date.parse(event.created_at) + MINUTE),
    );

    expect(recovered.eventId).toBe(delivered.eventId);
    expect(recovered.eventId).toBe(event.event_id);
    expect(recovered.type).toBe(delivered.type);
    expect(recovered.paymentRef).toBe(delivered.paymentRef);
    expect(recovered.paymentRef).toBeDefined();
  });

  it.each([
    [429, 'unavailable'],
    [500, 'unavailable'],
    [503, 'unavailable'],
    [401, 'unauthorized'],
  ])('fails on HTTP %i with %s, naming no credential', async (status, expected) => {
    fake.failNext(status, { errors: [{ code: 'RATE_LIMITED', detail: `token ${ACCESS_TOKEN}` }] });
    const error = await eventLogFailure(eventLog().readPage(WINDOW, null), [ACCESS_TOKEN]);
    expect(error.failure).toBe(expected);
  });

  it('fails with invalid_response when the answer is not a list of events', async () => {
    fake.failNext(200, { events: { event_id: 'x' } });
    const notList = await eventLogFailure(eventLog().readPage(WINDOW, null), [ACCESS_TOKEN]);
    expect(notList.failure).toBe('invalid_response');

    fake.failNext(200, { events: [{ type: 'payment.updated' }] });
    const noId = await eventLogFailure(eventLog().readPage(WINDOW, null), [ACCESS_TOKEN]);
    expect(noId.failure).toBe('invalid_response');
  });
});
