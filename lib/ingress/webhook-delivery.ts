import type {
  WebhookAcknowledgement,
  WebhookEndpoint,
} from '../providers/webhook-provider.interface';
import type { NewTransmission, NewWebhookEvent } from '../store/ports/inbox-writer.port';

/** What is known of a delivery before its body is read. */
export interface WebhookDeliveryHead {
  readonly endpoint: string;
  /**
   * The tenant the URL names (`…/{endpoint}/{tenant}`), for an endpoint made by
   * `tenantEndpoint()`; undefined for a URL without one.
   */
  readonly tenant?: string;
  /**
   * The HTTP method it came with: a GET delivery's raw body is its query string; a method the
   * endpoint's provider does not deliver with is refused with 405.
   * @default 'POST'
   */
  readonly method?: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly sourceIp: string | undefined;
  readonly receivedAt: Date;
}

/** A delivery as the controller hands it over: raw bytes and flattened headers. */
export interface WebhookDelivery extends WebhookDeliveryHead {
  readonly rawBody: Buffer;
}

/** A verified notification that is answered but not stored, and why. */
export interface SkippedNotification {
  readonly eventId: string;
  readonly type: string;
  readonly reason: string;
}

/** A delivery that passed every check, with the events it carries, ready to be stored. */
export interface VerifiedDelivery {
  readonly delivery: WebhookDelivery;
  readonly endpoint: WebhookEndpoint;
  readonly events: readonly NewWebhookEvent[];
  /**
   * The notifications the endpoint does not take (see `NormalizedNotification.skip`): answered,
   * not stored.
   */
  readonly skipped?: readonly SkippedNotification[];
  /** The signed transmission to check before the events are stored, when the provider has one. */
  readonly transmission?: NewTransmission;
  /**
   * The success answer when it names what this delivery carried (Robokassa's `OK{InvId}`);
   * otherwise the endpoint's.
   */
  readonly acknowledgement?: WebhookAcknowledgement;
}
