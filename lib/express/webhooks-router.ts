import { OptionRename, renamedOption } from '../core/deprecated-options';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { WebhookAdmin } from '../admin/webhook-admin';
import { WebhookHandlerDefinition } from '../handlers/webhook-handler.registry';
import { WebhooksHealthReport } from '../observability/webhooks-health.indicator';
import { useWebhooksLogger } from '../telemetry/webhooks-logger';
import { WebhookEventEntity } from '../store/schema/entities/webhook-event.entity';
import { WebhooksEngine } from '../engine/webhooks-engine';
import { WebhookTransactions } from '../store/connections/webhook-transactions';
import { adminRouter, WebhookAdminRouterOptions } from './admin-router';
import { deliveryHandler, RequestHandler } from './delivery-handler';
import {
  DATA_SOURCE_NOT_INITIALIZED,
  DUPLICATE_HANDLER,
  ENTITIES_NOT_REGISTERED,
  INVALID_HANDLER,
  ROUTER_STOPPED,
} from './express.messages';
import { healthHandler, metricsHandler } from './observability-handlers';
import { routerLoggerFactory } from './router-logger';
import { logRouterSummary } from './router-summary';
import { WebhooksRouterOptions } from './webhooks-router.options';

/**
 * The webhooks of a plain Express app: itself the middleware that receives deliveries
 * (`app.use('/webhooks', router)`, before `express.json()`), with the worker's controls and
 * the health, metrics and admin pieces beside it.
 */
const ROUTER_START: OptionRename = {
  from: 'start',
  to: 'autoStart',
  where: 'createWebhooksRouter()',
  unit: 'a boolean, as before; router.start() stays',
  code: 'NPW_DEP_ROUTER_START',
};

export interface WebhooksRouter extends RequestHandler {
  /** Lists, shows, redelivers, replays, settles and purges stored events. */
  readonly admin: WebhookAdmin;
  /**
   * Runs the app's own writes in a transaction on the inbox's connection: what the app's
   * routes use on SQLite, where the package's writes and the app's share one file.
   */
  readonly transactions: WebhookTransactions;
  /**
   * Registers one more handler, as `handlers` does. Before `start()` (with `autoStart: false`) it
   * also runs for the events already waiting; the name is its ledger key, unique per router.
   * @throws WebhookConfigurationError for an invalid or duplicate handler
   */
  register(handler: WebhookHandlerDefinition): void;
  /**
   * Answers `GET` with {@link health}'s report as JSON: 200 when up, 503 when down. For
   * monitoring, not for the load balancer's probe of the instances that receive webhooks.
   */
  readonly healthHandler: RequestHandler;
  /**
   * Answers with the Prometheus text of the metrics registry when `observability.metrics` is
   * on; 404 with a JSON message naming the option when it is off.
   */
  readonly metricsHandler: RequestHandler;
  /**
   * Starts the worker and schedules, and logs the startup summary (endpoints, handlers, where
   * they run); done by `createWebhooksRouter()` unless `autoStart: false`. Waits for no broker.
   */
  start(): Promise<void>;
  /**
   * Stops the worker (running handlers finish, up to `dispatch.shutdownTimeoutMs`; what was
   * claimed and not started goes back to the inbox) and the schedules, then closes the
   * package's own connections. Call it after `server.close()`, and before
   * `dataSource.destroy()`. Final: create a new router to receive again.
   */
  stop(): Promise<void>;
  /** Whether the inbox is reachable, writable and keeping up; never throws. */
  health(): Promise<WebhooksHealthReport>;
  /**
   * The admin routes the Nest module offers, as middleware to mount where you like:
   * `app.use('/webhooks-admin', express.json(), router.adminRouter({ authorize }))`.
   * @throws WebhookConfigurationError when `authorize` is missing
   */
  adminRouter(options: WebhookAdminRouterOptions): RequestHandler;
}

