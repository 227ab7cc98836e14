/** Error texts. Each one says what went wrong and how to fix it. */

export const MISSING_ENTITIES =
  'The webhook entities are not registered in the TypeORM data source: set `autoLoadEntities: true` ' +
  'in TypeOrmModule.forRoot(), or add `...webhookEntities` (from nestjs-payment-webhooks) to its `entities`.';

export const MISSING_TABLES =
  'The webhook tables do not exist: add `...webhooksMigrations` (from nestjs-payment-webhooks) to the ' +
  "data source's `migrations` and set `migrationsRun: true`, or run them with the TypeORM CLI. " +
  'TypeORM `synchronize` does not create them: the migrations do.';

export const SCHEMA_DIFFERS = (
  problems: readonly string[],
  migrations = '`...webhooksMigrations` (from nestjs-payment-webhooks)',
) =>
  `The package's tables differ from what its migrations create: ${problems.join('; ')}. ` +
  'The package reads and locks them as the migrations made them, and TypeORM `synchronize` never ' +
  `changes them. Run ${migrations} on this database, or, ` +
  'where an earlier `synchronize` or a hand edit changed them, restore them: drop the tables named ' +
  "here, delete the package's rows from the migrations table, and run the migrations again.";

export const ASYNC_COMMIT =
  'PostgreSQL runs with synchronous_commit=off, so an acknowledged webhook could be lost on a crash. ' +
  "Turn it on for the webhook data source, e.g. `extra: { options: '-c synchronous_commit=on' }` in " +
  'TypeOrmModule.forRoot(), or ALTER ROLE/DATABASE ... SET synchronous_commit = on.';

export const RAW_BODY_MISSING = (contentType: string | undefined) =>
  `The raw request body (content type ${JSON.stringify(contentType ?? 'none')}) is not available, ` +
  'so the webhook signature cannot be checked. Create the app with ' +
  '`NestFactory.create(AppModule, { rawBody: true })` (Express or Fastify) and keep the JSON and ' +
  'urlencoded body parsers enabled; Nest keeps the raw bytes of JSON and urlencoded bodies only, ' +
  'so configure the provider to send one of those.';

export const RAW_BODY_PARSED_BY_APP = (contentType: string | undefined, platform: string) =>
  `The raw request body (content type ${JSON.stringify(contentType ?? 'none')}) was consumed by a ` +
  'body parser the app registers itself, ' +
  (platform === 'fastify'
    ? "most likely a content type parser added with `addContentTypeParser()` in place of Nest's, "
    : "most likely a global `app.use(express.json())` (or `bodyParser.json()`), which runs before Nest's own parser, ") +
  'so the bytes `rawBody: true` keeps never reach the module and the webhook signature cannot be ' +
  'checked. ' +
  (platform === 'fastify'
    ? 'Register that parser with `app.useBodyParser(contentType, options, parser)` instead, which keeps the raw bytes.'
    : "Remove it and give its options to Nest instead, e.g. `app.useBodyParser('json', { limit: '1mb' })`, which keeps the raw bytes.");

/** Appended to {@link RAW_BODY_MISSING} when the app's `rawBody` option cannot be read. */
export const RAW_BODY_OR_APP_PARSER =
  'If the app is created with it, a body parser the app registers itself (such as a global ' +
  "`app.use(express.json())`) consumed the body first: remove it and use `app.useBodyParser('json', options)`.";

export const NO_ENDPOINTS =
  'WebhooksModule needs at least one endpoint: pass `endpoints: [stripeEndpoint({ name, secret }), ...]`.';

export const DUPLICATE_ENDPOINT = (name: string) =>
  `Two webhook endpoints are named "${name}": each endpoint needs a unique \`name\` (it is the last URL segment).`;

export const NOT_AN_ENDPOINT = (index: number) =>
  `endpoints[${index}] is not an endpoint configuration: build each one with a factory such as ` +
  'stripeEndpoint({ name, secret }), standardWebhooksEndpoint(...), qvardEndpoint(...) or hmacEndpoint(...).';

