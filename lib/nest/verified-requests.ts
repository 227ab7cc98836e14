import type { VerifiedDelivery } from '../ingress/webhook-delivery';

/** What `PaymentWebhookGuard` verified, by request, until the interceptor commits it. */
const verifiedByRequest = new WeakMap<object, VerifiedDelivery>();

/** Hands a request's verified delivery on to the interceptor of the same route. */
export function keepVerified(request: object, delivery: VerifiedDelivery): void {
  verifiedByRequest.set(request, delivery);
}

/** The request's verified delivery, once: a second call finds nothing to commit again. */
export function takeVerified(request: object): VerifiedDelivery | undefined {
  const delivery = verifiedByRequest.get(request);
  verifiedByRequest.delete(request);
  return delivery;
}
