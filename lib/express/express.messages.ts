export const BODY_ALREADY_PARSED = (contentType: string | undefined) =>
  `The webhooks router got a request body (content type ${JSON.stringify(contentType ?? 'none')}) ` +
  'that a body parser had already read, so the raw bytes the signature covers are gone. Mount the ' +
  "router before any parser: `app.use('/webhooks', webhooks)` first, then `app.use(express.json())`; " +
  'or keep the bytes with `express.raw({ type: () => true })` on the webhooks path.';

export const DATA_SOURCE_NOT_INITIALIZED =
  'createWebhooksRouter() needs an initialized TypeORM data source: `await dataSource.initialize()` ' +
  '(with `webhooksMigrations` in its migrations, run by `migrationsRun: true` or ' +
  '`dataSource.runMigrations()`) and pass it as `dataSource`, or pass a `store` of your own.';

export const ENTITIES_NOT_REGISTERED =
  "The webhook entities are not in the app's TypeORM data source: add `...webhookEntities` " +
  "(from 'nestjs-payment-webhooks/express') to its `entities`, and `...webhooksMigrations` to " +
  'its `migrations`.';

export const LOGGER_SHAPE =
  'The `logger` option of createWebhooksRouter() needs `warn`, `error`, and `log` or `info` ' +
  'methods (console, pino and winston loggers have them); leave it out to log to stdout/stderr.';

export const INVALID_HANDLER = (where: string) =>
  `${where} must be { on, name, handle }: \`on\` an event ` +
  "type or a list of them (e.g. 'payment.succeeded'), `name` a non-empty string kept as the " +
  'handler ledger key, and `handle` a function `(event, ctx) => Promise<void>`.';

export const DUPLICATE_HANDLER = (name: string) =>
  `Two handlers given to createWebhooksRouter() are named "${name}": the name is the handler's ` +
  'ledger key, so give each handler a name of its own.';

export const ADMIN_NEEDS_AUTHORIZE =
  'The webhook admin routes replay and settle payment events: give adminRouter() an ' +
  '`authorize(request)` callback that checks your own authentication, e.g. ' +
  "adminRouter({ authorize: (req) => req.headers['x-admin-token'] === process.env.ADMIN_TOKEN }).";

export const ADMIN_FORBIDDEN = 'Not allowed to use the webhook admin routes';

export const ADMIN_BODY_INVALID = 'The request body must be a JSON object of at most 64 KiB';

export const METRICS_OFF =
  'Webhook metrics are off: set `observability: { metrics: true }` in the options of ' +
  'createWebhooksRouter() (and `npm i prom-client`).';

export const ROUTER_STOPPED =
  'This webhooks router was stopped and its connections closed: create a new one with ' +
  'createWebhooksRouter() to receive and dispatch again.';

export const NO_HANDLER_LISTENS = (endpoint: string, kind: string) =>
  `No handler listens to endpoint "${endpoint}" (${kind}): its deliveries are acknowledged and ` +
  "stored as ignored, and nothing runs. Add a handler for a normalized type ({ on: 'payment.succeeded', " +
  `name, handle } in \`handlers\`, or router.register() before router.start()) or for '${kind}:<native type>', ` +
  "check the handlers' `endpoint` option, or remove the endpoint.";

export const MOUNT_PATH_UNKNOWN =
  "Routes below start at <mount>, the path the app mounts this router on (app.use('/webhooks', " +
  'router) makes <mount> /webhooks): the router is not told it';

export const NOT_STARTED =
  'the router was created with autoStart: false, and nothing runs in the background (worker, ' +
  'schedules) until router.start()';
