import { WebhookConfigurationError } from '../../core/webhook-errors';

/**
 * Answers with the PEM text at a `PAYPAL-CERT-URL`: PayPal's signing certificate, followed by
 * the intermediate certificates PayPal serves with it. Called only with URLs that passed the
 * provider's check (https, a host that is `paypal.com` or under it, PayPal's certificate path).
 * Whatever it answers is then checked (subject, chain to a trusted root, validity), so a resolver
 * decides where certificates come from, never whether they are trusted.
 * A rejection refuses the delivery with a verification error (400); PayPal retries it.
 */
export type PayPalCertificateResolver = (url: string) => Promise<string>;

/** Options of `createPayPalCertificateResolver()`. */
export interface PayPalCertificateResolverOptions {
  /**
   * How long one certificate download may take, in milliseconds.
   * @default 5000
   */
  timeoutMs?: number;
  /**
   * How many certificates (by URL) stay cached; the least recently used is dropped first.
   * PayPal serves each certificate at its own URL, so a cached answer never goes stale.
   * @default 32
   */
  maxEntries?: number;
  /**
   * Largest certificate response accepted, in bytes.
   * @default 65536
   */
  maxBytes?: number;
  /**
   * How many downloads (of different URLs) may run at once; a delivery naming yet another
   * uncached URL meanwhile is refused at once (400, PayPal retries it). Deliveries naming a URL
   * already being downloaded share that download.
   * NOTE: genuine deliveries name the one or two certificates PayPal currently signs with, so
   * only forged deliveries naming many certificate URLs reach this bound; without it each would
   * cost an outbound request.
   * @default 4
   */
  maxConcurrentDownloads?: number;
}

/** What a failed download says, with fetch's underlying cause, for a refusal's message. */
export function describeCertificateError(error: unknown): string {
  const message = (value: unknown): string | undefined =>
    typeof value === 'object' && value !== null && typeof (value as Error).message === 'string'
      ? (value as Error).message
      : undefined;
  const text = message(error) ?? String(error);
  // NOTE: fetch reports "fetch failed" and puts the reason (ENOTFOUND, a redirect, …) in `cause`.
  const cause = message((error as { cause?: unknown } | undefined)?.cause);
  return cause === undefined ? text : `${text} (${cause})`;
}

function positiveInteger(option: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved <= 0) {
    throw new WebhookConfigurationError(
      `createPayPalCertificateResolver: ${option} must be a positive integer (got ${String(value)}); ` +
        `leave it out for the default ${fallback}.`,
    );
  }
  return resolved;
}

/**
 * Creates the default certificate resolver: downloads with Node's fetch (redirects refused, a
 * timeout, a size limit), caches each answer by URL (bounded, least recently used dropped
 * first), shares one download between deliveries that arrive together, and runs at most
 * `maxConcurrentDownloads` downloads at once. A failed download is not cached.
 * @example
 * paypalEndpoint({
 *   name: 'paypal',
 *   webhookId: process.env.PAYPAL_WEBHOOK_ID!,
 *   certificateResolver: createPayPalCertificateResolver({ timeoutMs: 3000 }),
 * })
 */
export function createPayPalCertificateResolver(
  options: PayPalCertificateResolverOptions = {},
): PayPalCertificateResolver {
  const timeoutMs = positiveInteger('timeoutMs', options.timeoutMs, 5000);
  const maxEntries = positiveInteger('maxEntries', options.maxEntries, 32);
  const maxBytes = positiveInteger('maxBytes', options.maxBytes, 64 * 1024);
  const maxDownloads = positiveInteger('maxConcurrentDownloads', options.maxConcurrentDownloads, 4);
  const cache = new Map<string, string>();
  const downloading = new Map<string, Promise<string>>();

  async function download(url: string): Promise<string> {
    // NOTE: a redirect could lead off PayPal's hosts, which the URL check exists to prevent.
    const response = await fetch(url, {
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/x-pem-file, text/plain, */*' },
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the certificate server answered HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length'));
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the certificate is larger than ${maxBytes} bytes`);
    }
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length > maxBytes) {
      throw new Error(`the certificate is larger than ${maxBytes} bytes`);
    }
    const text = bytes.toString('utf8');
    // NOTE: refused here, not only by the provider, so a bad answer is never cached.
    if (!text.includes('-----BEGIN CERTIFICATE-----')) {
      throw new Error('the answer is not a PEM certificate');
    }
    return text;
  }

  function remember(url: string, text: string): void {
    cache.set(url, text);
    if (cache.size > maxEntries) {
      cache.delete(cache.keys().next().value as string);
    }
  }

  return (url: string): Promise<string> => {
    const cached = cache.get(url);
    if (cached !== undefined) {
      // NOTE: re-inserting moves the entry to the end, so eviction drops the least recently used.
      cache.delete(url);
      cache.set(url, cached);
      return Promise.resolve(cached);
    }
    const pending = downloading.get(url);
    if (pending !== undefined) return pending;
    if (downloading.size >= maxDownloads) {
      return Promise.reject(
        new Error(`${maxDownloads} certificate downloads are already running; try again later`),
      );
    }
    const started = download(url).then(
      (text) => {
        remember(url, text);
        return text;
      },
      (error: unknown) => {
        // NOTE: checked by name: the abort error is a DOMException, not always an Error instance.
        const reason =
          (error as { name?: unknown } | undefined)?.name === 'TimeoutError'
            ? `no answer within ${timeoutMs} ms`
            : describeCertificateError(error);
        throw new Error(reason);
      },
    );
    const settled = started.finally(() => downloading.delete(url));
    downloading.set(url, settled);
    return settled;
  };
}
