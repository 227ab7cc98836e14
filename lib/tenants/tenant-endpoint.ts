import { WebhookConfigurationError } from '../core/webhook-errors';
import { defineEndpoint, recoverScheduleOf } from '../providers/define-endpoint';
import { eventLogReachOf } from '../providers/event-log-reach';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookDeliveryMethod,
  WebhookEndpoint,
  WebhookProvider,
} from '../providers/webhook-provider.interface';
import { TenantDirectory, TenantEndpoints, TenantUnavailableError } from './tenant-directory';
import type { TenantCacheOptions, TenantLookup } from './tenant-lookup';

export type { TenantCacheOptions, TenantLookup, TenantRequest } from './tenant-lookup';
import {
  TENANT_FACTORY_WITHOUT_KIND,
  TENANT_GONE,
  TENANT_RESOLVER_MISSING,
} from './tenants.messages';

/**
 * An endpoint factory (`stripeEndpoint`, `tbankEndpoint`, …): builds an endpoint from its
 * options and names the provider kind it builds for, so a tenant endpoint knows its kind
 * before any tenant is resolved.
 */
export interface EndpointFactory<O extends BaseEndpointOptions> {
  (options: O): WebhookEndpoint;
  /** The provider kind of the endpoints it builds. */
  readonly kind: string;
  /**
   * The methods its provider delivers with, when not only POST (Sber's GET callbacks).
   * @default ['POST']
   */
  readonly methods?: readonly WebhookDeliveryMethod[];
}

/**
 * What a tenant brings of its own: the provider options of the factory (its secret, or a list
 * of secrets while rotating, its API credentials, provider settings). The endpoint's own
 * options (`allowedIps`, `maxBodyBytes`, `verifyWithProvider`, …) are the same for every tenant.
 */
export type TenantSettings<O extends BaseEndpointOptions> = Omit<O, keyof BaseEndpointOptions>;

/** How a tenant endpoint finds each tenant's settings: what `tenantEndpoint()` adds to an endpoint's options. */
export interface TenantResolution<O extends BaseEndpointOptions> {
  /**
   * The tenant's settings for a tenant name, from your database or secret store: what the
   * factory takes besides the endpoint's own options (for Stripe `{ secret, api }`), or
   * null (or undefined) when there is no such tenant: the delivery is answered 404 and
   * nothing is stored. Throwing, or not answering within `resolveTimeoutMs`, answers 503, so
   * the provider retries. Settings given to `tenantEndpoint()` itself are every tenant's
   * defaults; what this returns wins.
   * @example
   * resolveTenant: async ({ tenant }) => {
   *   const merchant = await merchants.findOneBy({ slug: tenant });
   *   return merchant && { secret: merchant.stripeWebhookSecrets };
   * }
   */
  resolveTenant: (
    lookup: TenantLookup,
  ) => TenantSettings<O> | null | undefined | Promise<TenantSettings<O> | null | undefined>;
  /**
   * How long and how many resolved tenants are kept.
   * @default { ttlMs: 60000, unknownTtlMs: 5000, maxTenants: 1000 }
   * @advanced
   */
  tenantCache?: TenantCacheOptions;
  /**
   * Longest `resolveTenant` may take, in ms, before the delivery is answered 503. Between 10
   * and 60000.
   * @default 3000
   * @advanced
   */
  resolveTimeoutMs?: number;
}

/**
 * Options of `tenantEndpoint()`: the endpoint's own options (every tenant's), provider options
 * every tenant takes unless its settings say otherwise, and how tenants are resolved.
 */
export type TenantEndpointOptions<O extends BaseEndpointOptions> = BaseEndpointOptions &
  Partial<TenantSettings<O>> &
  TenantResolution<O>;

/** A tenant endpoint's record: the endpoint's own options, and the tenants behind it. */
export interface TenantEndpoint extends WebhookEndpoint {
  /** Resolves, caches and builds the endpoint of each tenant. */
  readonly tenants: TenantEndpoints;
}

/** Whether `endpoint` takes deliveries per tenant (`/{endpoint}/{tenant}`). */
export function isTenantEndpoint(
  endpoint: WebhookEndpoint | undefined,
): endpoint is TenantEndpoint {
  return (endpoint as Partial<TenantEndpoint> | undefined)?.tenants instanceof TenantDirectory;
}

/**
 * The endpoint a stored event is dispatched with: its configured endpoint, or its tenant's own
 * (status client, provider) at a tenant endpoint; undefined for an endpoint no longer configured.
 * @throws TenantUnavailableError when the tenant cannot be resolved now, or no longer resolves.
 */
export async function endpointOfEvent(
  endpoints: ReadonlyMap<string, WebhookEndpoint>,
  event: { readonly endpoint: string; readonly tenant: string },
): Promise<WebhookEndpoint | undefined> {
  const endpoint = endpoints.get(event.endpoint);
  if (!isTenantEndpoint(endpoint) || event.tenant === '') {
    return endpoint;
  }
  const own = await endpoint.tenants.endpointOf(event.tenant);
  if (own === null) {
    throw new TenantUnavailableError(TENANT_GONE(event.endpoint, event.tenant));
  }
  return own;
}

