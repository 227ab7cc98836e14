import { WebhookConfigurationError } from '../core/webhook-errors';
import {
  PaymentStatusClient,
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from '../providers/payment-status-client.interface';
import { WebhookEndpoint } from '../providers/webhook-provider.interface';

type Fetched = Record<string, unknown>;

/**
 * What `ctx` asks the provider's API about one event on one attempt, and as which account. The event and its related
 * object are fetched once per attempt, whichever handler asks and how often; the status is
 * asked anew on each call, as it may change.
 */
export class ProviderLookups {
  private event?: Promise<Fetched>;
  private relatedObject?: Promise<Fetched | null>;
  private asked?: PaymentStatusQuery;

  /**
   * @param endpointName the event's endpoint, for the error when it has no status client.
   * @param readQuery what is asked, read from the stored event when first needed.
   */
  constructor(
    private readonly endpointName: string,
    private readonly endpoint: WebhookEndpoint | undefined,
    private readonly readQuery: () => PaymentStatusQuery,
  ) {}

  /** `ctx.account`: the account the lookups are made as. */
  get account(): string | null {
    return this.query().account ?? null;
  }

  private query(): PaymentStatusQuery {
    this.asked ??= this.readQuery();
    return this.asked;
  }

  /** `ctx.fetchStatus()`. */
  status(): Promise<ProviderPaymentStatus> {
    return this.ask('ctx.fetchStatus()', (client) => client.fetchStatus(this.query()));
  }

  /** `ctx.fetchEvent()`. */
  fetchEvent(): Promise<Fetched> {
    this.event ??= this.ask('ctx.fetchEvent()', (client) =>
      client.fetchEvent ? client.fetchEvent(this.query()) : this.noSuchLookup('ctx.fetchEvent()'),
    );
    return this.event;
  }

  /** `ctx.fetchRelatedObject()`. */
  fetchRelatedObject(): Promise<Fetched | null> {
    this.relatedObject ??= this.ask('ctx.fetchRelatedObject()', (client) =>
      client.fetchRelatedObject
        ? client.fetchRelatedObject(this.query())
        : this.noSuchLookup('ctx.fetchRelatedObject()'),
    );
    return this.relatedObject;
  }

  private ask<T>(call: string, lookup: (client: PaymentStatusClient) => Promise<T>): Promise<T> {
    const client = this.endpoint?.statusClient;
    if (!client) {
      return Promise.reject(
        new WebhookConfigurationError(
          `Endpoint "${this.endpointName}" has no status client: give it the provider's API credentials to use ${call}.`,
        ),
      );
    }
    // NOTE: a lookup that throws before its first await still rejects, as handlers expect of ctx.
    try {
      return lookup(client);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private noSuchLookup(call: string): Promise<never> {
    const kind = this.endpoint?.statusClient?.kind ?? 'unknown';
    return Promise.reject(
      new WebhookConfigurationError(
        `Endpoint "${this.endpointName}" (${kind}) cannot use ${call}: its notifications carry their event; read event.payload.`,
      ),
    );
  }
}
