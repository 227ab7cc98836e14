import type { OpenWebhookTransport } from '../dispatch/webhook-transport';
import type { WebhookHandlerRegistry } from '../handlers/webhook-handler.registry';
import type { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';
import { isTenantEndpoint } from '../tenants/tenant-endpoint';
import type { WebhookEndpoint } from '../providers/webhook-provider.interface';

/** What the summary reads of the engine: its endpoints, its handlers and where they run. */
export interface SummarizedEngine {
  readonly options: ResolvedWebhooksOptions;
  readonly registry: WebhookHandlerRegistry;
  readonly transport: OpenWebhookTransport | null;
}

/** What an adapter tells the summary: its routes and its words. */
export interface StartupSummaryAdapter {
  /**
   * The routes that receive the endpoint's deliveries, each as `POST /webhooks/stripe`; none in
   * a process that serves no HTTP (a worker process).
   */
  routesOf(endpoint: WebhookEndpoint): readonly string[];
  /** The warning for an endpoint no handler listens to, naming the adapter's way to add one. */
  noListeners(endpoint: string, kind: string): string;
  /**
   * Why the background work has not started yet, and what starts it; left out once started.
   * @default started
   */
  notStarted?: string;
}

/** One line of the summary, at the level it is logged at. */
export interface SummaryLine {
  readonly level: 'log' | 'warn';
  readonly text: string;
}

/**
 * What the Nest module and the Express router log at startup, in the same words: each endpoint
 * with its provider, its routes and the handlers its events go to (a warning after an endpoint
 * no handler listens to: its deliveries are stored as ignored), then where the handlers run.
 */
export function startupSummary(
  engine: SummarizedEngine,
  adapter: StartupSummaryAdapter,
): SummaryLine[] {
  const lines: SummaryLine[] = [];
  for (const endpoint of engine.options.endpoints.values()) {
    const kind = endpoint.provider.kind;
    const handlers = engine.registry.listenersOf({ name: endpoint.name, kind });
    const runs =
      handlers.length === 0
        ? 'no handler'
        : handlers.map((h) => `${h.key} (${h.patterns.join(', ')})`).join(', ');
    const routes = adapter.routesOf(endpoint);
    const at =
      routes.length === 0
        ? 'received by another process (this one serves no HTTP)'
        : `at ${routes.join(' and ')}`;
    lines.push({ level: 'log', text: `Endpoint "${endpoint.name}" (${kind}) ${at} runs ${runs}` });
    if (handlers.length === 0) {
      lines.push({ level: 'warn', text: adapter.noListeners(endpoint.name, kind) });
    }
  }
  lines.push({ level: 'log', text: whereHandlersRun(engine, adapter.notStarted) });
  return lines;
}

function whereHandlersRun(engine: SummarizedEngine, notStarted: string | undefined): string {
  const { enabled, concurrency } = engine.options.dispatch;
  if (!enabled) {
    return 'Handlers do not run in this instance (dispatch.enabled: false); another instance runs them';
  }
  if (notStarted !== undefined) {
    return `Handlers do not run yet: ${notStarted}`;
  }
  if (engine.transport) {
    return engine.transport.description;
  }
  return `Handlers run in this process, up to ${concurrency} events at a time`;
}

/**
 * An endpoint's methods and path as a route: `GET|POST /webhooks/sber`, and
 * `POST /webhooks/merchants/:tenant` for a tenant endpoint.
 */
export function routeOf(endpoint: WebhookEndpoint, path: string): string {
  const tenant = isTenantEndpoint(endpoint) ? '/:tenant' : '';
  return `${(endpoint.provider.methods ?? ['POST']).join('|')} ${path}${tenant}`;
}
