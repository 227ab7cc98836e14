import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';

/** A refund as the provider reports it. */
export interface ProviderRefund {
  /** The provider's refund id. */
  id: string;
  /** Amount given back, in minor units. */
  amount: number;
  currency: string;
  status: 'succeeded';
}

/** What the shop asks the provider to refund. */
export interface RefundRequest {
  /** The shop's order (the provider knows it as the payment's merchant reference). */
  orderId: string;
  amount: number;
  currency: string;
}

/**
 * Stands in for the payment provider's refunds API (such as Stripe's `POST /v1/refunds` with an
 * `Idempotency-Key` header), so the shop runs without a provider account. Like a real provider
 * it honours the idempotency key: a request with a key it has seen returns the first refund
 * instead of giving the money back again. Swap it for your provider's client in production.
 */
@Injectable()
export class SandboxRefundsGateway {
  private readonly byKey = new Map<string, { request: RefundRequest; refund: ProviderRefund }>();
  private requests = 0;

  /** Requests received, replays included. */
  get requestCount(): number {
    return this.requests;
  }

  /** Refunds actually made: money given back. */
  get refundCount(): number {
    return this.byKey.size;
  }

  /**
   * Refunds `request`, once per idempotency key.
   * @throws Error when the key was used for a different refund (the provider's 4xx).
   */
  async refund(request: RefundRequest, idempotencyKey: string): Promise<ProviderRefund> {
    this.requests += 1;
    // NOTE: a network round trip: other requests interleave here as they would with a provider.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const seen = this.byKey.get(idempotencyKey);
    if (seen) {
      if (JSON.stringify(seen.request) !== JSON.stringify(request)) {
        throw new Error(`Idempotency-Key ${idempotencyKey} was used for a different refund`);
      }
      return seen.refund;
    }
    const refund: ProviderRefund = {
      id: `re_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      amount: request.amount,
      currency: request.currency,
      status: 'succeeded',
    };
    this.byKey.set(idempotencyKey, { request, refund });
    return refund;
  }
}
