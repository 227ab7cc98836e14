import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { routeOf, startupSummary } from '../engine/startup-summary';
import { WebhooksEngine } from '../engine/webhooks-engine';
import { WebhookEndpoint } from '../providers/webhook-provider.interface';
import { SafeLogger } from '../telemetry/safe-logger';
import { PaymentWebhookRoutesExplorer } from './payment-webhook-routes.explorer';
import { WEBHOOKS_ENGINE, WEBHOOKS_ROUTE_PATH } from './webhooks.constants';
import { NO_LISTENERS } from './webhooks.messages';

/**
 * Logs once at startup where each endpoint is received (the module's route and the app's own
 * `@PaymentWebhook()` routes), which handlers its events go to and where those run, and warns
 * about an endpoint no handler listens to: its deliveries would be stored as ignored. The lines
 * are the engine's summary, as the Express router logs them.
 */
@Injectable()
export class WebhooksStartupSummary implements OnApplicationBootstrap {
  private readonly logger = new SafeLogger('WebhooksModule');

  constructor(
    @Inject(WEBHOOKS_ENGINE) private readonly engine: WebhooksEngine,
    @Inject(WEBHOOKS_ROUTE_PATH) private readonly path: string,
    private readonly config: ApplicationConfig,
    private readonly ownRoutes: PaymentWebhookRoutesExplorer,
    private readonly http: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    // NOTE: at bootstrap, not at module init: the handlers are registered by then, and the
    // global prefix is set before init().
    const lines = startupSummary(this.engine, {
      // NOTE: an application context (a worker process) has no HTTP adapter, and no routes.
      routesOf: (endpoint) =>
        this.http.httpAdapter
          ? [
              routeOf(endpoint, this.pathOf(this.path, endpoint.name)),
              ...this.ownRoutesOf(endpoint),
            ]
          : [],
      noListeners: NO_LISTENERS,
    });
    for (const { level, text } of lines) {
      this.logger[level](text);
    }
  }

  /** The endpoint's `@PaymentWebhook()` routes: `POST /api/stripe/hook (@PaymentWebhook on …)`. */
  private ownRoutesOf(endpoint: WebhookEndpoint): string[] {
    return this.ownRoutes.routes
      .filter((route) => route.endpoint === endpoint.name)
      .flatMap((route) =>
        route.paths.map(
          (path) => `${route.method} ${this.pathOf(path)} (@PaymentWebhook on ${route.handler})`,
        ),
      );
  }

  /** A route's path under the app's global prefix: `/api/hooks/stripe`. */
  private pathOf(...parts: string[]): string {
    const segments = [this.config.getGlobalPrefix(), ...parts]
      .flatMap((part) => part.split('/'))
      .filter((segment) => segment !== '');
    return `/${segments.join('/')}`;
  }
}
