import { BlockList, isIP } from 'node:net';
import { WebhookConfigurationError } from './webhook-errors';

/** Which source addresses may deliver to an endpoint. */
export interface SourceAllowlist {
  /** True when `ip` (IPv4, IPv6 or IPv4-mapped IPv6) is in one of the allowed ranges. */
  allows(ip: string | undefined): boolean;
  /**
   * The list as the journal names it when it refuses a source: `allowedIps [10.0.0.0/8]`, or
   * the name of a provider's default ranges.
   */
  readonly description: string;
}

/**
 * Builds an allowlist from addresses and CIDR ranges (`'185.71.76.0/27'`, `'2a02:5180::/32'`,
 * `'77.75.156.11'`), failing at startup on an entry that is neither.
 * @param description how the journal names the list; by default `allowedIps [<entries>]`.
 */
export function createSourceAllowlist(
  endpointName: string,
  entries: readonly string[],
  description = `allowedIps [${entries.join(', ')}]`,
): SourceAllowlist {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix, extra] = String(entry).trim().split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
    if (
      family === 0 ||
      extra !== undefined ||
      !Number.isInteger(bits) ||
      bits < 0 ||
      bits > (family === 6 ? 128 : 32)
    ) {
      throw new WebhookConfigurationError(
        `Webhook endpoint "${endpointName}": allowedIps entry ${JSON.stringify(entry)} is not an IP address ` +
          'or CIDR range; write entries like "185.71.76.0/27", "77.75.156.11" or "2a02:5180::/32".',
      );
    }
    list.addSubnet(address, bits, family === 6 ? 'ipv6' : 'ipv4');
  }
  return {
    description,
    allows(ip) {
      if (!ip) {
        return false;
      }
      // NOTE: a dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d.
      const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
      const address = mapped ? mapped[1] : ip;
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
}
