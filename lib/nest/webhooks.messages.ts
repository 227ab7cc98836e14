/** Error texts. Each one says what went wrong and how to fix it. */

export const NO_LISTENERS = (endpoint: string, kind: string) =>
  `No @OnPaymentEvent handler listens to endpoint "${endpoint}" (${kind}): its deliveries are ` +
  'acknowledged and stored as ignored, and nothing runs. Add a handler for a normalized type ' +
  `(@OnPaymentEvent('payment.succeeded')) or for '${kind}:<native type>', check the handlers' ` +
  '`endpoint` option, or remove the endpoint.';

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

export const SHAPING_OPTION_IN_FACTORY = (names: readonly string[]) =>
  `WebhooksModule option${names.length === 1 ? '' : 's'} ${names.map((name) => `\`${name}\``).join(', ')} ` +
  `came from the forRootAsync() factory, where ${names.length === 1 ? 'it has' : 'they have'} no effect: ` +
  'the options that shape the module (path, controllerDecorators, admin, isGlobal, dataSource) are ' +
  'read before any factory runs. Pass ' +
  `${names.length === 1 ? 'it' : 'them'} next to useFactory, as a builder extra: ` +
  `WebhooksModule.forRootAsync({ ${names[0]}: …, imports, inject, useFactory }).`;

export const PAYMENT_WEBHOOK_WITHOUT_TENANT = (route: string, endpoint: string) =>
  `@PaymentWebhook(${JSON.stringify(endpoint)}) on ${route}: endpoint "${endpoint}" takes ` +
  'deliveries per tenant, and its route has no :tenant parameter to name one. Put it in the ' +
  "path, e.g. @Post('stripe/:tenant').";
