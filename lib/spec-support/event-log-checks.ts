import { ProviderStatusError } from '../core/webhook-errors';
import { EventLogWindow, LoggedEvent, ProviderEventLog } from '../providers/event-log.interface';
import { SignedDelivery } from '../providers/signed-delivery';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookEndpoint,
} from '../providers/webhook-provider.interface';

/** Every event of `window`, page after page, and the cursors each page was read with. */
export async function readWholeWindow(
  log: ProviderEventLog,
  window: EventLogWindow,
): Promise<{ events: LoggedEvent[]; cursors: (string | null)[] }> {
  const events: LoggedEvent[] = [];
  const cursors: (string | null)[] = [];
  let cursor: string | null = null;
  do {
    cursors.push(cursor);
    const page = await log.readPage(window, cursor);
    events.push(...page.events);
    cursor = page.next;
  } while (cursor !== null && cursors.length < 50);
  return { events, cursors };
}

/**
 * What the endpoint stores for a signed delivery (verified first, as the ingress does) and for
 * the same event read back from the log (normalized without verifying, as the recovery does).
 */
export async function normalizeBoth(
  endpoint: WebhookEndpoint,
  delivery: SignedDelivery,
  logged: LoggedEvent,
  receivedAt = new Date(),
): Promise<{ delivered: NormalizedNotification; recovered: NormalizedNotification }> {
  const inbound: InboundWebhook = {
    rawBody: Buffer.from(delivery.body),
    headers: lowerCased(delivery.headers),
    receivedAt,
  };
  await endpoint.provider.verify(inbound);
  const delivered = first(await endpoint.provider.normalize(inbound));
  const recovered = first(
    await endpoint.provider.normalize({
      rawBody: Buffer.from(logged.body),
      headers: lowerCased(logged.headers ?? {}),
      receivedAt,
    }),
  );
  return { delivered, recovered };
}

/** The error `promise` fails with, which must be a `ProviderStatusError` naming no secret. */
export async function eventLogFailure(
  promise: Promise<unknown>,
  secrets: readonly string[],
): Promise<ProviderStatusError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderStatusError);
  expect((error as Error).message).toMatch(/ event log read of /);
  for (const secret of secrets) {
    expect((error as Error).message).not.toContain(secret);
  }
  return error as ProviderStatusError;
}

function first(
  result: NormalizedNotification | readonly NormalizedNotification[],
): NormalizedNotification {
  return Array.isArray(result) ? result[0] : (result as NormalizedNotification);
}

function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
