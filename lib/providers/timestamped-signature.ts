import { ByteSource, hmacSha256 } from '../core/hmac';
import { SignatureScheme } from './define-provider';
import { TimestampedSignatureHeader, verifyTimestampedSignature } from './signature-header';

/** A {@link SignatureScheme} of a {@link TimestampedSignatureHeader}, signing with many secrets too. */
export interface TimestampedSignatureScheme extends SignatureScheme {
  /**
   * The header signed with each of `secrets`: one timestamp item, then one signature item per
   * secret, as a provider writes it while a secret is being rotated.
   * @param timestamp Unix seconds (now when unset).
   */
  signAll(
    body: ByteSource,
    secrets: readonly string[],
    timestamp?: number,
  ): Readonly<Record<string, string>>;
}

/**
 * The signature scheme of a {@link TimestampedSignatureHeader} (Stripe's `t=…,v1=…`, Paddle's
 * `ts=…;h1=…`): the endpoint verifies with it, within `tolerance` seconds, and the signers write
 * the header with it, from the one header definition.
 */
export function timestampedHmacSignature(
  header: TimestampedSignatureHeader,
  tolerance: number,
): TimestampedSignatureScheme {
  const signAll = (
    body: ByteSource,
    secrets: readonly string[],
    timestamp = Math.floor(Date.now() / 1000),
  ) => {
    const timestampText = String(timestamp);
    const signed = header.signedPrefix(timestampText);
    const items = secrets.map(
      (secret) => `${header.signatureKey}=${hmacSha256(secret, [signed, body]).toString('hex')}`,
    );
    return {
      [header.name.toLowerCase()]: [`${header.timestampKey}=${timestampText}`, ...items].join(
        header.separator,
      ),
    };
  };
  return {
    verify: (request, secrets) => verifyTimestampedSignature(request, header, secrets, tolerance),
    sign: (body, secret, timestamp) => signAll(body, [secret], timestamp),
    signAll,
  };
}