/**
 * Builds the webhooks of a plain Express app on its TypeORM data source: checks the options
 * and the inbox's tables, registers the handlers, and starts the worker (unless `autoStart: false`).
 *
 * @example
 * ```ts
 * const webhooks = await createWebhooksRouter({
 *   dataSource,
 *   endpoints: [stripeEndpoint({ name: 'stripe', secret: process.env.STRIPE_WEBHOOK_SECRET! })],
 *   handlers: [{ on: 'payment.succeeded', name: 'fulfil', handle: fulfilOrder }],
 * });
 * app.use('/webhooks', webhooks);
 * app.use(express.json());
 * ```
 * @throws WebhookConfigurationError naming the fix, for invalid options, handlers or tables
 */
export async function createWebhooksRouter(
  options: WebhooksRouterOptions,
): Promise<WebhooksRouter> {
  const {
    dataSource,
    store,
    handlers = [],
    logger,
    pendingPayments,
    autoStart: given,
    start: deprecated,
    ...module
  } = options;
  const autoStart =
    renamedOption(given, deprecated, ROUTER_START, 'createWebhooksRouter() options') ?? true;
  if (!store) {
    if (!dataSource?.isInitialized) {
      throw new WebhookConfigurationError(DATA_SOURCE_NOT_INITIALIZED);
    }
    if (!dataSource.hasMetadata(WebhookEventEntity)) {
      throw new WebhookConfigurationError(ENTITIES_NOT_REGISTERED);
    }
  }
  handlers.forEach((handler, index) =>
    checkHandler(handler, `handlers[${index}] of createWebhooksRouter()`),
  );
  const duplicate = handlers.find((handler, index) =>
    handlers.some((other, before) => before < index && other.name === handler.name),
  );
  if (duplicate) {
    throw new WebhookConfigurationError(DUPLICATE_HANDLER(duplicate.name));
  }
  useWebhooksLogger(routerLoggerFactory(logger));
  const engine = await WebhooksEngine.create({
    options: module,
    dataSource,
    store,
    pendingPayments: () => pendingPayments,
  });
  const router = routerOf(engine);
  try {
    handlers.forEach((handler) => engine.registry.register(handler));
    if (autoStart) {
      await router.start();
    } else {
      logRouterSummary(engine, false);
    }
  } catch (error) {
    // NOTE: a refused handler or metric must not leave the store's own connection open.
    await router.stop();
    throw error;
  }
  return router;
}

/** The engine behind each router, for the package's own tests and tools. */
const engines = new WeakMap<WebhooksRouter, WebhooksEngine>();

/** The engine a router was built on. */
export function engineOf(router: WebhooksRouter): WebhooksEngine {
  return engines.get(router)!;
}

function routerOf(engine: WebhooksEngine): WebhooksRouter {
  let stopped: Promise<void> | undefined;
  let started = false;
  const receive = deliveryHandler(() => engine.ingress);
  const handler: RequestHandler = (request, response, next) => receive(request, response, next);
  const router: WebhooksRouter = Object.assign(handler, {
    admin: engine.admin,
    transactions: engine.transactions,
    register(definition: WebhookHandlerDefinition): void {
      checkHandler(definition, 'The handler given to router.register()');
      engine.registry.register(definition);
    },
    healthHandler: healthHandler(() => engine.health.checkHealth()),
    metricsHandler: metricsHandler(engine.metrics),
    async start(): Promise<void> {
      if (stopped) {
        throw new WebhookConfigurationError(ROUTER_STOPPED);
      }
      await engine.start();
      if (!started) {
        started = true;
        logRouterSummary(engine, true);
      }
    },
    stop(): Promise<void> {
      stopped ??= engine.stop().finally(() => engine.close());
      return stopped;
    },
    health: () => engine.health.checkHealth(),
    adminRouter: (adminOptions: WebhookAdminRouterOptions) =>
      adminRouter(engine.admin, adminOptions),
  });
  engines.set(router, engine);
  return router;
}

function checkHandler(handler: WebhookHandlerDefinition, where: string): void {
  const on: unknown = handler?.on;
  const patterns = Array.isArray(on) ? on : [on];
  const valid =
    typeof handler?.handle === 'function' &&
    typeof handler.name === 'string' &&
    handler.name.trim() !== '' &&
    patterns.length > 0 &&
    patterns.every((pattern) => typeof pattern === 'string' && pattern !== '');
  if (!valid) {
    throw new WebhookConfigurationError(INVALID_HANDLER(where));
  }
}
