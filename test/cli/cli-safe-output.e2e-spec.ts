import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import {
  NonRetryableError,
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
} from 'nestjs-payment-webhooks';
import { cliJson, CliResult, runCli } from '../support/cli';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { stripeSignature } from '../support/stripe-event';
import { eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * The CLI printing stored rows whose ids, refs, error and body carry ANSI escapes, other
 * control characters and card numbers (a buyer sets the order id; anyone can put text in a
 * payment description): what reaches the operator's terminal has none of them raw. The CLI
 * (its runCli(), as the bin runs it) next to a running app on the same SQLite file.
 */

const SECRET = 'whsec_cli_safe_output';
const CARD = '4111111111111111';
const OTHER_CARD = '5555555555554444';
const THIRD_CARD = '4000056655665556';
const EVENT_ID = `evt_\u001b[31m${CARD}\u001b]0;owned\u0007`;
const PAYMENT_ID = `pi_\u009b2J${OTHER_CARD}`;
const ORDER_ID = `order\r\n[Nest] 1 - forged\u202e${THIRD_CARD}`;
/** Raw DEL, C1 and bidi characters are valid inside JSON strings; C0 ones must be escaped. */
const BODY = `{
  "id": ${JSON.stringify(EVENT_ID)},
  "object": "event",
  "type": "payment_intent.succeeded",
  "data": {
    "object": {
      "id": ${JSON.stringify(PAYMENT_ID)},
      "amount": 1250,
      "currency": "eur",
      "status": "succeeded\u009b2J",
      "description": "card ${CARD} \u202eevil\u007f",
      "metadata": { "orderId": ${JSON.stringify(ORDER_ID)} }
    }
  }
}`;

/** What a terminal acts on instead of showing; line feeds end the CLI's own lines. */
const RAW_CONTROL =
  // eslint-disable-next-line no-control-regex -- looking for raw control characters
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

@Injectable()
class UnknownOrders {
  @OnPaymentEvent('payment.succeeded')
  async paid(event: PaymentEvent): Promise<void> {
    throw new NonRetryableError(`order ${event.merchantRef} (card ${CARD}) is unknown`);
  }
}

let app: TestApp;
let inboxId: string;
const connection = () => ['--sqlite', app.sqliteFile!];

beforeAll(async () => {
  app = await startTestApp({
    platform: 'express',
    database: 'sqlite',
    handlers: [UnknownOrders],
    webhooks: {
      endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
      dispatch: { pollIntervalMs: 20, retry: { maxAttempts: 1 } },
    },
  });
  const response = await post(`${app.url}/webhooks/stripe`, BODY, stripeSignature(BODY, SECRET));
  expect(response.status).toBe(200);
  const rows = app.dataSource.getRepository(WebhookEventEntity);
  await eventually(async () => (await rows.findOneBy({ eventId: EVENT_ID }))?.status === 'dead');
  inboxId = (await rows.findOneByOrFail({ eventId: EVENT_ID })).id;
}, 300_000);

afterAll(() => app?.close());

/** The output has no raw control character and no card number, on stdout or stderr. */
function expectSafe(result: CliResult): void {
  for (const output of [result.stdout, result.stderr]) {
    expect(output).not.toMatch(RAW_CONTROL);
    for (const card of [CARD, OTHER_CARD, THIRD_CARD]) {
      expect(output).not.toContain(card);
    }
  }
}

it('events list shows stored ids escaped and card numbers masked', async () => {
  const result = await runCli(['events', 'list', ...connection()]);
  expect(result.code).toBe(0);
  expectSafe(result);
  expect(result.stdout).toContain('evt_\\x1b[31m411111******1111\\x1b]0;owned\\x07');
  expect(result.stdout).toContain('pi_\\x9b2J555555******4444');
});

it('events show shows every column, the error and the body escaped and masked', async () => {
  const result = await runCli(['events', 'show', inboxId, ...connection()]);
  expect(result.code).toBe(0);
  expectSafe(result);
  expect(result.stdout).toContain('order\\r\\n[Nest] 1 - forged\\u202e400005******5556');
  expect(result.stdout).toContain('succeeded\\x9b2J');
  expect(result.stdout).toContain('"description": "card 411111******1111 \\u202eevil\\x7f"');
  // The body keeps its line breaks; no stored value adds one.
  expect(result.stdout).toContain('  "object": "event",\n');
  expect(result.stdout).not.toMatch(/^\[Nest\] 1 - forged/m);
});

it('--json gives the exact values back, card numbers masked, nothing raw in the terminal', async () => {
  const list = await runCli(['events', 'list', '--json', ...connection()]);
  const show = await runCli(['events', 'show', inboxId, '--json', ...connection()]);
  for (const result of [list, show]) {
    expect(result.code).toBe(0);
    expectSafe(result);
  }
  const [listed] = cliJson<{ eventId: string; paymentRef: string }[]>(list);
  expect(listed.eventId).toBe(EVENT_ID.replace(CARD, '411111******1111'));
  expect(listed.paymentRef).toBe(PAYMENT_ID.replace(OTHER_CARD, '555555******4444'));
  const shown = cliJson<{ merchantRef: string; rawBody: string; lastError: string }>(show);
  expect(shown.merchantRef).toBe(ORDER_ID.replace(THIRD_CARD, '400005******5556'));
  expect(shown.rawBody).toBe(
    BODY.replace(CARD, '411111******1111')
      .replace(CARD, '411111******1111')
      .replace(OTHER_CARD, '555555******4444')
      .replace(THIRD_CARD, '400005******5556'),
  );
  expect(shown.lastError).toContain('(card 411111******1111) is unknown');
});

it('an error quoting what was typed stays one safe line', async () => {
  const result = await runCli(['events', 'show', `\u001b[2J${CARD}`, ...connection()]);
  expect(result.code).toBe(1);
  expectSafe(result);
  expect(result.stderr).toBe(
    'nestjs-payment-webhooks: error: no event with inbox id "\\x1b[2J411111******1111" ' +
      '(ids are listed by "events list")\n',
  );
});

it('events groups and the timeline show the error escaped and masked, its line breaks indented', async () => {
  const groups = await runCli(['events', 'groups', ...connection()]);
  expect(groups.code).toBe(0);
  expectSafe(groups);
  // The first line of the error only.
  expect(groups.stdout).toMatch(/ NonRetryableError: order order\n/);

  const show = await runCli(['events', 'show', inboxId, ...connection()]);
  expectSafe(show);
  // The message's own line break stays one, indented under the attempt: it starts no line.
  expect(show.stdout).toMatch(
    /^ {6}NonRetryableError: order order\\r\n {6}\[Nest\] 1 - forged\\u202e400005\*{6}5556 \(card 411111\*{6}1111\) is unknown$/m,
  );
  expect(show.stdout).not.toMatch(/^\S.*forged/m);
});
