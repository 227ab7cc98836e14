/**
 * Startup error texts for the provider status clients. Each one names the client and the option,
 * says what is wrong and how to fix it, and none of them quotes the value given: it may be a
 * credential pasted into the wrong option.
 */

/** `apiUrl` cannot be used as the base of the provider's API. */
export function invalidApiUrlMessage(client: string, problem: string, example: string): string {
  return (
    `${client}: apiUrl ${problem}. Give the absolute http(s) base URL of the API without ` +
    `credentials, query or fragment, e.g. apiUrl: "${example}" (the default), or the URL of a ` +
    'sandbox or a local fake in tests.'
  );
}

/** `timeoutMs` is not a positive whole number of milliseconds. */
export function invalidTimeoutMessage(client: string, value: unknown): string {
  const shown = typeof value === 'number' ? String(value) : `a ${typeof value}`;
  return (
    `${client}: timeoutMs must be a whole number of milliseconds between 1 and 2147483647 ` +
    `(got ${shown}); leave it out for the default 10000.`
  );
}

/** A credential option is missing, not a string, or has spaces around it. */
export function invalidCredentialMessage(
  client: string,
  option: string,
  problem: 'missing' | 'whitespace',
  where: string,
): string {
  const what =
    problem === 'missing'
      ? `${option} is required and must be a non-empty string`
      : `${option} has spaces or line breaks around it`;
  return `${client}: ${what}. Copy it from ${where}, without surrounding spaces or line breaks.`;
}

/** A Stripe key that cannot read PaymentIntents and Refunds from a server. */
export function stripeApiKeyMessage(looksLike: string): string {
  return (
    `StripeStatusClient: apiKey must be a secret key (sk_…) or a restricted key (rk_…) with read ` +
    `access to PaymentIntents and Refunds; the value given ${looksLike}. Copy a key from ` +
    'Stripe Dashboard → Developers → API keys, for the same mode (test or live) as the webhooks.'
  );
}

/** Sber takes either a login and password or a token, not both and not neither. */
export function sberCredentialsMessage(problem: 'none' | 'both' | 'half'): string {
  const what =
    problem === 'both'
      ? 'has both userName/password and token'
      : problem === 'half'
        ? 'needs userName and password together'
        : 'has no credentials';
  return (
    `SberStatusClient ${what}: give either { userName, password } of the API account ` +
    '(the "-api" login issued with the shop) or { token }, as the gateway accepts one or the other.'
  );
}

/** `environment` is neither PayPal's live nor its sandbox API. */
export function paypalEnvironmentMessage(value: unknown): string {
  const shown = typeof value === 'string' ? 'another string' : `a ${typeof value}`;
  return (
    `PayPalStatusClient: environment must be "live" or "sandbox" (got ${shown}); use the ` +
    'environment of the REST app whose clientId and clientSecret are given, or set apiUrl.'
  );
}
