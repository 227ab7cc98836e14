import { createSourceAllowlist, SourceAllowlist } from '../core/source-allowlist';
import { WebhookConfigurationError } from '../core/webhook-errors';
import type { ProviderEventLog } from './event-log.interface';
import { PaymentStatusClient } from './payment-status-client.interface';
import {
  BaseEndpointOptions,
  WebhookRecoverySchedule,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from './webhook-provider.interface';

const ENDPOINT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_BODY_TIMEOUT_MS = 10_000;
/** Bounds of `bodyTimeoutMs`: less cuts ordinary bodies on a slow link, more is no bound. */
const BODY_TIMEOUT_RANGE_MS = [100, 120_000] as const;

/** What a provider factory adds to the shared endpoint record. */
export interface EndpointExtras {
  /** The provider's status API client, when the endpoint options carry API credentials. */
  statusClient?: PaymentStatusClient;
  /** The provider's event log, when the provider keeps one and the options carry its credentials. */
  eventLog?: ProviderEventLog;
  /**
   * Whether `verifyWithProvider` is on when the options leave it unset.
   * @default false
   */
  verifyWithProviderByDefault?: boolean;
  /**
   * The sources the endpoint takes when its options set no `allowedIps` (YooKassa's published
   * ranges), with the name the journal gives them when it refuses a source.
   * @default every address
   */
  defaultSources?: { readonly ranges: readonly string[]; readonly name: string };
  /** The endpoint of snapshot events an endpoint of event notifications is paired with. */
  snapshotEndpoint?: string;
}

/**
 * A frozen HTTP 200 answer with a plain-text body: the success answer of every built-in provider.
 * @param body the exact body the provider expects; empty when it reads none.
 * @example readonly acknowledgement = plainTextAcknowledgement('OK');
 */
export function plainTextAcknowledgement(body = ''): WebhookAcknowledgement {
  return Object.freeze({ status: 200, body, contentType: 'text/plain; charset=utf-8' });
}

/**
 * Builds the endpoint record shared by every provider factory, checking the options
 * every kind has. Provider-specific checks happen in the provider's own factory.
 */
export function defineEndpoint(
  options: BaseEndpointOptions,
  provider: WebhookProvider,
  extras: EndpointExtras = {},
): WebhookEndpoint {
  const name: unknown = options?.name;
  if (typeof name !== 'string' || !ENDPOINT_NAME.test(name)) {
    throw new WebhookConfigurationError(
      `Webhook endpoint name ${JSON.stringify(name)} (${provider.kind}) is not usable in a URL: ` +
        'give each endpoint a `name` of letters, digits, "-" or "_" (at most 64 characters), e.g. name: "stripe".',
    );
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new WebhookConfigurationError(
      `Webhook endpoint "${name}": maxBodyBytes must be a positive integer number of bytes (got ${String(maxBodyBytes)}).`,
    );
  }
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const [shortest, longest] = BODY_TIMEOUT_RANGE_MS;
  if (!Number.isSafeInteger(bodyTimeoutMs) || bodyTimeoutMs < shortest || bodyTimeoutMs > longest) {
    throw new WebhookConfigurationError(
      `Webhook endpoint "${name}": bodyTimeoutMs must be a whole number of milliseconds between ` +
        `${shortest} and ${longest} (got ${String(bodyTimeoutMs)}); leave it unset for 10000 (10 s).`,
    );
  }
  if (options.allowedIps !== undefined && !Array.isArray(options.allowedIps)) {
    throw new WebhookConfigurationError(
      `Webhook endpoint "${name}": allowedIps must be a list of addresses or CIDR ranges.`,
    );
  }
  const verifyWithProvider =
    options.verifyWithProvider ?? extras.verifyWithProviderByDefault ?? false;
  if (typeof verifyWithProvider !== 'boolean') {
    throw new WebhookConfigurationError(
      `Webhook endpoint "${name}": verifyWithProvider must be true or false.`,
    );
  }
  if (verifyWithProvider && !extras.statusClient) {
    throw new WebhookConfigurationError(
      `Webhook endpoint "${name}" (${provider.kind}) has verifyWithProvider on but no API credentials: ` +
        `give the endpoint the API options its provider documents (docs/providers/${provider.kind}.md), ` +
        'or set verifyWithProvider: false.',
    );
  }
  const orderPerPayment = options.orderPerPayment ?? false;
  if (typeof orderPerPayment !== 'boolean') {
    throw new WebhookConfigurationError(
      `Webhook endpoint "${name}": orderPerPayment must be true or false.`,
    );
  }
  const recover = recoverScheduleOf(name, provider.kind, options.recover, extras.eventLog);
  return {
    name,
    provider,
    orderPerPayment,
    ...(recover ? { recover } : {}),
    maxBodyBytes,
    bodyTimeoutMs,
    allowedSources: allowedSourcesOf(name, options.allowedIps, extras.defaultSources),
    acknowledgement: { ...provider.acknowledgement, ...options.acknowledgement },
    statusClient: extras.statusClient,
    ...(extras.eventLog ? { eventLog: extras.eventLog } : {}),
    ...(extras.snapshotEndpoint === undefined ? {} : { snapshotEndpoint: extras.snapshotEndpoint }),
    verifyWithProvider,
  };
}

/** The allowlist of `allowedIps`, else of the provider's default ranges, else none. */
function allowedSourcesOf(
  name: string,
  allowedIps: readonly string[] | undefined,
  defaults: EndpointExtras['defaultSources'],
): SourceAllowlist | undefined {
  if (allowedIps !== undefined) {
    return createSourceAllowlist(name, allowedIps);
  }
  return defaults && createSourceAllowlist(name, defaults.ranges, defaults.name);
}

/**
 * Normalizes a secret option (one secret or a rotation list) to a non-empty list of
 * non-blank strings, or fails with a message naming the option to fix.
 */
export function requireSecrets(
  endpointName: string,
  kind: string,
  optionName: string,
  value: string | readonly string[] | undefined,
): string[] {
  const list = (Array.isArray(value) ? value : value === undefined ? [] : [value]) as unknown[];
  const secrets = list.filter((s): s is string => typeof s === 'string' && s.trim().length > 0);
  if (secrets.length === 0 || secrets.length !== list.length) {
    throw new WebhookConfigurationError(
      `Webhook endpoint "${endpointName}" (${kind}) has no usable ${optionName}: ` +
        `set ${optionName} to the signing secret from the provider's dashboard ` +
        '(a list of secrets is accepted while rotating; every entry must be a non-empty string).',
    );
  }
  return secrets;
}

/**
 * Fails when a secret holds whitespace, the usual trace of a copy-and-paste slip.
 * @param howToCopy where to copy the secret from, as a sentence starting with "Copy".
 * @throws WebhookConfigurationError naming the option (and the entry of a list), never the secret.
 */
export function assertNoWhitespaceInSecrets(
  endpointName: unknown,
  kind: string,
  optionName: string,
  secrets: readonly string[],
  howToCopy: string,
): void {
  secrets.forEach((secret, index) => {
    if (/\s/.test(secret)) {
      throw new WebhookConfigurationError(
        `Webhook endpoint ${JSON.stringify(endpointName)} (${kind}): ` +
          `${secrets.length > 1 ? `${optionName}[${index}]` : optionName} contains whitespace. ` +
          `${howToCopy} without surrounding spaces or line breaks.`,
      );
    }
  });
}

/**
 * Fails when the endpoint's `acknowledgement.status` is set to anything but 200, for providers
 * that count every other status as a failed delivery and send it again.
 * @param message the error text for the status given.
 * @throws WebhookConfigurationError
 */
export function assertAcknowledgedWith200(
  options: BaseEndpointOptions,
  message: (status: number) => string,
): void {
  const status = options?.acknowledgement?.status;
  if (status !== undefined && status !== 200) {
    throw new WebhookConfigurationError(message(status));
  }
}

const MINUTE_MS = 60_000;
const DEFAULT_RECOVER_EVERY_MS = 3_600_000;
const DEFAULT_RECOVER_LOOK_BACK_MS = 3 * 86_400_000;

/**
 * An endpoint's `recover`, checked against its event log (or, on a tenant endpoint, how far its
 * tenants' logs reach) and with its defaults.
 */
export function recoverScheduleOf(
  name: string,
  kind: string,
  recover: WebhookRecoverySchedule | undefined,
  eventLog: Pick<ProviderEventLog, 'retentionMs' | 'source'> | undefined,
): Required<WebhookRecoverySchedule> | undefined {
  if (recover === undefined) {
    return undefined;
  }
  const fail = (problem: string) =>
    new WebhookConfigurationError(`Webhook endpoint "${name}" (${kind}): recover ${problem}.`);
  if (typeof recover !== 'object' || recover === null) {
    throw fail('must be an object such as { everyMs: 3600000 }');
  }
  if (!eventLog) {
    throw fail(
      `needs an event log to read: give the endpoint its API credentials (the api option), on a ` +
        `provider that keeps one (docs/providers/${kind}.md, "Recovering missed events")`,
    );
  }
  const everyMs = recover.everyMs ?? DEFAULT_RECOVER_EVERY_MS;
  if (!Number.isSafeInteger(everyMs) || everyMs < MINUTE_MS) {
    throw fail(
      `.everyMs must be a whole number of milliseconds from ${MINUTE_MS} (got ${String(everyMs)})`,
    );
  }
  const lookBackMs =
    recover.lookBackMs ?? Math.min(DEFAULT_RECOVER_LOOK_BACK_MS, eventLog.retentionMs);
  if (
    !Number.isSafeInteger(lookBackMs) ||
    lookBackMs < MINUTE_MS ||
    lookBackMs > eventLog.retentionMs
  ) {
    throw fail(
      `.lookBackMs must be a whole number of milliseconds from ${MINUTE_MS} to the ${eventLog.retentionMs} ` +
        `${eventLog.source} keeps (got ${String(lookBackMs)})`,
    );
  }
  return { everyMs, lookBackMs };
}
