import { WebhookConfigurationError } from '../core/webhook-errors';
import type { WebhookEndpoint } from '../providers/webhook-provider.interface';
import type { TenantCacheOptions, TenantLookup, TenantRequest } from './tenant-lookup';
import {
  TENANT_NUMBER_OPTION,
  TENANT_RESOLUTIONS_FULL,
  TENANT_RESOLVER_FAILED,
  TENANT_RESOLVER_TIMED_OUT,
  TENANT_SETTINGS_UNUSABLE,
} from './tenants.messages';

/** A tenant name: what fits a URL segment and a column, and nothing a path could be made of. */
const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const DEFAULT_TTL_MS = 60_000;
const DEFAULT_UNKNOWN_TTL_MS = 5_000;
const DEFAULT_MAX_TENANTS = 1_000;
const DEFAULT_RESOLVE_TIMEOUT_MS = 3_000;

/** Whether `name` can be a tenant's name. */
export function isTenantName(name: string): boolean {
  return TENANT_NAME.test(name);
}

/**
 * Why a tenant's endpoint cannot be had now: the resolver threw, timed out, returned settings
 * the provider refuses, or too many resolutions are running. A delivery is answered 503, so
 * the provider retries; a dispatched event is retried.
 */
export class TenantUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TenantUnavailableError';
  }
}

/**
 * The tenants behind a tenant endpoint (`TenantEndpoint.tenants`): each resolved to its
 * endpoint on first use and kept for a while.
 */
export interface TenantEndpoints {
  /** How many tenants are kept now, known and unknown. */
  readonly size: number;
  /**
   * The endpoint of `tenant`, or null when it is no tenant.
   * @throws TenantUnavailableError when it cannot be told now.
   */
  endpointOf(tenant: string, request?: TenantRequest): Promise<WebhookEndpoint | null>;
  /** Forgets `tenant` (or every tenant), so the next delivery asks the resolver again. */
  forget(tenant?: string): void;
}

/** What a directory is made of. */
export interface TenantDirectoryOptions {
  /** The endpoint's name. */
  readonly endpoint: string;
  /** The provider kind every tenant's endpoint must have. */
  readonly kind: string;
  /** Builds a tenant's endpoint from what the resolver returned. */
  build(settings: object): WebhookEndpoint;
  /** The app's resolver. */
  resolve(lookup: TenantLookup): unknown;
  readonly cache?: TenantCacheOptions;
  readonly resolveTimeoutMs?: number;
}

/** A tenant as resolved: its endpoint, or null when the resolver knows no such tenant. */
interface CachedTenant {
  readonly endpoint: WebhookEndpoint | null;
  readonly expiresAt: number;
}

/**
 * The tenants of one endpoint: resolves each with the app's function, builds its endpoint with
 * the factory, and keeps both for a while. Bounded: at most `maxTenants` known tenants and as
 * many unknown ones, each least recently used first out, and at most `maxTenants` resolutions
 * at once; one
 * resolution per tenant at a time, whatever the number of deliveries waiting for it.
 */
export class TenantDirectory implements TenantEndpoints {
  // NOTE: known and unknown tenants are kept apart, so a flood of made-up names only pushes
  // out other made-up names, never a merchant whose deliveries are coming.
  private readonly known = new Map<string, CachedTenant>();
  private readonly unknown = new Map<string, CachedTenant>();
  private readonly resolving = new Map<string, Promise<WebhookEndpoint | null>>();
  private readonly ttlMs: number;
  private readonly unknownTtlMs: number;
  private readonly maxTenants: number;
  private readonly timeoutMs: number;

  /** @throws WebhookConfigurationError when a bound is not a usable number. */
  constructor(
    private readonly options: TenantDirectoryOptions,
    private readonly now: () => number = Date.now,
  ) {
    const { endpoint, cache = {} } = options;
    this.ttlMs = bounded(endpoint, 'tenantCache.ttlMs', cache.ttlMs, DEFAULT_TTL_MS, 0, 86_400_000);
    this.unknownTtlMs = bounded(
      endpoint,
      'tenantCache.unknownTtlMs',
      cache.unknownTtlMs,
      Math.min(DEFAULT_UNKNOWN_TTL_MS, this.ttlMs),
      0,
      this.ttlMs,
    );
    this.maxTenants = bounded(
      endpoint,
      'tenantCache.maxTenants',
      cache.maxTenants,
      DEFAULT_MAX_TENANTS,
      1,
      1_000_000,
    );
    this.timeoutMs = bounded(
      endpoint,
      'resolveTimeoutMs',
      options.resolveTimeoutMs,
      DEFAULT_RESOLVE_TIMEOUT_MS,
      10,
      60_000,
    );
  }

