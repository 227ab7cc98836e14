import { SafeLogger } from './safe-logger';

/** What happened to a delivery, as journaled. */
export type DeliveryDecision =
  | 'accepted'
  | 'duplicate'
  | 'ignored'
  | 'skipped'
  | 'rejected_signature'
  | 'rejected_timestamp'
  | 'rejected_ip'
  | 'unconfirmed'
  | 'api_budget_spent'
  | 'invalid'
  | 'too_large'
  | 'body_timeout'
  | 'unknown_endpoint'
  | 'unknown_tenant'
  | 'tenant_unavailable'
  | 'method_not_allowed'
  | 'store_failed';

/** One HTTP delivery, accepted or not: the journal entry. */
export interface DeliveryRecord {
  /** The request's `X-Request-Id` when it has a usable one, otherwise a generated id. */
  readonly requestId: string;
  readonly endpoint: string;
  /** The tenant of a tenant endpoint, when the URL names a possible one. */
  readonly tenant?: string;
  /** Provider kind; undefined for an unknown endpoint. */
  readonly provider?: string;
  readonly decision: DeliveryDecision;
  /** HTTP status answered. */
  readonly status: number;
  /** Milliseconds from receipt to the answer being decided (after the commit when stored). */
  readonly latencyMs: number;
  readonly sourceIp?: string;
  /** Provider event ids (dedup keys), when known; several for a batched delivery. */
  readonly eventIds?: readonly string[];
  /** Event types, when known. */
  readonly types?: readonly string[];
  /** Payment ids, when known. */
  readonly paymentRefs?: readonly string[];
  /**
   * The handlers, by key, that ran to the end before the answer (`dispatch.inline`); absent
   * when none did.
   */
  readonly handled?: readonly string[];
  /** Why it was refused, or why it was answered without being stored (`skipped`). */
  readonly reason?: string;
  /** For `rejected_ip`: the rule the source was refused by. */
  readonly sourceRule?: SourceRule;
  readonly receivedAt: Date;
}

/** The allowlist check that refused a delivery's source (`rejected_ip`). */
export interface SourceRule {
  /**
   * The list the address was checked against: `allowedIps [10.0.0.0/8]`, or the provider's
   * default ranges by name (`YooKassa's published ranges (YOOKASSA_IP_RANGES)`).
   */
  readonly allowed: string;
  /**
   * Whether the address was read through the platform's proxy handling (`trustProxy` on) rather
   * than taken from the socket.
   */
  readonly trustProxy: boolean;
  /** The request's `X-Forwarded-For`, when it came with one: it passed a proxy. */
  readonly forwardedFor?: string;
}

/** One handler run for one event. */
export interface AttemptRecord {
  /** Inbox id. */
  readonly id: string;
  readonly endpoint: string;
  readonly provider: string;
  readonly type: string;
  /** Provider event id (dedup key). */
  readonly eventId: string;
  readonly handler: string;
  readonly attempt: number;
  /** `ran`, `already_done`, `failed`, or the outcome the handler reported. */
  readonly outcome: string;
  readonly durationMs: number;
  readonly error?: string;
}

/** An event leaving a processing attempt: where it stands now. */
export interface SettledRecord {
  readonly id: string;
  readonly endpoint: string;
  readonly provider: string;
  readonly type: string;
  readonly eventId: string;
  readonly paymentRef: string | null;
  readonly status: 'processed' | 'ignored' | 'retrying' | 'dead';
  readonly attempt: number;
  /** Milliseconds from the first receipt to this settlement. */
  readonly ageMs: number;
  readonly outcome?: string | null;
  readonly error?: string;
  /** On `retrying` and `dead`: what failed, one entry per handler (or one for the event). */
  readonly failures?: readonly SettledFailure[];
}

/** One failure of a settled attempt: which handler, and its cause. */
export interface SettledFailure {
  /** The handler's key; null when the event failed before its handlers ran. */
  readonly handler: string | null;
  readonly errorClass: string;
  /** The failure group's fingerprint (see `events groups`). */
  readonly fingerprint: string;
}

/** Receives telemetry; every method is optional. Errors thrown here are logged and dropped. */
export interface WebhookTelemetryListener {
  delivery?(record: DeliveryRecord): void;
  attempt?(record: AttemptRecord): void;
  settled?(record: SettledRecord): void;
}

/**
 * The package's own event stream: the ingress reports every delivery, the dispatcher every
 * handler run and every settled event. Metrics, health and alerts listen here; so can you.
 */
export class WebhookTelemetry {
  private readonly logger = new SafeLogger('WebhookTelemetry');
  private readonly listeners = new Set<WebhookTelemetryListener>();

  /** Adds a listener; returns a function that removes it. */
  subscribe(listener: WebhookTelemetryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reports a delivery. */
  delivery(record: DeliveryRecord): void {
    this.publish('delivery', record);
  }

  /** Reports a handler run. */
  attempt(record: AttemptRecord): void {
    this.publish('attempt', record);
  }

  /** Reports a settled event. */
  settled(record: SettledRecord): void {
    this.publish('settled', record);
  }

  private publish<K extends keyof WebhookTelemetryListener>(
    kind: K,
    record: Parameters<NonNullable<WebhookTelemetryListener[K]>>[0],
  ): void {
    for (const listener of this.listeners) {
      try {
        (listener[kind] as ((r: typeof record) => void) | undefined)?.call(listener, record);
      } catch (error) {
        this.logger.warn(`A telemetry listener failed on ${kind}: ${(error as Error).message}`);
      }
    }
  }
}
