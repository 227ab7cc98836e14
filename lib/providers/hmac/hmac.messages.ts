import { endpointLabel } from '../providers.messages';

/**
 * `eventIdHeader` or `typeHeader` names a header the signature does not cover, and the endpoint
 * did not accept that risk with `trustUnsignedHeaders`.
 */
export function unsignedHeaderMessage(
  name: unknown,
  kind: string,
  option: 'eventIdHeader' | 'typeHeader',
  header: string,
  signedContent: string,
): string {
  const risk =
    option === 'eventIdHeader'
      ? 'anyone holding one captured delivery can resend it with a new value, and each new value ' +
        'is a new event whose handlers run again'
      : 'anyone holding one captured delivery can resend it under another type, and the handlers ' +
        'of that type run for it';
  const fix =
    option === 'eventIdHeader'
      ? 'remove eventIdHeader, so the dedup key comes from the signed body (eventIdPath, else the ' +
        "body's SHA-256)"
      : 'remove typeHeader, so the type comes from the signed body (typePath)';
  return (
    `${endpointLabel(name, kind)}: ${option} "${header}" is not covered by the signature ` +
    `(the signed content is ${signedContent}), so ${risk}. Either ${fix}, or set ` +
    'trustUnsignedHeaders: true to accept that risk; a type read from an unsigned header is then ' +
    `only ever a native type ('${kind}:<value>'), never a normalized one such as payment.succeeded.`
  );
}