  /** How many tenants are kept now, known and unknown. */
  get size(): number {
    return this.known.size + this.unknown.size;
  }

  /**
   * The endpoint of `tenant`, or null when it is no tenant: an impossible name (never asked
   * about) or one the resolver does not know.
   * @throws TenantUnavailableError when it cannot be told now.
   */
  async endpointOf(tenant: string, request?: TenantRequest): Promise<WebhookEndpoint | null> {
    if (!isTenantName(tenant)) {
      return null;
    }
    for (const kept of [this.known, this.unknown]) {
      const hit = kept.get(tenant);
      if (hit !== undefined) {
        kept.delete(tenant);
        if (hit.expiresAt > this.now()) {
          kept.set(tenant, hit);
          return hit.endpoint;
        }
      }
    }
    let pending = this.resolving.get(tenant);
    if (pending === undefined) {
      if (this.resolving.size >= this.maxTenants) {
        throw new TenantUnavailableError(
          TENANT_RESOLUTIONS_FULL(this.options.endpoint, this.maxTenants),
        );
      }
      pending = this.resolveOnce(tenant, request).finally(() => this.resolving.delete(tenant));
      this.resolving.set(tenant, pending);
    }
    return pending;
  }

  /** Forgets `tenant` (or every tenant), so the next delivery asks the resolver again. */
  forget(tenant?: string): void {
    for (const kept of [this.known, this.unknown]) {
      if (tenant === undefined) {
        kept.clear();
      } else {
        kept.delete(tenant);
      }
    }
  }

  private async resolveOnce(
    tenant: string,
    request: TenantRequest | undefined,
  ): Promise<WebhookEndpoint | null> {
    const { endpoint: name } = this.options;
    const settings = await this.withinTimeout(tenant, request);
    let endpoint: WebhookEndpoint | null = null;
    if (settings !== null && settings !== undefined) {
      if (typeof settings !== 'object') {
        throw new TenantUnavailableError(
          TENANT_SETTINGS_UNUSABLE(name, new Error('it is not an object of options')),
        );
      }
      try {
        endpoint = this.options.build(settings);
      } catch (error) {
        if (error instanceof WebhookConfigurationError) {
          throw new TenantUnavailableError(TENANT_SETTINGS_UNUSABLE(name, error));
        }
        throw error;
      }
      if (endpoint.provider.kind !== this.options.kind) {
        const changed = new Error(
          `they make a ${endpoint.provider.kind} endpoint of a ${this.options.kind} one`,
        );
        throw new TenantUnavailableError(TENANT_SETTINGS_UNUSABLE(name, changed));
      }
    }
    const ttl = endpoint === null ? this.unknownTtlMs : this.ttlMs;
    if (ttl > 0) {
      this.keep(tenant, { endpoint, expiresAt: this.now() + ttl });
    }
    return endpoint;
  }

  private async withinTimeout(
    tenant: string,
    request: TenantRequest | undefined,
  ): Promise<unknown> {
    const { endpoint, resolve } = this.options;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new TenantUnavailableError(TENANT_RESOLVER_TIMED_OUT(endpoint, this.timeoutMs))),
        this.timeoutMs,
      );
      timer.unref?.();
    });
    try {
      return await Promise.race([
        Promise.resolve()
          .then(() => resolve({ endpoint, tenant, request }))
          .catch((error: unknown) => {
            throw new TenantUnavailableError(TENANT_RESOLVER_FAILED(endpoint, error));
          }),
        timedOut,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private keep(tenant: string, entry: CachedTenant): void {
    this.forget(tenant);
    const kept = entry.endpoint === null ? this.unknown : this.known;
    while (kept.size >= this.maxTenants) {
      kept.delete(kept.keys().next().value!);
    }
    kept.set(tenant, entry);
  }
}

function bounded(
  endpoint: string,
  option: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < min || chosen > max) {
    throw new WebhookConfigurationError(TENANT_NUMBER_OPTION(endpoint, option, min, max));
  }
  return chosen;
}
