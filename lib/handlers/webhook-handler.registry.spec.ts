import { WebhookConfigurationError } from '../core/webhook-errors';
import { PaymentEvent, WebhookContext } from './payment-event.interface';
import { PAYMENT_EVENT_TYPES } from '../core/payment-event-types';
import { PaymentEventPattern } from './payment-event-pattern';
import { HandlerMatchInput, WebhookHandlerRegistry } from './webhook-handler.registry';

const paid: HandlerMatchInput = {
  endpoint: 'stripe',
  provider: 'stripe',
  type: 'payment.succeeded',
  nativeType: 'payment_intent.succeeded',
};

describe('WebhookHandlerRegistry', () => {
  it('registers a plain function handler under its name and runs it for matching events', async () => {
    const registry = new WebhookHandlerRegistry(['stripe']);
    const seen: string[] = [];
    registry.register({
      on: 'payment.succeeded',
      name: 'fulfil',
      handle: (event) => {
        seen.push(event.eventId);
      },
    });

    const [handler] = registry.match(paid);
    expect(handler.key).toBe('fulfil');
    expect(registry.has('fulfil')).toBe(true);
    await handler.invoke({ eventId: 'evt_1' } as PaymentEvent, {} as WebhookContext);
    expect(seen).toEqual(['evt_1']);
    expect(
      registry.match({ ...paid, type: 'refund.succeeded', nativeType: 'charge.refunded' }),
    ).toEqual([]);
  });

  it('matches a function handler by native type and limits it to its endpoints', () => {
    const registry = new WebhookHandlerRegistry(['stripe', 'stripe-eu']);
    registry.register({
      on: ['stripe:payment_intent.succeeded'],
      name: 'native',
      endpoint: 'stripe-eu',
      handle: async () => undefined,
    });

    expect(registry.match(paid)).toEqual([]);
    expect(registry.match({ ...paid, endpoint: 'stripe-eu' }).map((h) => h.key)).toEqual([
      'native',
    ]);
    expect(registry.listenersOf({ name: 'stripe-eu', kind: 'stripe' }).map((h) => h.key)).toEqual([
      'native',
    ]);
    expect(registry.listenersOf({ name: 'stripe-eu', kind: 'adyen' })).toEqual([]);
  });

  it('keeps registration order across decorated and function handlers', () => {
    const registry = new WebhookHandlerRegistry();
    registry.add({ key: 'Orders.paid', patterns: ['*'], invoke: async () => undefined });
    registry.register({ on: 'payment.succeeded', name: 'fulfil', handle: () => undefined });

    expect(registry.match(paid).map((h) => h.key)).toEqual(['Orders.paid', 'fulfil']);
  });

  it('refuses a second handler with the same key, naming it', () => {
    const registry = new WebhookHandlerRegistry(['stripe']);
    registry.register({ on: '*', name: 'fulfil', handle: () => undefined });

    const again = () =>
      registry.register({ on: 'payment.failed', name: 'fulfil', handle: () => undefined });
    expect(again).toThrow(WebhookConfigurationError);
    expect(again).toThrow(/Two handlers are named "fulfil"/);
    expect(again).not.toThrow(/@OnPaymentEvent|class and method/);
    expect(registry.match({ ...paid, type: 'payment.failed' })).toHaveLength(1);
  });

  it('refuses a handler limited to an endpoint that is not configured', () => {
    const registry = new WebhookHandlerRegistry(['stripe']);

    expect(() =>
      registry.register({ on: '*', name: 'fulfil', endpoint: 'paypal', handle: () => undefined }),
    ).toThrow(
      'Handler "fulfil" names endpoint "paypal", which is not configured (the endpoints are "stripe")',
    );
    expect(registry.has('fulfil')).toBe(false);
  });

  it("refuses '*' among named endpoints, and takes it alone for every endpoint", () => {
    const registry = new WebhookHandlerRegistry(['stripe', 'merchants'], undefined, ['merchants']);

    expect(() =>
      registry.register({
        on: '*',
        name: 'mixed',
        endpoint: ['*', 'stripe'],
        handle: () => undefined,
      }),
    ).toThrow(`Handler "mixed" names '*' among other endpoints`);
    registry.register({ on: '*', name: 'every', endpoint: '*', handle: () => undefined });
    expect(registry.match({ ...paid, endpoint: 'merchants' }).map((h) => h.key)).toEqual(['every']);
  });

  it('keeps the decorator wording for a discovered method', () => {
    const registry = new WebhookHandlerRegistry(['stripe']);
    registry.add({ key: 'Orders.paid', patterns: ['*'], invoke: async () => undefined });

    expect(() =>
      registry.add({ key: 'Orders.paid', patterns: ['*'], invoke: async () => undefined }),
    ).toThrow(/Two @OnPaymentEvent handlers share the key "Orders.paid"/);
  });

  describe('patterns', () => {
    const kinds = ['stripe', 'github'];
    function refusal(on: string): string {
      const registry = new WebhookHandlerRegistry(['stripe', 'hooks'], kinds);
      try {
        registry.register({ on: on as PaymentEventPattern, name: 'h', handle: () => undefined });
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookConfigurationError);
        expect(registry.has('h')).toBe(false);
        return (error as Error).message;
      }
      throw new Error(`${on} was accepted`);
    }

    it.each([
      [
        'payment.*',
        "wildcards other than '*' alone are not supported; list the types instead: 'payment.authorized'",
      ],
      ['refund.*', "list the types instead: 'refund.succeeded', 'refund.failed'"],
      ['stripe:charge.*', "wildcards other than '*' alone are not supported"],
      ['**', "wildcards other than '*' alone are not supported"],
      ['payment.succeded', 'it is not a normalized type; the closest is "payment.succeeded"'],
      ['Payment.Succeeded', 'the closest is "payment.succeeded"'],
      [
        'strpe:charge.refunded',
        '"strpe" is neither the kind of a configured endpoint nor a provider of this package',
      ],
      ['gihtub:push', 'the closest is "github"'],
      ['stripe:', 'the native type after "stripe:" is empty'],
      ['', 'a pattern is a non-empty string'],
    ])('refuses %p, naming why and the accepted forms', (on, why) => {
      const message = refusal(on);
      expect(message).toContain(`Handler "h" subscribes to ${JSON.stringify(on)}`);
      expect(message).toContain(why);
      expect(message).toContain("'<kind>:<native type>' for the kind of a configured endpoint");
    });

    it('accepts every normalized type, native types of configured kinds and "*" alone', () => {
      const registry = new WebhookHandlerRegistry(['stripe', 'hooks'], kinds);
      registry.add({
        key: 'all',
        patterns: [...PAYMENT_EVENT_TYPES, 'stripe:charge.captured', 'github:push', '*'],
        invoke: async () => undefined,
      });
      expect(registry.match(paid).map((h) => h.key)).toEqual(['all']);
    });

    it('refuses a decorated method with a wildcard pattern, under its key', () => {
      const registry = new WebhookHandlerRegistry(['stripe'], ['stripe']);
      expect(() =>
        registry.add({
          key: 'Orders.paid',
          patterns: ['payment.*' as PaymentEventPattern],
          invoke: async () => undefined,
        }),
      ).toThrow(/Handler "Orders.paid" subscribes to "payment.\*"/);
    });
  });
});
