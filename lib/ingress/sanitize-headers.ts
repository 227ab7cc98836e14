import { requestTraceContext, StoredTraceContext } from '../telemetry/trace-context';

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

/** The W3C trace context headers: kept only as `trace` says, never as they came. */
const TRACE_CONTEXT: ReadonlySet<string> = new Set(['traceparent', 'tracestate']);

/**
 * The headers worth keeping with a stored event: the ones above, the provider's own
 * `storedHeaders` (ids and timestamps its `normalize()` reads again on replay), and the trace
 * context its handler attempts continue.
 * @param headers lower-cased names, as the controller flattens them.
 * @param trace the trace context to keep: the delivery span's when one records; the request's
 * own `traceparent` (and bounded `tracestate`) when it is valid, unless given.
 */
export function sanitizeHeaders(
  headers: Readonly<Record<string, string | undefined>>,
  providerHeaders: readonly string[] = [],
  trace: StoredTraceContext | undefined = requestTraceContext(headers),
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (
      value !== undefined &&
      (KEPT.has(name) || providerHeaders.includes(name)) &&
      !TRACE_CONTEXT.has(name)
    ) {
      kept[name] = value;
    }
  }
  return trace === undefined ? kept : Object.assign(kept, trace);
}
