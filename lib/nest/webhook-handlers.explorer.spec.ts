import { Injectable, Scope } from '@nestjs/common';
import { DiscoveryModule, MetadataScanner } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { PaymentEvent } from '../handlers/payment-event.interface';
import { OnPaymentEvent } from './on-payment-event.decorator';
import { WebhookHandlerRegistry } from '../handlers/webhook-handler.registry';
import { WebhookHandlersExplorer } from './webhook-handlers.explorer';
import { WebhooksMetadataAccessor } from './webhooks-metadata.accessor';

@Injectable()
class OrdersWebhooks {
  readonly seen: string[] = [];

  @OnPaymentEvent('payment.succeeded')
  @OnPaymentEvent('stripe:charge.captured', { endpoint: 'stripe' })
  async paid(event: PaymentEvent): Promise<void> {
    this.seen.push(event.eventId);
  }

  @OnPaymentEvent('refund.succeeded', { key: 'refunds' })
  async refunded(): Promise<void> {}
}

@Injectable()
class DuplicateKey {
  @OnPaymentEvent('payment.failed', { key: 'refunds' })
  async failed(): Promise<void> {}
}

@Injectable()
class UnknownEndpoint {
  @OnPaymentEvent('payment.failed', { endpoint: 'paypal' })
  async failed(): Promise<void> {}
}

@Injectable({ scope: Scope.REQUEST })
class PerRequest {
  @OnPaymentEvent('payment.failed')
  async failed(): Promise<void> {}
}

async function explore(...handlers: (new (...args: never[]) => unknown)[]) {
  const registry = new WebhookHandlerRegistry(['stripe']);
  const module = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [
      MetadataScanner,
      WebhooksMetadataAccessor,
      WebhookHandlersExplorer,
      { provide: WebhookHandlerRegistry, useValue: registry },
      ...handlers,
    ],
  }).compile();
  await module.init();
  return { module, registry };
}

describe('WebhookHandlersExplorer', () => {
  const stripe = { endpoint: 'stripe', provider: 'stripe' };

  it('registers every @OnPaymentEvent of a provider, several on one method under #n keys', async () => {
    const { module, registry } = await explore(OrdersWebhooks);
    const paid = { ...stripe, type: 'payment.succeeded', nativeType: 'payment_intent.succeeded' };
    const captured = { ...stripe, type: 'stripe:charge.captured', nativeType: 'charge.captured' };

    // NOTE: decorators apply bottom-up: the lower registration is the first.
    expect(registry.match(captured).map((h) => h.key)).toEqual(['OrdersWebhooks.paid']);
    expect(registry.match(paid).map((h) => h.key)).toEqual(['OrdersWebhooks.paid#1']);
    expect(registry.has('refunds')).toBe(true);
    await registry.match(paid)[0].invoke({ eventId: 'evt_1' } as PaymentEvent, {} as never);
    expect(module.get(OrdersWebhooks).seen).toEqual(['evt_1']);
    await module.close();
  });

  it('fails at startup on two handlers with one key', async () => {
    await expect(explore(OrdersWebhooks, DuplicateKey)).rejects.toThrow(/share the key "refunds"/);
  });

  it('fails at startup on a handler limited to an endpoint that is not configured', async () => {
    await expect(explore(UnknownEndpoint)).rejects.toThrow(
      /"UnknownEndpoint.failed" names endpoint "paypal", which is not configured/,
    );
  });

  it('leaves out handlers on request-scoped providers', async () => {
    const { module, registry } = await explore(PerRequest);
    expect(registry.has('PerRequest.failed')).toBe(false);
    await module.close();
  });
});
