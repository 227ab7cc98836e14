import { PaymentEventType } from '../core/payment-event-types';
import { SourceAllowlist } from '../core/source-allowlist';
import type { ProviderEventLog } from './event-log.interface';
import { PaymentStatusClient, ProviderPaymentStatus } from './payment-status-client.interface';

/** A delivery as it came over the wire: the exact raw bytes and the headers, nothing parsed. */
export interface InboundWebhook {
  /** The request body exactly as received. */
  readonly rawBody: Buffer;
  /** Header values by lower-cased name; repeated headers are joined with `, `. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** When the request arrived; timestamp windows are measured against it. */
  readonly receivedAt: Date;
}

/** What a provider extracts from a verified delivery. */
export interface NormalizedNotification {
  /** Dedup key: the provider's event id, or a key derived from fields when it sends none. */
  readonly eventId: string;
  /** Normalized type when the native type maps to one, otherwise `'<kind>:<nativeType>'`. */
  readonly type: PaymentEventType | `${string}:${string}`;
  /** The provider's own event type (or status, for providers that only send a status). */
  readonly nativeType: string;
  /** The provider's payment id. */
  readonly paymentRef?: string;
  /** The application's own order id, when the provider carries it. */
  readonly merchantRef?: string;
  /** Amount in minor units, when known. */
  readonly amount?: number;
  /** ISO 4217 currency code, upper-case, when known. */
  readonly currency?: string;
  /** The provider's payment status, when it sends one. */
  readonly status?: string;
  /** When the provider says the event happened. */
  readonly occurredAt?: Date;
  /**
   * Whether `occurredAt` is covered by the signature `verify()` checked. The ingress then
   * refuses (400) an event older than dedup keys are kept: a captured delivery replayed after
   * its key was deleted would otherwise be stored as new. Set it only where the provider signs
   * the event time but no per-delivery timestamp.
   * @default false
   */
  readonly occurredAtSigned?: boolean;
  /** The parsed body. */
  readonly payload: unknown;
  /**
   * The account the event happened on, when the endpoint receives events of several: a Stripe
   * Connect platform's connected account (a snapshot event's `account`, a notification's
   * `context`). Handlers see it as `ctx.account`; status lookups are made as that account.
   * @default none: the endpoint's own account
   */
  readonly account?: string;
  /**
   * Why the endpoint does not take this verified notification (a Stripe test-mode event at an
   * endpoint for live events): it is answered with the success answer, so the provider stops
   * sending it, but not stored, and journaled as `skipped` with this reason.
   * @default none: the notification is stored
   */
  readonly skip?: string;
  /**
   * What the provider's API answered about the payment, when the notification is that answer: a
   * notification that names only a payment is stored as the payment fetched while it was
   * answered (Mollie's classic webhooks, Mercado Pago's payment notifications). With
   * `verifyWithProvider`, handlers get it as `event.verified`, checked at the event's
   * `receivedAt`, and the API is not asked a second time for what it has just said.
   * @default none: `verifyWithProvider` asks the provider's API before handlers run
   */
  readonly fetchedStatus?: Omit<ProviderPaymentStatus, 'checkedAt'>;
  /**
   * The body stored for this event when it is not the delivery's own bytes: a provider that
   * batches several notifications into one request (Adyen) stores each as the one-notification
   * request it would have sent alone, and `normalize()` must accept that body back.
   */
  readonly storedBody?: string;
  /**
   * The id of the underlying event, for a provider that sends one event more than once under
   * different ids (Stripe: the snapshot event's own id, and the `snapshot_event` a notification
   * names). Between two endpoints paired for it (Stripe's `snapshotEndpoint`), a second copy is
   * stored as a duplicate of the first: handlers run once, with the first copy's payload. At
   * any other endpoint it changes nothing.
   * @default none: the event is only a duplicate of a delivery with its own `eventId`
   */
  readonly sameEventAs?: string;
}

/**
 * The signed transmission a delivery came in, for a provider whose signature covers a
 * transmission (an id and a time) but not the body itself, only a weak checksum of it.
 */
