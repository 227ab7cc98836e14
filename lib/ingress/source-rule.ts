import type { SourceAllowlist } from '../core/source-allowlist';
import type { SourceRule } from '../telemetry/webhook-telemetry';
import type { WebhookDeliveryHead } from './webhook-delivery';

/** Longest `X-Forwarded-For` the journal quotes: enough for a chain of a few proxies. */
const FORWARDED_FOR_QUOTED = 200;

/**
 * The rule that refused `head`'s source, as the journal names it: the list it was checked
 * against, whether its address came through the platform's proxy handling, and the
 * `X-Forwarded-For` it came with (a request that passed a proxy, read with `trustProxy` off,
 * carries the address the team expected there).
 */
export function sourceRuleOf(
  head: WebhookDeliveryHead,
  allowlist: SourceAllowlist,
  trustProxy: boolean,
): SourceRule {
  const forwarded = head.headers['x-forwarded-for']?.trim();
  return {
    allowed: allowlist.description,
    trustProxy,
    ...(forwarded
      ? {
          forwardedFor:
            forwarded.length > FORWARDED_FOR_QUOTED
              ? `${forwarded.slice(0, FORWARDED_FOR_QUOTED)}…`
              : forwarded,
        }
      : {}),
  };
}
