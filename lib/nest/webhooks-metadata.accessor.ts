import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ON_PAYMENT_EVENT_METADATA } from './webhooks.constants';
import { OnPaymentEventMetadata } from './on-payment-event.decorator';

/** Reads `@OnPaymentEvent` metadata off handler methods. */
@Injectable()
export class WebhooksMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  getHandlerMetadata(
    target: (...args: unknown[]) => unknown,
  ): OnPaymentEventMetadata[] | undefined {
    return this.reflector.get<OnPaymentEventMetadata[] | undefined>(
      ON_PAYMENT_EVENT_METADATA,
      target,
    );
  }
}