export interface SignedTransmission {
  /** The transmission id the signature covers. */
  readonly id: string;
  /**
   * How long after its arrival a replay of this transmission could still pass `verify()`, in
   * seconds: the transmission is remembered that long.
   */
  readonly replayableSeconds: number;
}

/** HTTP methods a provider delivers with. */
export type WebhookDeliveryMethod = 'POST' | 'GET';

/** The exact answer a provider counts as a successful delivery. */
export interface WebhookAcknowledgement {
  /** HTTP status. */
  readonly status: number;
  /** Body, sent byte for byte (may be empty). */
  readonly body: string;
  /** Content type of the body. */
  readonly contentType: string;
}

/**
 * One provider kind's protocol: pure functions over bytes and headers, no Nest, no database.
 */
export interface WebhookProvider {
  /** Provider kind, e.g. `'stripe'`; used in `'<kind>:<native>'` types. */
  readonly kind: string;
  /** The answer the provider expects for a stored (or duplicate, or ignored) delivery. */
  readonly acknowledgement: WebhookAcknowledgement;
  /**
   * Proves the delivery came from the provider, on the raw bytes, before anything is parsed.
   * May return a promise for a provider that needs I/O to verify (PayPal fetches the signing
   * certificate named in the delivery); the ingress awaits it either way.
   * @throws WebhookVerificationError (or rejects with it)
   */
  verify(request: InboundWebhook): void | Promise<void>;
  /**
   * Parses and validates a verified delivery and maps it to the normalized vocabulary. A
   * provider that batches returns one notification per item; they are stored together or not
   * at all.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification | readonly NormalizedNotification[];
  /**
   * The HTTP methods the provider delivers with. A GET delivery (Sber callbacks) carries the
   * notification in the query string, handed to `verify()` and `normalize()` as the raw body.
   * @default ['POST']
   */
  readonly methods?: readonly WebhookDeliveryMethod[];
  /**
   * Lower-cased names of the headers stored with an event besides the content type, user agent,
   * request id and forwarding headers every event keeps: the ids and timestamps `normalize()`
   * reads again when the event is replayed. Never a signature or a credential; every other
   * header is dropped before the event is stored.
   * @default none
   */
  readonly storedHeaders?: readonly string[];
  /**
   * The success answer's body for one verified delivery, when the provider expects the answer to
   * name what it sent (Robokassa: `OK{InvId}`). The status and content type stay the endpoint's
   * acknowledgement's. Called with what `normalize()` returned, for a new, duplicate or skipped
   * delivery alike.
   * @default the acknowledgement's body
   */
  acknowledgementBody?(notifications: readonly NormalizedNotification[]): string;
  /**
   * The status a delivery gets when `verify()` refuses it, for a provider that documents one
   * (GoCardless: 498). Nothing is stored either way.
   * @default 400
   */
  readonly signatureRefusalStatus?: number;
  /**
   * The signed transmission of a verified delivery, when the signature covers a transmission id
   * but not the body byte for byte (PayPal signs the body's CRC-32, which another body can be
   * made to match). The ingress then remembers the SHA-256 of the body each transmission came
   * with and refuses (400) a different body under a transmission id already seen.
   * @default none: the signature covers the body
   */
  signedTransmission?(request: InboundWebhook): SignedTransmission | undefined;
}

