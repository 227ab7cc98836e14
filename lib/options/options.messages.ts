/** Error texts of the module options. Each one says what is wrong and how to fix it. */

export const NO_ENDPOINTS =
  'WebhooksModule needs at least one endpoint: pass `endpoints: [stripeEndpoint({ name, secret }), ...]`.';

export const DUPLICATE_ENDPOINT = (name: string) =>
  `Two webhook endpoints are named "${name}": each endpoint needs a unique \`name\` (it is the last URL segment).`;

export const NOT_AN_ENDPOINT = (index: number) =>
  `endpoints[${index}] is not an endpoint configuration: build each one with a factory such as ` +
  'stripeEndpoint({ name, secret }), standardWebhooksEndpoint(...), qvardEndpoint(...) or hmacEndpoint(...).';

export const INVALID_OPTION = (option: string, rule: string, value: unknown) =>
  `WebhooksModule option \`${option}\` must be ${rule} (got ${JSON.stringify(value)}).`;

export const UNKNOWN_SILENCE_ENDPOINT = (name: string, configured: readonly string[]) =>
  `WebhooksModule option \`observability.expectDeliveryWithinMs\` names endpoint "${name}", which is ` +
  `not configured (endpoints: ${configured.join(', ')}). Use the endpoint's \`name\`.`;

/** Where the module's options are given, as deprecation warnings name it. */
export const MODULE_OPTIONS = 'WebhooksModule.forRoot() / createWebhooksRouter()';

export const SNAPSHOT_ENDPOINT_UNUSABLE = (endpoint: string, named: string, why: string) =>
  `Webhook endpoint "${endpoint}" has snapshotEndpoint: "${named}", which cannot be paired: ${why}. ` +
  'Set snapshotEndpoint only on the Stripe endpoint of event notifications (thin events), to the ' +
  '`name` of the Stripe endpoint that receives the snapshot events of the same account, or leave ' +
  'it unset.';
