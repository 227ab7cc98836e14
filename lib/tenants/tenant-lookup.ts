/** The request a tenant is resolved for, as far as it is known before its body is read. */
export interface TenantRequest {
  /** The HTTP method. */
  readonly method: string;
  /** Header values by lower-cased name. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The sender's address, as the source check reads it. */
  readonly sourceIp: string | undefined;
}

/** What `resolveTenant` is asked. */
export interface TenantLookup {
  /** The endpoint's name. */
  readonly endpoint: string;
  /** The tenant's name from the URL: letters, digits, `-` and `_`, at most 64 characters. */
  readonly tenant: string;
  /**
   * The delivery's request; undefined when a stored event of the tenant is dispatched and its
   * provider (status client, `normalize()`) is needed again.
   */
  readonly request?: TenantRequest;
}

/** How long and how many resolved tenants are kept. */
export interface TenantCacheOptions {
  /**
   * How long a resolved tenant's settings are used before `resolveTenant` is asked again, in
   * ms: a rotated secret takes effect within it. Between 0 (ask at every delivery) and 86400000.
   * @default 60000 (1 minute)
   */
  ttlMs?: number;
  /**
   * How long a tenant `resolveTenant` did not know (null) is answered 404 without asking it
   * again, in ms: a merchant added to the database gets deliveries within it. Between 0 and
   * `ttlMs`.
   * @default 5000 (5 s), or `ttlMs` when that is shorter
   */
  unknownTtlMs?: number;
  /**
   * Most known tenants kept, and most unknown ones, each least recently used first out: made-up
   * names never push out a known tenant. Also the most resolutions running at once: past it a
   * delivery is answered 503 (the provider retries). Between 1 and 1000000.
   * @default 1000
   */
  maxTenants?: number;
}