/** Options every endpoint kind shares. */
export interface BaseEndpointOptions {
  /** Unique endpoint name, used in the URL: `POST /{path}/{name}`. Letters, digits, `-` and `_`. */
  name: string;
  /**
   * Overrides the provider's success answer for this endpoint.
   * @default the provider's documented answer
   * @advanced
   */
  acknowledgement?: Partial<WebhookAcknowledgement>;
  /**
   * Largest accepted body in bytes; larger deliveries get 413.
   * @default 1048576 (1 MiB)
   * @advanced
   */
  maxBodyBytes?: number;
  /**
   * Longest a sender may take to send the whole body, in ms, counted from its headers. Past it
   * the delivery gets 408, nothing is stored, and the connection is closed, so a sender that
   * stalls mid-body (or trickles it) does not hold a connection and its buffer. Providers send
   * bodies of a few kilobytes at once; 10 s leaves room for a 1 MiB body on a slow link, and is
   * twice the 5 s Paddle gives for the whole answer. Between 100 and 120000.
   * @default 10000 (10 s)
   * @advanced
   */
  bodyTimeoutMs?: number;
  /**
   * Source addresses and CIDR ranges allowed to deliver; others get 403 before anything is
   * read. The client address is the socket's unless the module's `trustProxy` is on.
   * @default every address
   */
  allowedIps?: readonly string[];
  /**
   * Asks the provider's API for the payment's status before handlers run and puts the answer
   * on the event (`event.verified`); handlers act on it, not on the notification's claim.
   * Needs the provider's API credentials on the endpoint.
   * @default false (true for YooKassa, whose notifications are not signed)
   */
  verifyWithProvider?: boolean;
  /**
   * Runs the events of one payment (same `paymentRef`) one at a time, in the order the
   * provider says they happened (`occurredAt`, else arrival): an event waits while an earlier
   * one of its payment is still to run, retrying included. A dead event stops holding the
   * payment back.
   * @default false
   */
  orderPerPayment?: boolean;
  /**
   * Recovers the events whose deliveries never arrived, from the provider's event log, on a
   * schedule: every `everyMs` (and at once when the app starts) one instance reads the log from
   * where the last recovery of the endpoint ended (or, before the first, from the last event
   * received), at most `lookBackMs` back, and stores what the inbox does not have. Needs the
   * endpoint's API credentials and a provider that keeps an event log; a tenant endpoint
   * recovers each tenant it has events of on its own, with the API credentials `resolveTenant`
   * gives that tenant (docs/operations.md, "After an outage").
   * @default none: recoveries run when started (`events recover`, `WebhookRecoveries`)
   * @example recover: { everyMs: 3_600_000 }
   */
  recover?: WebhookRecoverySchedule;
}

/** When an endpoint's missed events are recovered on their own (`recover`). */
export interface WebhookRecoverySchedule {
  /**
   * How often, in milliseconds, from 60000 (a minute).
   * @default 3600000 (an hour)
   */
  everyMs?: number;
  /**
   * How far back a recovery reads at most, in milliseconds, from 60000 (a minute) to the time
   * the provider keeps events.
   * @default 259200000 (3 days, Stripe's retries), or what the provider keeps when that is less
   */
  lookBackMs?: number;
}

/** An endpoint configuration made by one of the typed factories (`stripeEndpoint()`, …). */
export interface WebhookEndpoint {
  /** Unique endpoint name used in the URL. */
  readonly name: string;
  /** The provider protocol for this endpoint. */
  readonly provider: WebhookProvider;
  /** The resolved success answer. */
  readonly acknowledgement: WebhookAcknowledgement;
  /** Largest accepted body in bytes. */
  readonly maxBodyBytes: number;
  /** Longest the sender may take to send the body, in ms. */
  readonly bodyTimeoutMs: number;
  /** Allowed source addresses, when restricted. */
  readonly allowedSources?: SourceAllowlist;
  /** The provider's status API client, when the endpoint has API credentials. */
  readonly statusClient?: PaymentStatusClient;
  /**
   * The provider's event log, read to recover events whose deliveries never arrived, when the
   * provider keeps one and the endpoint has its API credentials.
   */
  readonly eventLog?: ProviderEventLog;
  /** Whether the dispatcher asks `statusClient` before handlers run. */
  readonly verifyWithProvider: boolean;
  /** Whether events of one payment run one at a time, earliest first. */
  readonly orderPerPayment: boolean;
  /** When its missed events are recovered on their own, when they are. */
  readonly recover?: Readonly<Required<WebhookRecoverySchedule>>;
  /**
   * The endpoint that receives the snapshot events of the same account, for an endpoint of
   * event notifications paired with it (Stripe's `snapshotEndpoint`): the copies of one event
   * at either endpoint are one event.
   */
  readonly snapshotEndpoint?: string;
}
