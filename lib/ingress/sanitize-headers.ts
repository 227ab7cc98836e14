const DROPPED = [
  /signature/i,
  /^authorization$/i,
  /^proxy-authorization$/i,
  /^cookie$/i,
  /^set-cookie$/i,
  /token/i,
  /secret/i,
  /api[-_]?key/i,
  /password/i,
];

/**
 * The headers worth keeping with a stored event: everything but signatures, credentials and
 * cookies. Keeps what a later replay or investigation needs (ids, timestamps, content type).
 */
export function sanitizeHeaders(
  headers: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !DROPPED.some((pattern) => pattern.test(name))) {
      kept[name] = value;
    }
  }
  return kept;
}
