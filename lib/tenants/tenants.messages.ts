/** The texts of tenant endpoints' errors: each names the endpoint and what to change. */

export const TENANT_FACTORY_WITHOUT_KIND = (name: string): string =>
  `tenantEndpoint({ name: "${name}" }) needs an endpoint factory of the package (stripeEndpoint, ` +
  'tbankEndpoint, …) or a function of your own that carries its provider kind as `.kind`.';

export const TENANT_RESOLVER_MISSING = (name: string): string =>
  `tenantEndpoint({ name: "${name}" }) needs resolveTenant: a function that returns the tenant's ` +
  'secrets (and API credentials) for a tenant name, or null for a tenant that does not exist.';

export const TENANT_NUMBER_OPTION = (name: string, option: string, min: number, max: number) =>
  `Tenant endpoint "${name}": ${option} must be a whole number between ${min} and ${max}.`;

export const TENANT_RESOLVER_TIMED_OUT = (name: string, timeoutMs: number): string =>
  `resolveTenant of endpoint "${name}" did not answer within ${timeoutMs} ms (resolveTimeoutMs)`;

export const TENANT_RESOLVER_FAILED = (name: string, error: unknown): string =>
  `resolveTenant of endpoint "${name}" failed: ${error instanceof Error ? error.message : String(error)}`;

export const TENANT_SETTINGS_UNUSABLE = (name: string, error: unknown): string =>
  `resolveTenant of endpoint "${name}" returned settings the provider cannot use: ` +
  `${error instanceof Error ? error.message : String(error)}`;

export const TENANT_RESOLUTIONS_FULL = (name: string, max: number): string =>
  `Endpoint "${name}" is resolving ${max} tenants at once (tenantCache.maxTenants); try again later`;

export const TENANT_GONE = (name: string, tenant: string): string =>
  `Tenant "${tenant}" of endpoint "${name}" no longer resolves (resolveTenant returned null): ` +
  'its events cannot be checked with the provider or run with its settings';
