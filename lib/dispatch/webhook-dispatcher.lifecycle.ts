import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { WEBHOOKS_RESOLVED_OPTIONS } from '../webhooks.constants';
import { ResolvedWebhooksOptions } from '../webhooks-options.resolver';
import { WebhookDispatcher } from './webhook.dispatcher';

/**
 * Starts the {@link WebhookDispatcher} when the Nest app has bootstrapped (unless
 * `dispatch.enabled` is false) and stops it before the app shuts down.
 */
@Injectable()
export class WebhookDispatcherLifecycle
  implements OnApplicationBootstrap, BeforeApplicationShutdown
{
  constructor(
    private readonly dispatcher: WebhookDispatcher,
    @Inject(WEBHOOKS_RESOLVED_OPTIONS) private readonly options: ResolvedWebhooksOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (this.options.dispatch.enabled) {
      this.dispatcher.start();
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.dispatcher.stop();
  }
}
