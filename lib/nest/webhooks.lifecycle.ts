import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { WEBHOOKS_ENGINE } from './webhooks.constants';
import { WebhooksEngine } from '../engine/webhooks-engine';

/**
 * Runs the engine on Nest's lifecycle: starts it once the app has bootstrapped (the explorer has
 * registered the `@OnPaymentEvent` handlers by then), stops the worker and schedules before the
 * app shuts down, and closes the store's own connection after the HTTP server has closed.
 */
@Injectable()
export class WebhooksLifecycle
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  constructor(@Inject(WEBHOOKS_ENGINE) private readonly engine: WebhooksEngine) {}

  onApplicationBootstrap(): Promise<void> {
    return this.engine.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.engine.stop();
  }

  onApplicationShutdown(): Promise<void> {
    return this.engine.close();
  }
}
