import {
  TBANK_STATUS_TYPES,
  TBankStatusClient,
  TBankStatusClientOptions,
} from './tbank-status.client';
import { constantTimeIncludes } from '../../core/constant-time';
import {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../../core/webhook-errors';
import { tbankToken } from './tbank-token';
import { plainTextAcknowledgement, requireSecrets } from '../define-endpoint';
import { DefinedNotification, defineProvider, SignatureScheme } from '../define-provider';
import { withEventIds } from '../delivery-event-ids';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { boolean, nonEmptyString, optional } from '../envelope-rules';
import { JsonObject, parseJsonObject } from '../parse-payload';
import { nonEmptyStringOptionMessage } from '../providers.messages';
import { endpointLabel } from '../providers.messages';
import { SignedDelivery } from '../signed-delivery';
import { jsonObject, jsonPost, requireSecret } from '../signing-input';
import {
  BaseEndpointOptions,
  InboundWebhook,
  WebhookEndpoint,
} from '../webhook-provider.interface';

const KIND = 'tbank';
const SUCCESS_BODY = 'OK';
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const DIGITS = /^\d+$/;

/** Options of the T-Bank protocol, shared by `tbankEndpoint()` and the provider it builds. */
export interface TBankProviderOptions {
  /**
   * The terminal's password (T-Business → Internet acquiring → Stores → Terminals), hashed into
   * every notification's `Token`. Pass a list while changing it: a notification is accepted
   * when any of them matches. Required.
   */
  password: string | readonly string[];
  /**
   * The terminal's `TerminalKey`. When set, a notification signed for another terminal is
   * refused as a verification error (400), so one terminal's notifications cannot be replayed
   * at another terminal's endpoint that shares the password.
   * @default any terminal whose password matches
   */
  terminalKey?: string;
}

/** Options of `tbankEndpoint()`. */
export interface TBankEndpointOptions extends BaseEndpointOptions, TBankProviderOptions {
  /**
   * T-Bank API access for "ask the provider" (`GetState`): give at least `{}` to use the
   * endpoint's `terminalKey` and (last) `password`, or name them here.
   * @example api: {} // with terminalKey set on the endpoint
   */
  api?: Partial<TBankStatusClientOptions>;
}

// NOTE: PaymentId, OrderId and Amount are read from the JSON text instead (see identifierOf).
const TBANK_NOTIFICATION = defineEnvelope({
  TerminalKey: nonEmptyString(),
  Status: nonEmptyString(),
  Success: optional(boolean()),
});

/**
 * Statuses a payment can reach more than once, one notification per partial operation. Their
 * `Amount` is the payment's amount after the operation (what GetState reports then, the
 * `NewAmount` of the Cancel that caused it), so it falls with each one: two equal partial
 * refunds of 1 000.00 leave 700.00 and then 400.00, and are keyed apart by it.
 */
const REPEATABLE_STATUSES: ReadonlySet<string> = new Set(['PARTIAL_REFUNDED', 'PARTIAL_REVERSED']);

/** A top-level member of the notification, as the Token algorithm sees it. */
interface TopLevelMember {
  readonly kind: 'string' | 'number' | 'boolean' | 'null' | 'nested';
  /** The decoded string, the number's JSON text, `true`/`false`; empty for null and nested. */
  readonly text: string;
}

interface TBankNotification {
  readonly body: JsonObject;
  readonly members: ReadonlyMap<string, TopLevelMember>;
}

/**
 * T-Bank signs inside the body: `Token` is the lowercase hex SHA-256 of the values of the
 * notification's other top-level scalar fields plus `Password`, ordered by key (see
 * {@link tbankToken}, which the signers write it with). `verify` recomputes it from the
 * notification's own fields and each password, then checks `TerminalKey` when the endpoint
 * names one.
 */
function tbankTokenSignature(
  passwords: readonly string[],
  terminalKey: string | undefined,
): SignatureScheme {
  return {
    verify(request: InboundWebhook): void {
      const { members } = readNotification(request.rawBody);
      const token = members.get('Token');
      if (token === undefined) {
        throw new WebhookVerificationError('missing_signature', 'T-Bank notification has no Token');
      }
      if (token.kind !== 'string' || !HEX_SHA256.test(token.text)) {
        throw new WebhookVerificationError(
          'bad_signature',
          'Malformed Token in the T-Bank notification: expected 64 hex digits',
        );
      }
      // NOTE: every value is handed over as text, so numbers are hashed exactly as written.
      const signed = signedValues(members);
      const expected = passwords.map((password) => tbankToken(signed, password));
      if (!constantTimeIncludes(expected, token.text.toLowerCase())) {
        throw new WebhookVerificationError(
          'bad_signature',
          'Token does not match the T-Bank notification and the terminal password',
        );
      }
      // NOTE: checked after the Token, so only genuine notifications of another terminal say so.
      const terminal = members.get('TerminalKey');
      if (terminalKey !== undefined && terminal?.text !== terminalKey) {
        throw new WebhookVerificationError(
          'bad_signature',
          `T-Bank notification is for terminal ${JSON.stringify(terminal?.text ?? null)}, ` +
            `not for this endpoint's terminal ${JSON.stringify(terminalKey)}`,
        );
      }
    },
    sign(): never {
      throw new TypeError('T-Bank signs inside the body (Token): sign with signTBankDelivery()');
    },
  };
}

/**
 * Parses a T-Bank notification. `Success: false` (with an `ErrorCode`) is still a notification
 * and is mapped by its `Status` like any other.
 * @throws WebhookPayloadError
 */
function readTBankNotification(request: InboundWebhook): DefinedNotification {
  const { body, members } = readNotification(request.rawBody);
  const notification = checkEnvelope(TBANK_NOTIFICATION, body, 'T-Bank notification');
  const paymentId = identifierOf(members.get('PaymentId'));
  if (paymentId === undefined) {
    throw new WebhookPayloadError(
      'T-Bank notification is not valid: PaymentId must be a non-negative integer or a non-empty string',
    );
  }
  const status = notification.Status;
  const amount = amountOf(members.get('Amount'));
  let eventId = `${paymentId}:${status}`;
  if (REPEATABLE_STATUSES.has(status)) {
    if (amount === undefined) {
      throw new WebhookPayloadError(
        `T-Bank notification is not valid: a ${status} notification must carry Amount`,
      );
    }
    eventId += `:${amount}`;
  }
  return {
    eventId,
    nativeType: status,
    paymentRef: paymentId,
    merchantRef: identifierOf(members.get('OrderId')),
    ...amountOfEvent(status, amount),
    status,
    payload: body,
  };
}

/**
 * The event's amount and currency. After a partial refund `Amount` is what is left of the
 * payment, not the refund, so a `PARTIAL_REFUNDED` event has no amount of its own (the
 * notification's `Amount` stays in the payload).
 */
function amountOfEvent(
  status: string,
  amount: number | undefined,
): { readonly amount?: number; readonly currency?: string } {
  if (amount === undefined || status === 'PARTIAL_REFUNDED') {
    return {};
  }
  // NOTE: notifications carry no currency; T-Bank acquiring settles in roubles.
  return { amount, currency: 'RUB' };
}

/**
 * The values the Token covers: every top-level string, number and boolean except `Token`.
 * Nested objects and arrays (`Data`, `Receipt`) are left out, and so is `null`, which adds
 * nothing to the concatenation in T-Bank's own implementations.
 */
function signedValues(members: ReadonlyMap<string, TopLevelMember>): Record<string, string> {
  if (members.has('Password')) {
    throw new WebhookPayloadError(
      'T-Bank notification is not valid: it carries a Password field, which T-Bank never sends',
    );
  }
  const signed = [...members].filter(
    ([key, member]) => key !== 'Token' && member.kind !== 'nested' && member.kind !== 'null',
  );
  // NOTE: Object.fromEntries defines own properties, so a "__proto__" key is hashed like any other.
  return Object.fromEntries(signed.map(([key, member]) => [key, member.text]));
}

/**
 * An id as T-Bank wrote it: a JSON integer as its digits (exact at any size) or a non-empty
 * string; otherwise undefined.
 */
function identifierOf(member: TopLevelMember | undefined): string | undefined {
  const usable =
    (member?.kind === 'number' && DIGITS.test(member.text)) ||
    (member?.kind === 'string' && member.text.length > 0);
  return usable ? member.text : undefined;
}

/**
 * `Amount` in kopecks, when present.
 * @throws WebhookPayloadError when it is not a whole, non-negative, exactly representable number.
 */
function amountOf(member: TopLevelMember | undefined): number | undefined {
  if (member === undefined) {
    return undefined;
  }
  const amount = member.kind === 'number' && DIGITS.test(member.text) ? Number(member.text) : NaN;
  if (!Number.isSafeInteger(amount)) {
    throw new WebhookPayloadError(
      'T-Bank notification is not valid: Amount must be a whole, non-negative number of kopecks',
    );
  }
  return amount;
}

function readNotification(rawBody: Buffer): TBankNotification {
  const body = parseJsonObject(rawBody, 'T-Bank notification body');
  // NOTE: parseJsonObject has checked that the bytes are UTF-8 and the text is a JSON object.
  return { body, members: topLevelMembers(rawBody.toString('utf8')) };
}

/**
 * The top-level members of a JSON object text already validated by `JSON.parse`, with each
 * number kept as the text it was written in: T-Bank hashes the number as written, and
 * `JSON.parse` would change a PaymentId beyond 2^53 or a written form such as `1.0`.
 * @throws WebhookPayloadError when a key appears twice (`JSON.parse` would keep the last one
 * silently, so the hashed value and the acted-on value could differ).
 */
function topLevelMembers(text: string): Map<string, TopLevelMember> {
  const members = new Map<string, TopLevelMember>();
  let i = skipWhitespace(text, text.indexOf('{') + 1);
  while (text[i] === '"') {
    const keyEnd = endOfString(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    const valueStart = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1);
    const valueEnd = endOfValue(text, valueStart);
    if (members.has(key)) {
      throw new WebhookPayloadError(
        `T-Bank notification body has the key ${JSON.stringify(key)} more than once`,
      );
    }
    members.set(key, memberOf(text.slice(valueStart, valueEnd)));
    i = skipWhitespace(text, valueEnd);
    if (text[i] === ',') {
      i = skipWhitespace(text, i + 1);
    }
  }
  return members;
}

function memberOf(raw: string): TopLevelMember {
  switch (raw[0]) {
    case '"':
      return { kind: 'string', text: JSON.parse(raw) as string };
    case '{':
    case '[':
      return { kind: 'nested', text: '' };
    case 't':
    case 'f':
      return { kind: 'boolean', text: raw };
    case 'n':
      return { kind: 'null', text: '' };
    default:
      return { kind: 'number', text: raw };
  }
}

function skipWhitespace(text: string, i: number): number {
  while (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r') i++;
  return i;
}

/** Index just past the string literal starting at `i`. */
function endOfString(text: string, i: number): number {
  let j = i + 1;
  while (text[j] !== '"') {
    j += text[j] === '\\' ? 2 : 1;
  }
  return j + 1;
}

/** Index just past the JSON value starting at `i`. */
function endOfValue(text: string, i: number): number {
  const first = text[i];
  if (first === '"') {
    return endOfString(text, i);
  }
  if (first === '{' || first === '[') {
    let depth = 0;
    let j = i;
    do {
      const c = text[j];
      if (c === '"') {
        j = endOfString(text, j);
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      j++;
    } while (depth > 0);
    return j;
  }
  let j = i;
  while (j < text.length && !',}] \t\n\r'.includes(text[j])) j++;
  return j;
}

/** A T-Bank endpoint was configured to answer something T-Bank counts as a failed delivery. */
export function tbankAcknowledgementMessage(
  name: unknown,
  field: 'status' | 'body',
  value: unknown,
): string {
  return (
    `${endpointLabel(name, KIND)}: acknowledgement.${field} ${JSON.stringify(value)} would make T-Bank ` +
    'resend every notification hourly for 24 hours, because it counts a delivery as done only ' +
    `when the answer is HTTP 200 with the body "${SUCCESS_BODY}"; remove acknowledgement.${field}.`
  );
}

/** The terminal passwords of the options. @throws WebhookConfigurationError */
function passwordsOf(options: TBankProviderOptions, endpointName: string): string[] {
  return requireSecrets(endpointName, KIND, 'password', options?.password);
}

/**
 * The notification T-Bank posts with `payload`'s fields (a `Token` there is replaced) and the
 * `Token` of `password`, last, with the id the endpoint stores it under: what
 * `signTBankDelivery()` and the CLI's `sign` send.
 * @throws Error when `payload` has a `Password` field (T-Bank never sends one).
 */
export function tbankDelivery(
  payload: Readonly<Record<string, unknown>>,
  password: string,
): SignedDelivery {
  if ('Password' in payload) {
    throw new Error(
      'signTBankDelivery: remove Password from the payload; pass the password as `password`',
    );
  }
  const { Token: _ignored, ...fields } = payload;
  const body = JSON.stringify({ ...fields, Token: tbankToken(fields, password) });
  return withEventIds(jsonPost(KIND, { text: body }, {}), () =>
    tbankProvider.provider({ password }),
  );
}

const SAMPLE_PASSWORD = 'rpnstdt1ekalr00f';

/**
 * T-Bank (Tinkoff) acquiring notifications: a JSON body signed by its `Token` (see
 * {@link tbankTokenSignature}). There is no event id and no timestamp; the dedup key is
 * `${PaymentId}:${Status}` (plus `:${Amount}` for the partial statuses, which can repeat).
 * T-Bank counts a delivery as done only when the answer is HTTP 200 with the body `OK`.
 */
export const tbankProvider = defineProvider<TBankProviderOptions>({
  kind: KIND,
  name: 'T-Bank',
  aliases: ['tinkoff'],
  retryHorizon: { days: 1, documented: 'once an hour for 24 hours' },
  eventName: 'T-Bank notification',
  // NOTE: no `secrets`: T-Bank signs inside the body, where a delivery stripped of its headers is
  // still signed and a changed last byte is no JSON (a payload error); the password is checked
  // with the other options instead, as before (a password with spaces is hashed as it is).
  checkOptions(options: TBankProviderOptions & Partial<BaseEndpointOptions>, endpointName) {
    passwordsOf(options, String(endpointName));
    const terminalKey: unknown = options.terminalKey;
    if (terminalKey !== undefined && (typeof terminalKey !== 'string' || terminalKey === '')) {
      throw new WebhookConfigurationError(
        nonEmptyStringOptionMessage(endpointName, KIND, 'terminalKey', '"1772186527637DEMO"'),
      );
    }
    const { status, body } = options.acknowledgement ?? {};
    if (status !== undefined && status !== 200) {
      throw new WebhookConfigurationError(
        tbankAcknowledgementMessage(options.name, 'status', status),
      );
    }
    if (body !== undefined && body !== SUCCESS_BODY) {
      throw new WebhookConfigurationError(tbankAcknowledgementMessage(options.name, 'body', body));
    }
  },
  signature: (options) => tbankTokenSignature(passwordsOf(options, KIND), options.terminalKey),
  // NOTE: T-Bank wants exactly "OK" (upper case, no markup); anything else is retried hourly
  // for 24 hours.
  acknowledgement: plainTextAcknowledgement(SUCCESS_BODY),
  types: TBANK_STATUS_TYPES,
  normalize: ({ request }) => readTBankNotification(request),
  extras(options: TBankEndpointOptions) {
    if (!options.api) return {};
    const terminalKey = options.api.terminalKey ?? options.terminalKey;
    if (terminalKey === undefined) {
      throw new WebhookConfigurationError(
        `Webhook endpoint "${options.name}" (tbank): api needs the terminal's key: set terminalKey ` +
          '(the TerminalKey from the terminal settings) on the endpoint or in api.',
      );
    }
    const passwords = Array.isArray(options.password) ? options.password : [options.password];
    const statusClient = new TBankStatusClient({
      terminalKey,
      password: options.api.password ?? (passwords[passwords.length - 1] as string),
      apiUrl: options.api.apiUrl,
      timeoutMs: options.api.timeoutMs,
    });
    return { statusClient };
  },
  cli: {
    secret: 'the terminal password',
    payload: 'the notification object without Token (Token is computed and appended)',
    flags: [],
    sign: (input) =>
      tbankDelivery(
        jsonObject(KIND, input, 'the notification without Token'),
        requireSecret(KIND, input),
      ),
  },
  sample: {
    secret: SAMPLE_PASSWORD,
    options: { password: SAMPLE_PASSWORD },
    body: JSON.stringify({
      TerminalKey: '1772186527637DEMO',
      OrderId: 'order-1',
      Success: true,
      Status: 'CONFIRMED',
      PaymentId: 8111987112,
      ErrorCode: '0',
      Amount: 19200,
    }),
  },
});

/**
 * A T-Bank (Tinkoff) acquiring notification endpoint: give the terminal's `NotificationURL` as
 * `https://<host>/<path>/<name>`.
 * @throws WebhookConfigurationError at startup when no usable password is given, `terminalKey` is
 * not a non-empty string, or `acknowledgement` is set to anything but HTTP 200 with the body `OK`.
 * @example
 * tbankEndpoint({
 *   name: 'tbank',
 *   password: process.env.TBANK_PASSWORD!,
 *   terminalKey: process.env.TBANK_TERMINAL_KEY,
 * })
 */
export function tbankEndpoint(options: TBankEndpointOptions): WebhookEndpoint {
  return tbankProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
tbankEndpoint.kind = KIND;
