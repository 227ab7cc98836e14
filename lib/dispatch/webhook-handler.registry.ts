import { Injectable } from '@nestjs/common';
import { PaymentEvent, WebhookContext } from '../interfaces/payment-event.interface';
import { PaymentEventPattern } from './on-payment-event.decorator';

/** A discovered handler method. */
export interface RegisteredWebhookHandler {
  /** Stable ledger key. */
  readonly key: string;
  readonly patterns: readonly PaymentEventPattern[];
  /** Endpoint names it is limited to, or undefined for all. */
  readonly endpoints?: readonly string[];
  readonly invoke: (event: PaymentEvent, ctx: WebhookContext) => Promise<void>;
}

/** The minimum of an event needed to pick its handlers. */
export interface HandlerMatchInput {
  readonly endpoint: string;
  readonly provider: string;
  readonly type: string;
  readonly nativeType: string;
}

/** Every `@OnPaymentEvent` handler, and which of them an event goes to. */
@Injectable()
export class WebhookHandlerRegistry {
  private readonly handlers = new Map<string, RegisteredWebhookHandler>();

  add(handler: RegisteredWebhookHandler): void {
    this.handlers.set(handler.key, handler);
  }

  has(key: string): boolean {
    return this.handlers.has(key);
  }

  /**
   * Handlers that can receive an event from this endpoint: not limited to other endpoints, and
   * subscribed to everything, to a normalized type, or to a native type of the endpoint's kind.
   */
  listenersOf(endpoint: {
    readonly name: string;
    readonly kind: string;
  }): RegisteredWebhookHandler[] {
    const native = `${endpoint.kind}:`;
    return [...this.handlers.values()].filter(
      (handler) =>
        (!handler.endpoints || handler.endpoints.includes(endpoint.name)) &&
        handler.patterns.some(
          (pattern) => pattern === '*' || !pattern.includes(':') || pattern.startsWith(native),
        ),
    );
  }

  /** Handlers subscribed to the event, in registration order. */
  match(event: HandlerMatchInput): RegisteredWebhookHandler[] {
    const native = `${event.provider}:${event.nativeType}`;
    return [...this.handlers.values()].filter(
      (handler) =>
        (!handler.endpoints || handler.endpoints.includes(event.endpoint)) &&
        handler.patterns.some(
          (pattern) => pattern === '*' || pattern === event.type || pattern === native,
        ),
    );
  }
}
