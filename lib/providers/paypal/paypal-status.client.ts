import {
  PaymentStatusClient,
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from '../payment-status-client.interface';
import { readString } from '../parse-payload';
import { ProviderLookup, providerStatusError } from '../provider-http';
import { PayPalApi, PayPalStatusClientOptions } from './paypal-api';
import {
  PayPalEventClaim,
  PayPalResource,
  differenceFromPayPal,
  eventClaimOf,
  resourceAmount,
  resourceOfEvent,
  resourcePath,
  statusType,
} from './paypal-status.mapping';

export type { PayPalStatusClientOptions } from './paypal-api';

const CLIENT = 'PayPalStatusClient';
// NOTE: PayPal ids are letters, digits and dashes (WH-…, 17-character capture ids); anything
// else could change the request path.
const PAYPAL_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/**
 * Asks PayPal whether a notification is what PayPal sent, and for the current status of what
 * it is about. With an OAuth2 access token (client credentials, `POST /v1/oauth2/token`, kept
 * until shortly before it expires):
 *
 * 1. `GET /v1/notifications/webhooks-events/{id}`: PayPal's own copy of the event must exist and
 *    carry the same event type, resource id, `custom_id`, `invoice_id` and amount as the
 *    notification. PayPal signs only a CRC-32 of the body, which another body can be made to
 *    match; this is what proves the body. Skipped when asked without a notification
 *    (reconciliation), where the capture `paymentRef` is looked up alone.
 * 2. The resource: `GET /v2/payments/captures/{id}` for capture events,
 *    `/v2/payments/refunds/{id}` for refunds and reversals, `/v2/checkout/orders/{id}` for
 *    checkout orders: its status and amount (see `statusType()` for the mapping).
 *
 * @example
 * new PayPalStatusClient({
 *   clientId: process.env.PAYPAL_CLIENT_ID!,
 *   clientSecret: process.env.PAYPAL_CLIENT_SECRET!,
 * })
 */
export class PayPalStatusClient implements PaymentStatusClient {
  /** Provider kind, as on the PayPal webhook provider. */
  readonly kind = 'paypal';

  private readonly api: PayPalApi;

  /**
   * @throws WebhookConfigurationError when a credential, `environment`, `apiUrl` or `timeoutMs`
   * cannot work.
   */
  constructor(options: PayPalStatusClientOptions) {
    this.api = new PayPalApi(CLIENT, options);
  }

  /**
   * Checks the notification against PayPal's copy of the event, then looks its resource up.
   * @throws ProviderStatusError `not_found` when PayPal does not know the event or the
   * resource; `invalid_response` when PayPal's copy differs from the notification (its handlers
   * must not run) or an answer is not what was asked; `missing_reference` when neither the
   * notification nor `paymentRef` names a capture, refund or order; `unauthorized`,
   * `unavailable` and `timeout` as every status client.
   */
  async fetchStatus(query: PaymentStatusQuery): Promise<ProviderPaymentStatus> {
    const claim = eventClaimOf(query.payload);
    const resource = claim ? resourceOfEvent(claim) : captureOf(query.paymentRef);
    if (resource === undefined || !PAYPAL_ID.test(resource.id)) {
      throw providerStatusError(
        this.lookup('the event', claim?.id ?? query.paymentRef ?? ''),
        'missing_reference',
        'the event names no capture, refund or checkout order',
        { hint: 'only capture, refund, reversal and checkout order events can be checked' },
      );
    }
    if (claim) {
      await this.confirmEvent(claim);
    }
    const body = await this.api.get(
      this.lookup(resource.kind, resource.id),
      resourcePath(resource),
    );
    const status = readString(body, 'status');
    if (status === undefined || readString(body, 'id') !== resource.id) {
      throw providerStatusError(
        this.lookup(resource.kind, resource.id),
        'invalid_response',
        `the answer is not the ${resource.kind} asked for`,
      );
    }
    return {
      paymentRef: resource.id,
      status,
      type: statusType(resource.kind, status),
      ...resourceAmount(body),
      checkedAt: new Date(),
    };
  }

  /** PayPal's copy of the event must exist and say what the notification says. */
  private async confirmEvent(claim: PayPalEventClaim): Promise<void> {
    const lookup = this.lookup('webhook event', claim.id);
    if (!PAYPAL_ID.test(claim.id)) {
      throw providerStatusError(lookup, 'missing_reference', 'the event id is not a PayPal id');
    }
    const path = `/v1/notifications/webhooks-events/${encodeURIComponent(claim.id)}`;
    const paypal = await this.api.get(lookup, path);
    if (readString(paypal, 'id') !== claim.id) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer is about another event');
    }
    const differing = differenceFromPayPal(claim, paypal);
    if (differing !== undefined) {
      throw providerStatusError(
        lookup,
        'invalid_response',
        `the notification differs from PayPal's copy of the event in ${differing}`,
        {
          hint:
            'PayPal did not send this body (its signature covers only a CRC-32 of it); ' +
            'the event is not acted on',
        },
      );
    }
  }

  private lookup(what: string, id: string): ProviderLookup {
    return this.api.lookup(what, id);
  }
}

/** A capture id to look up alone (reconciliation asks with the stored `paymentRef`). */
function captureOf(paymentRef: string | null): PayPalResource | undefined {
  return paymentRef === null || paymentRef === '' ? undefined : { kind: 'capture', id: paymentRef };
}
