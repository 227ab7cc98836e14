import { checkEnvelope, defineEnvelope } from '../envelope';
import { equalTo, jsonObject, nonEmptyString, optional, string } from '../envelope-rules';
import { JsonObject, isJsonObject, parseIsoDate, readObject, readString } from '../parse-payload';
import { NormalizedNotification } from '../webhook-provider.interface';
import {
  MolliePaymentState,
  paymentState,
  paymentStateKey,
  paymentStatusType,
  readMerchantRef,
  readMollieAmount,
} from './mollie-payment';

const KIND = 'mollie';

/** A next-generation webhook event (`resource: "event"`), as Mollie posts it signed. */
const MOLLIE_EVENT = defineEnvelope({
  resource: equalTo('event'),
  id: nonEmptyString(),
  type: nonEmptyString(),
  entityId: nonEmptyString(),
  createdAt: optional(string()),
  _embedded: optional(jsonObject()),
});

/** A payment as the API returned it for a classic webhook, stored in the webhook's place. */
const MOLLIE_PAYMENT = defineEnvelope({
  resource: equalTo('payment'),
  id: nonEmptyString(),
  status: nonEmptyString(),
  amount: jsonObject(),
});

/**
 * The entity a full-payload event embeds: `_embedded.entity`, else the first embedded object with
 * an `id` and a `resource` (Mollie's documentation shows it under the resource's name, e.g.
 * `_embedded["payment-link"]`). None for a simple-payload subscription.
 */
function embeddedEntity(event: JsonObject): JsonObject | undefined {
  const embedded = readObject(event, '_embedded');
  if (embedded === undefined) return undefined;
  const entity = readObject(embedded, 'entity');
  if (entity !== undefined) return entity;
  return Object.values(embedded).find(
    (value): value is JsonObject =>
      isJsonObject(value) && readString(value, 'id') !== undefined && 'resource' in value,
  );
}

/** The normalized type of a next-gen event type: only the Payments API's map. */
function mapEventType(type: string): NormalizedNotification['type'] {
  const [family, status] = type.split('.');
  const mapped = family === 'payment' && status ? paymentStatusType(status) : undefined;
  return mapped ?? `${KIND}:${type}`;
}

/**
 * A next-generation event: the signed `id` (`event_…`) is the dedup key. A payment event's
 * embedded payment gives the references, amount and status; a simple payload (no embedded
 * entity) gives the payment id alone.
 */
export function normalizeMollieEvent(
  body: JsonObject,
  merchantRefKey: string,
): NormalizedNotification {
  const event = checkEnvelope(MOLLIE_EVENT, body, 'Mollie event');
  const entity = embeddedEntity(event);
  const isPayment = event.type.startsWith('payment.');
  const paymentId = isPayment ? (readString(entity, 'id') ?? event.entityId) : undefined;
  return {
    eventId: event.id,
    type: mapEventType(event.type),
    nativeType: event.type,
    paymentRef: paymentId,
    merchantRef: isPayment ? readMerchantRef(entity, merchantRefKey) : undefined,
    ...readMollieAmount(entity?.amount),
    status: readString(entity, 'status'),
    occurredAt: parseIsoDate(event.createdAt),
    // NOTE: the signature covers the whole body, createdAt included, and no delivery time.
    occurredAtSigned: true,
    payload: body,
  };
}

/**
 * A classic webhook's notification from the payment the API returned for it. `storedBody` is the
 * payment's JSON, so the stored event (and its `payload`) is the state that was confirmed, and
 * normalizing it again gives the same key; that state is the API's answer (`fetchedStatus`), as
 * `MollieStatusClient.fetchStatus()` reads it.
 */
export function normalizeMolliePayment(
  body: JsonObject,
  merchantRefKey: string,
  storedBody?: string,
): NormalizedNotification {
  const payment = checkEnvelope(MOLLIE_PAYMENT, body, 'Mollie payment');
  const state: MolliePaymentState = paymentState(payment);
  return {
    eventId: paymentStateKey(payment),
    type: state.type ?? `${KIND}:${state.nativeType}`,
    nativeType: state.nativeType,
    paymentRef: payment.id,
    merchantRef: readMerchantRef(payment, merchantRefKey),
    amount: state.amount,
    currency: state.currency,
    status: state.status,
    occurredAt: state.occurredAt,
    payload: body,
    fetchedStatus: {
      paymentRef: payment.id,
      status: state.status,
      type: state.type,
      amount: state.amount,
      currency: state.currency,
    },
    ...(storedBody === undefined ? {} : { storedBody }),
  };
}
