import { ownValue } from '../../core/own-value';
import { PaymentEventType } from '../../core/payment-event-types';
import { plainTextAcknowledgement } from '../define-endpoint';
import { SignatureScheme } from '../define-provider';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { jsonObject, nonEmptyString, optional, string } from '../envelope-rules';
import {
  JsonObject,
  parseIsoDate,
  parseJsonObject,
  readObject,
  toIdentifier,
} from '../parse-payload';
import { resolveNonEmptyString, resolveTolerance } from '../provider-options';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookProvider,
} from '../webhook-provider.interface';
import {
  messageIdOf,
  STANDARD_WEBHOOKS_STORED_HEADERS,
  StandardWebhooksScheme,
  StandardWebhooksSigning,
  standardWebhooksSignature,
} from './standard-webhooks.signature';

/** The options a platform signing with Standard Webhooks hands on to its base. */
export interface StandardWebhooksPlatformOptions {
  /**
   * Largest distance in seconds between the signed `webhook-timestamp` and the receive time.
   * @default 300
   * @advanced
   */
  toleranceSeconds?: number;
  /**
   * The timestamp window in seconds, under its name before 1.0.
   * @deprecated use `toleranceSeconds` (the same number of seconds); read until 2.0.
   */
  tolerance?: number;
  /**
   * Key of the `metadata` entry that holds the shop's order id.
   * @default 'orderId'
   */
  merchantRefKey?: string;
}

/** The envelope of a platform's event: `{ type, timestamp, data }`. */
const PLATFORM_EVENT = defineEnvelope({
  type: nonEmptyString(),
  timestamp: optional(string()),
  data: jsonObject(),
});

/** What a platform reads from its event's `data`; `type` only where the table cannot say it. */
export type PlatformFields = Pick<
  NormalizedNotification,
  'paymentRef' | 'amount' | 'currency' | 'status'
> & { readonly type?: PaymentEventType };

/** A platform that signs its own events with Standard Webhooks, such as Polar and Dodo Payments. */
export interface StandardWebhooksPlatform {
  /** The provider kind. */
  readonly kind: string;
  /** The platform's name, in errors about its events. */
  readonly name: string;
  /** The endpoint factory, named in deprecation warnings. */
  readonly factory: string;
  /** Its event types by native name. */
  readonly types: Readonly<Record<string, PaymentEventType>>;
  /** How its secrets key the signatures and the ids it gives; the spec's by default. */
  readonly signing?: StandardWebhooksSigning;
  /** Reads an event's object. */
  read(type: string, data: JsonObject): PlatformFields;
}

/** The parts of a platform's definition its Standard Webhooks base gives. */
export interface StandardWebhooksPlatformParts<O extends StandardWebhooksPlatformOptions> {
  readonly types: Readonly<Record<string, PaymentEventType>>;
  readonly signature: StandardWebhooksScheme;
  create(options: O, endpointName: string, secrets: readonly string[]): WebhookProvider;
}

/**
 * The base of a platform that signs its own events with Standard Webhooks (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`): the scheme of `standardWebhooksSignature()` signs
 * and verifies, `webhook-id` is the event id, and `platform.read` maps the event's object.
 * The provider is built through `create`, as it reads the `merchantRefKey` option.
 */
export function standardWebhooksPlatform<O extends StandardWebhooksPlatformOptions>(
  platform: StandardWebhooksPlatform,
): StandardWebhooksPlatformParts<O> {
  return {
    types: platform.types,
    signature: standardWebhooksSignature(platform.signing),
    create(options, endpointName, secrets) {
      const { kind, factory } = platform;
      const toleranceSeconds = resolveTolerance(endpointName, kind, options, factory);
      const merchantRefKey = resolveNonEmptyString(
        endpointName,
        kind,
        'merchantRefKey',
        options.merchantRefKey,
        'orderId',
      );
      const scheme = standardWebhooksSignature({ ...platform.signing, toleranceSeconds });
      return new StandardWebhooksPlatformProvider(platform, scheme, secrets, merchantRefKey);
    },
  };
}

/** A platform's provider: the Standard Webhooks scheme verifies, the platform reads. */
class StandardWebhooksPlatformProvider implements WebhookProvider {
  readonly kind: string;
  /** These platforms accept any 2xx; an empty 200 is the plainest. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();
  /** The headers `normalize()` reads again on replay: the event id and its timestamp. */
  readonly storedHeaders = STANDARD_WEBHOOKS_STORED_HEADERS;

  constructor(
    private readonly platform: StandardWebhooksPlatform,
    private readonly scheme: SignatureScheme,
    private readonly secrets: readonly string[],
    private readonly merchantRefKey: string,
  ) {
    this.kind = platform.kind;
  }

  /**
   * Checks `webhook-signature` against id, timestamp and raw body, then the timestamp window.
   * @throws WebhookVerificationError
   */
  verify(request: InboundWebhook): void {
    this.scheme.verify(request, this.secrets);
  }

  /**
   * Parses the platform's event and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const { name, kind, types } = this.platform;
    const body = parseJsonObject(request.rawBody, `${name} event body`);
    const event = checkEnvelope(PLATFORM_EVENT, body, `${name} event`);
    const eventId = messageIdOf(request);
    const { data } = event;
    const read = this.platform.read(event.type, data);
    return {
      eventId,
      type: read.type ?? ownValue(types, event.type) ?? `${kind}:${event.type}`,
      nativeType: event.type,
      paymentRef: read.paymentRef,
      merchantRef: toIdentifier(readObject(data, 'metadata')?.[this.merchantRefKey]),
      amount: read.amount,
      currency: read.currency,
      status: read.status,
      occurredAt: parseIsoDate(event.timestamp),
      payload: body,
    };
  }
}
