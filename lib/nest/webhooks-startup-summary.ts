import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SafeLogger } from '../telemetry/safe-logger';
import { ApplicationConfig } from '@nestjs/core';
import { WebhookHandlerRegistry } from '../handlers/webhook-handler.registry';
import { WebhookEndpoint } from '../providers/webhook-provider.interface';
import type { OpenWebhookTransport } from '../dispatch/webhook-transport';
import {
  WEBHOOKS_RESOLVED_OPTIONS,
  WEBHOOKS_ROUTE_PATH,
  WEBHOOKS_TRANSPORT,
} from './webhooks.constants';
import { NO_LISTENERS } from './webhooks.messages';
import { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';

/**
 * Logs once at startup where each endpoint is mounted, which handlers its events go to and
 * where those run, and warns about an endpoint no handler listens to: its deliveries would be
 * stored as ignored.
 */
@Injectable()
export class WebhooksStartupSummary implements OnApplicationBootstrap {
  private readonly logger = new SafeLogger('WebhooksModule');

  constructor(
    @Inject(WEBHOOKS_RESOLVED_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    @Inject(WEBHOOKS_ROUTE_PATH) private readonly path: string,
    private readonly registry: WebhookHandlerRegistry,
    private readonly config: ApplicationConfig,
    @Inject(WEBHOOKS_TRANSPORT) private readonly transport: OpenWebhookTransport | null,
  ) {}

  onApplicationBootstrap(): void {
    // NOTE: at bootstrap, not at module init: the handlers are registered by then, and the
    // global prefix is set before init().
    for (const endpoint of this.options.endpoints.values()) {
      const kind = endpoint.provider.kind;
      const handlers = this.registry.listenersOf({ name: endpoint.name, kind });
      const runs =
        handlers.length === 0
          ? 'no handler'
          : handlers.map((h) => `${h.key} (${h.patterns.join(', ')})`).join(', ');
      this.logger.log(
        `Endpoint "${endpoint.name}" (${kind}) at ${this.route(endpoint)} runs ${runs}`,
      );
      if (handlers.length === 0) {
        this.logger.warn(NO_LISTENERS(endpoint.name, kind));
      }
    }
    this.logger.log(this.whereHandlersRun());
  }

  private whereHandlersRun(): string {
    const { enabled, concurrency } = this.options.dispatch;
    if (!enabled) {
      return 'Handlers do not run in this instance (dispatch.enabled: false); another instance runs them';
    }
    if (this.transport) {
      return this.transport.description;
    }
    return `Handlers run in this process, up to ${concurrency} events at a time`;
  }

  private route(endpoint: WebhookEndpoint): string {
    const methods = (endpoint.provider.methods ?? ['POST']).join('|');
    const segments = [this.config.getGlobalPrefix(), this.path, endpoint.name]
      .map((segment) => segment.replace(/^\/+|\/+$/g, ''))
      .filter((segment) => segment !== '');
    return `${methods} /${segments.join('/')}`;
  }
}
