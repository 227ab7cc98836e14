import { Injectable } from '@nestjs/common';
import { OnPaymentEvent } from 'nestjs-payment-webhooks';
import type { PaymentEvent } from 'nestjs-payment-webhooks';
import { LagRecorder } from './lag-recorder';

/**
 * The benchmark's handler: records when it started, then waits `handlerDelayMs` (0 by default,
 * a no-op). It takes `payment.failed`, which the sample shop itself does not handle, so it is
 * the only handler the benchmark's events run.
 */
@Injectable()
export class BenchHandler {
  constructor(private readonly recorder: LagRecorder) {}

  @OnPaymentEvent('payment.failed', { endpoint: 'stripe' })
  async onPaymentFailed(event: PaymentEvent): Promise<void> {
    this.recorder.started(event.eventId, event.receivedAt);
    const delay = this.recorder.handlerDelayMs;
    if (delay > 0) {
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
