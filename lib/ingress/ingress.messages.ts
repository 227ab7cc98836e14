import type { SourceRule } from '../telemetry/webhook-telemetry';

/** Texts of the request path: reading a raw body (each one names the fix), the journal's reasons. */

export const RAW_BODY_MISSING = (contentType: string | undefined) =>
  `The raw request body (content type ${JSON.stringify(contentType ?? 'none')}) is not available, ` +
  'so the webhook signature cannot be checked. Create the app with ' +
  '`NestFactory.create(AppModule, { rawBody: true })` (Express or Fastify), or in a test with ' +
  '`moduleRef.createNestApplication({ rawBody: true })` after `Test.createTestingModule(...)`, ' +
  'and keep the JSON and urlencoded body parsers enabled; Nest keeps the raw bytes of JSON and ' +
  'urlencoded bodies only, so configure the provider to send one of those.';

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

/**
 * The journal's reason for a source outside an endpoint's allowlist: the address, the list it
 * was checked against, and how the address was read. Never in the answer, which stays terse.
 */
export const SOURCE_NOT_ALLOWED = (
  endpoint: string,
  sourceIp: string | undefined,
  rule: SourceRule,
) =>
  `source ${sourceIp ?? '(unknown)'} is not in ${rule.allowed} of endpoint "${endpoint}"; ` +
  (rule.trustProxy
    ? "the address is the client's as the platform read it through its proxy handling (trustProxy on)"
    : "the address is the socket's peer (trustProxy off)") +
  (rule.forwardedFor !== undefined && !rule.trustProxy
    ? `, and the request came through a proxy (X-Forwarded-For: ${rule.forwardedFor}): if that ` +
      "proxy is yours, turn on the module's trustProxy (and the platform's trust-proxy setting)"
    : '');

/** Why a delivery to a tenant endpoint names no tenant (404). */
export const NO_TENANT_IN_URL = 'deliveries go to …/{endpoint}/{tenant}; the URL names no tenant';
export const NOT_A_TENANT_NAME =
  'the tenant in the URL is not a tenant name (letters, digits, "-" and "_", at most 64)';
export const UNKNOWN_TENANT = 'no such tenant';
export const TENANT_AT_PLAIN_ENDPOINT =
  'it takes deliveries at …/{endpoint}, without a tenant (it is no tenantEndpoint())';