/**
 * The provider kind of a tenant endpoint before a tenant is resolved. Deliveries are verified
 * and read by each tenant's own provider: nothing reaches this one.
 */
class TenantKindProvider implements WebhookProvider {
  readonly acknowledgement: WebhookAcknowledgement;

  constructor(
    readonly kind: string,
    readonly methods: readonly WebhookDeliveryMethod[] | undefined,
    private readonly endpointName: string,
  ) {
    this.acknowledgement = { status: 200, body: '', contentType: 'text/plain; charset=utf-8' };
  }

  verify(request: InboundWebhook): never {
    return this.unresolved(request);
  }

  normalize(request: InboundWebhook): NormalizedNotification {
    return this.unresolved(request);
  }

  private unresolved(request: InboundWebhook): never {
    void request;
    throw new WebhookConfigurationError(
      `Endpoint "${this.endpointName}" takes deliveries per tenant: verify them with the ` +
        "tenant's endpoint (TenantDirectory.endpointOf), not with the endpoint itself.",
    );
  }
}

/**
 * An endpoint whose deliveries come to `…/{name}/{tenant}`, each tenant with its own secret
 * (and API credentials) that `resolveTenant` reads at request time, from the app's database
 * or secret store: a platform's merchants, without a restart to add one. The tenant is stored
 * with each event and is part of its dedup key; handlers see it as `event.tenant` and
 * `ctx.tenant`.
 * @param factory the endpoint factory of the provider (`stripeEndpoint`, `tbankEndpoint`, …).
 * @throws WebhookConfigurationError at startup when an option cannot work.
 * @example
 * tenantEndpoint(stripeEndpoint, {
 *   name: 'merchants',
 *   resolveTenant: async ({ tenant }) => {
 *     const merchant = await merchants.findOneBy({ slug: tenant });
 *     return merchant && { secret: merchant.stripeWebhookSecrets };
 *   },
 * })
 */
export function tenantEndpoint<O extends BaseEndpointOptions>(
  factory: EndpointFactory<O>,
  options: TenantEndpointOptions<O>,
): TenantEndpoint {
  const name = String(options?.name);
  if (typeof factory !== 'function' || typeof factory.kind !== 'string') {
    throw new WebhookConfigurationError(TENANT_FACTORY_WITHOUT_KIND(name));
  }
  if (typeof options.resolveTenant !== 'function') {
    throw new WebhookConfigurationError(TENANT_RESOLVER_MISSING(name));
  }
  const { resolveTenant, tenantCache, resolveTimeoutMs, ...defaults } = options;
  // NOTE: hmacEndpoint() takes its kind as an option; every other factory has one kind.
  const given = (defaults as { kind?: unknown }).kind;
  const kind = typeof given === 'string' ? given : factory.kind;
  const provider = new TenantKindProvider(kind, factory.methods, name);
  // NOTE: the endpoint's own options are checked once here; each tenant's endpoint is built
  // with them unchanged.
  const paired = (defaults as { snapshotEndpoint?: unknown }).snapshotEndpoint;
  // NOTE: `recover` is the tenant endpoint's schedule, checked against how far its kind's event
  // log reaches (each tenant reads its own, with its own credentials); a tenant's own endpoint
  // is built without it, so a tenant without API credentials still takes deliveries.
  const { recover: schedule, ...shared } = defaults;
  const endpoint = defineEndpoint({ ...shared, verifyWithProvider: false }, provider, {
    ...(typeof paired === 'string' ? { snapshotEndpoint: paired } : {}),
  });
  const recover = recoverScheduleOf(endpoint.name, kind, schedule, eventLogReachOf(kind));
  const tenants = new TenantDirectory({
    endpoint: endpoint.name,
    kind,
    build: (settings) =>
      factory({ ...shared, ...settings, ...endpointOptionsOf(shared) } as unknown as O),
    resolve: resolveTenant as TenantDirectoryResolver,
    cache: tenantCache,
    resolveTimeoutMs,
  });
  return {
    ...endpoint,
    ...(recover ? { recover } : {}),
    verifyWithProvider: options.verifyWithProvider ?? false,
    tenants,
  };
}

type TenantDirectoryResolver = ConstructorParameters<typeof TenantDirectory>[0]['resolve'];

/** The options every tenant shares as they are, whatever a resolver returns. */
function endpointOptionsOf(options: BaseEndpointOptions): BaseEndpointOptions {
  const own: (keyof BaseEndpointOptions)[] = [
    'name',
    'acknowledgement',
    'maxBodyBytes',
    'bodyTimeoutMs',
    'allowedIps',
    'verifyWithProvider',
    'orderPerPayment',
  ];
  return Object.fromEntries(
    own.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]),
  ) as unknown as BaseEndpointOptions;
}
