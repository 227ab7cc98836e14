import Stripe from 'stripe';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import { NormalizedNotification } from '../webhook-provider.interface';
import { StripeEndpointOptions, stripeEndpoint } from './stripe.provider';

const SECRET = 'whsec_livemode_secret';
const ACCOUNT = 'acct_1Nv0FGQ9RKHgCVdK';
const LIVE_KEY = 'sk_live_51Hx0000000000000000000000';
const TEST_KEY = 'rk_test_51Hx0000000000000000000000';

/** What the endpoint makes of an event, signed by Stripe's SDK. */
function received(
  options: Partial<StripeEndpointOptions>,
  fields: Record<string, unknown>,
): NormalizedNotification {
  const { provider } = stripeEndpoint({ name: 'stripe', secret: SECRET, ...options });
  const body = JSON.stringify({
    id: 'evt_1',
    object: 'event',
    type: 'payment_intent.succeeded',
    data: { object: { id: 'pi_1', object: 'payment_intent' } },
    ...fields,
  });
  const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET });
  const request = {
    rawBody: Buffer.from(body),
    headers: { 'stripe-signature': header },
    receivedAt: new Date(),
  };
  provider.verify(request);
  return notificationsOf(provider.normalize(request))[0];
}

const TEST_EVENT = { livemode: false };
const LIVE_EVENT = { livemode: true };
const CONNECTED_TEST_EVENT = { livemode: false, account: ACCOUNT };

describe('stripeEndpoint livemode', () => {
  it.each<[string, Partial<StripeEndpointOptions>, Record<string, unknown>, string | undefined]>([
    ["'live' skips a test-mode event", { livemode: 'live' }, TEST_EVENT, "(livemode: 'live')"],
    ["'live' takes a live event", { livemode: 'live' }, LIVE_EVENT, undefined],
    ["'test' skips a live event", { livemode: 'test' }, LIVE_EVENT, "(livemode: 'test')"],
    [
      "'test' takes a connected account's test event",
      { livemode: 'test' },
      CONNECTED_TEST_EVENT,
      undefined,
    ],
    ["'any' takes both", { livemode: 'any' }, CONNECTED_TEST_EVENT, undefined],
    [
      'a live key skips a test-mode event',
      { api: { apiKey: LIVE_KEY } },
      TEST_EVENT,
      '(a live API key)',
    ],
    ['a test key takes a live event', { api: { apiKey: TEST_KEY } }, LIVE_EVENT, undefined],
    [
      'a test key takes a connected test event',
      { api: { apiKey: TEST_KEY } },
      CONNECTED_TEST_EVENT,
      undefined,
    ],
    [
      'the option wins over the key',
      { livemode: 'any', api: { apiKey: LIVE_KEY } },
      TEST_EVENT,
      undefined,
    ],
    ['the default takes the account’s own test event', {}, TEST_EVENT, undefined],
    [
      'the default skips a connected account’s test event',
      {},
      CONNECTED_TEST_EVENT,
      '(the default)',
    ],
    ['an event without livemode is taken', { livemode: 'live' }, {}, undefined],
  ])('%s', (_name, options, fields, reason) => {
    const { skip } = received(options, fields);
    if (reason === undefined) {
      expect(skip).toBeUndefined();
    } else {
      expect(skip).toContain(reason);
    }
  });

  it('names the connected account and the fix when it skips one’s test-mode event', () => {
    expect(received({}, CONNECTED_TEST_EVENT).skip).toBe(
      `a test-mode event of connected account ${ACCOUNT} at an endpoint for live events of ` +
        "connected accounts (the default); set livemode: 'test' or 'any' on a test-mode Connect endpoint",
    );
  });

  it('carries a snapshot event’s account', () => {
    expect(received({}, { livemode: true, account: ACCOUNT }).account).toBe(ACCOUNT);
    expect(received({}, { livemode: true }).account).toBeUndefined();
  });

  it('refuses a livemode that is none of the modes at startup', () => {
    const create = () =>
      stripeEndpoint({ name: 'stripe', secret: SECRET, livemode: true as unknown as 'live' });
    expect(create).toThrow(WebhookConfigurationError);
    expect(create).toThrow(
      `Webhook endpoint "stripe" (stripe): livemode must be 'live', 'test' or 'any' (got true)`,
    );
  });
});