export const SHAPING_OPTION_IN_FACTORY = (names: readonly string[]) =>
  `WebhooksModule option${names.length === 1 ? '' : 's'} ${names.map((name) => `\`${name}\``).join(', ')} ` +
  `came from the forRootAsync() factory, where ${names.length === 1 ? 'it has' : 'they have'} no effect: ` +
  'the options that shape the module (path, controllerDecorators, admin, isGlobal, dataSource) are ' +
  'read before any factory runs. Pass ' +
  `${names.length === 1 ? 'it' : 'them'} next to useFactory, as a builder extra: ` +
  `WebhooksModule.forRootAsync({ ${names[0]}: …, imports, inject, useFactory }).`;

export const INVALID_OPTION = (option: string, rule: string, value: unknown) =>
  `WebhooksModule option \`${option}\` must be ${rule} (got ${JSON.stringify(value)}).`;

export const AMBIGUOUS_HANDLER = (key: string) =>
  `Two @OnPaymentEvent handlers share the key "${key}" (class and method name): ` +
  'rename one of the classes or methods, or give one a unique `key` in its options.';

export const AMBIGUOUS_FUNCTION_HANDLER = (name: string) =>
  `Two handlers are named "${name}": the name is the handler's ledger key, so give each ` +
  'handler a name of its own.';

export const UNKNOWN_FUNCTION_HANDLER_ENDPOINT = (
  name: string,
  endpoint: string,
  configured: readonly string[],
) =>
  `Handler "${name}" names endpoint "${endpoint}", which is not configured ` +
  `(the endpoints are ${configured.map((n) => JSON.stringify(n)).join(', ') || 'none'}): ` +
  'fix its `endpoint` or add that endpoint to `endpoints`.';

export const NO_LISTENERS = (endpoint: string, kind: string) =>
  `No @OnPaymentEvent handler listens to endpoint "${endpoint}" (${kind}): its deliveries are ` +
  'acknowledged and stored as ignored, and nothing runs. Add a handler for a normalized type ' +
  `(@OnPaymentEvent('payment.succeeded')) or for '${kind}:<native type>', check the handlers' ` +
  '`endpoint` option, or remove the endpoint.';

export const UNKNOWN_HANDLER_ENDPOINT = (key: string, endpoint: string) =>
  `@OnPaymentEvent handler "${key}" names endpoint "${endpoint}", which is not configured: ` +
  'fix the `endpoint` option or add that endpoint to WebhooksModule.forRoot({ endpoints }).';

export const UNKNOWN_PAYMENT_WEBHOOK_ENDPOINT = (
  route: string,
  endpoint: string,
  configured: readonly string[],
) =>
  `@PaymentWebhook(${JSON.stringify(endpoint)}) on ${route} names an endpoint that is not configured ` +
  `(configured: ${configured.map((name) => JSON.stringify(name)).join(', ')}): fix the name or add ` +
  'that endpoint to WebhooksModule.forRoot({ endpoints }).';

export const PAYMENT_WEBHOOK_METHOD = (
  route: string,
  method: string,
  endpoint: string,
  methods: readonly string[],
) =>
  `@PaymentWebhook(${JSON.stringify(endpoint)}) on ${route} is on a ${method} route, and endpoint ` +
  `${JSON.stringify(endpoint)} takes deliveries by ${methods.join(' and ')} only: declare the route ` +
  `with ${methods.map((name) => `@${name[0]}${name.slice(1).toLowerCase()}()`).join(' or ')}.`;

export const PAYMENT_WEBHOOK_NOT_A_ROUTE = (route: string) =>
  `@PaymentWebhook() on ${route} is not on a route: add @Post(path) (or @Get(path) for an endpoint ` +
  'that takes GET callbacks) to the method.';

export const PAYMENT_WEBHOOK_WITHOUT_MODULE =
  "A controller uses @PaymentWebhook(), and its module does not see WebhooksModule's providers: " +
  'register the module once with `WebhooksModule.forRoot({ isGlobal: true, ... })` (or ' +
  '`forRootAsync({ isGlobal: true, ... })`), or import it into that module through a module that ' +
  'imports WebhooksModule and lists it in its `exports`.';
