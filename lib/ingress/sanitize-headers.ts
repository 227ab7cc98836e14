/**
 * Headers kept with every stored event, whatever the provider: the body's type and what tells
 * who sent the delivery and through which proxies. Everything else is dropped, so a signature or
 * a credential under any name (a proxy's `x-forwarded-authorization`, an endpoint's own signature
 * header) is never stored.
 */
const KEPT: ReadonlySet<string> = new Set([
  'content-type',
  'user-agent',
  'x-request-id',
  'x-forwarded-for',
  'forwarded',
  'x-real-ip',
]);

/**
 * The headers worth keeping with a stored event: the ones above and the provider's own
 * `storedHeaders` (ids and timestamps its `normalize()` reads again on replay).
 * @param headers lower-cased names, as the controller flattens them.
 */
export function sanitizeHeaders(
  headers: Readonly<Record<string, string | undefined>>,
  providerHeaders: readonly string[] = [],
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && (KEPT.has(name) || providerHeaders.includes(name))) {
      kept[name] = value;
    }
  }
  return kept;
}
