import { WebhookAdmin } from '../admin/webhook-admin';
import type { WebhookEventListOptions } from '../admin/webhook-admin.options';
import type { SignedDelivery } from '../providers/signed-delivery';
import type { WebhookEventDetails, WebhookEventSummary } from '../store/ports/inbox-queries.port';
import type { WebhookEventStatus } from '../store/ports/webhook-event-status';

/** Options of `settled()`. */
export interface SettledOptions {
  /** The endpoint the event arrived on; needed only when several endpoints stored the id. */
  endpoint?: string;
  /**
   * The tenant the event arrived for; needed only when several tenants of one endpoint stored
   * the id.
   */
  tenant?: string;
  /**
   * How long to wait before failing with where the event stands.
   * @default 10000
   */
  timeoutMs?: number;
}

/**
 * The look-ups of the inbox `settled()` makes: a `WebhookAdmin`'s, from the root entry or the
 * router `createWebhooksRouter()` returned.
 */
export interface SettledAdmin {
  list(options?: WebhookEventListOptions): Promise<WebhookEventSummary[]>;
  show(id: string): Promise<WebhookEventDetails | null>;
}

/**
 * What `settled()` waits on: the Nest application (`INestApplication`, or a `TestingModule`),
 * the Express router `createWebhooksRouter()` returned, or a `WebhookAdmin`.
 */
// NOTE: typed by what settled() reads rather than by the class, which only the root entry exports.
export type SettledTarget =
  | { get(token: abstract new (...args: never[]) => unknown): unknown }
  | { readonly admin: SettledAdmin }
  | SettledAdmin;

/** The statuses an event stays in until someone replays it. */
const FINAL: readonly WebhookEventStatus[] = ['processed', 'ignored', 'dead'];

const FIRST_LOOK_MS = 5;
const LONGEST_LOOK_MS = 100;

/**
 * Waits until the stored event with the provider's event id has settled: every handler done
 * (`processed`), nothing to run (`ignored`), or out of attempts (`dead`). Resolves to the event
 * and its ledger, so a test asserts what ran; a delivery not sent yet is waited for too. Works
 * wherever the handlers run (this process, other instances, BullMQ workers): it reads the inbox.
 * @param event the provider's event id (the dedup key the inbox stores it under), or the
 * delivery a `sign…Delivery()` built, which names it as `eventId`. For a delivery of several
 * notifications (an Adyen batch), that is the first one's: pass each of its `eventIds` to wait
 * for the others.
 * @throws TypeError for a delivery without `eventId`: its signer could not read the id the
 * endpoint stores it under (see `SignedDelivery.eventId`)
 * @throws Error after `timeoutMs`, saying where the event stands (not stored, pending with no
 * worker, retrying with its last error)
 * @example
 * await request(app.getHttpServer()).post('/webhooks/stripe').set(delivery.headers).send(delivery.body);
 * const { event, handlerRuns } = await settled(app, delivery);
 * expect(event.status).toBe('processed');
 */
export async function settled(
  target: SettledTarget,
  event: string | SignedDelivery,
  options: SettledOptions = {},
): Promise<WebhookEventDetails> {
  const admin = adminOf(target);
  const eventId = eventIdOf(event);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  const { endpoint, tenant } = options;
  let wait = FIRST_LOOK_MS;
  for (;;) {
    const events = await admin.list({ eventId, endpoint, tenant, limit: 2 });
    if (events.length > 1) {
      throw new Error(
        `settled(): ${events.map(storedUnder).join(' and ')} both stored event ${eventId}; ` +
          'pass { endpoint } (and { tenant } for a tenant endpoint) to say which one to wait for.',
      );
    }
    const [stored] = events;
    if (stored && FINAL.includes(stored.status)) {
      const details = await admin.show(stored.id);
      if (details && FINAL.includes(details.event.status)) {
        return details;
      }
    }
    if (Date.now() >= deadline) {
      throw new Error(notSettled(eventId, options, timeoutMs, stored));
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, deadline - Date.now())));
    wait = Math.min(wait * 2, LONGEST_LOOK_MS);
  }
}

function eventIdOf(event: string | SignedDelivery): string {
  if (typeof event === 'string') {
    return event;
  }
  if (event.eventId === undefined) {
    throw new TypeError(
      `settled(): this ${event.provider} delivery has no eventId: its signer could not read the ` +
        'id the endpoint stores it under (a body the endpoint refuses, or an option the signer ' +
        'needs, such as CloudPayments’ notification); pass the event id.',
    );
  }
  return event.eventId;
}

/** Where an event is stored: its endpoint, and its tenant when it has one. */
function storedUnder(event: WebhookEventSummary): string {
  return event.tenant === ''
    ? `endpoint ${event.endpoint}`
    : `${event.endpoint} (tenant ${event.tenant})`;
}

function adminOf(target: SettledTarget): SettledAdmin {
  if (target instanceof WebhookAdmin) {
    return target;
  }
  if ('admin' in target && target.admin instanceof WebhookAdmin) {
    return target.admin;
  }
  if ('get' in target && typeof target.get === 'function') {
    return target.get(WebhookAdmin) as WebhookAdmin;
  }
  throw new TypeError(
    'settled() takes the Nest application, the router createWebhooksRouter() returned, or a WebhookAdmin.',
  );
}

function notSettled(
  eventId: string,
  options: SettledOptions,
  timeoutMs: number,
  event: WebhookEventSummary | undefined,
): string {
  const where =
    (options.endpoint === undefined ? '' : ` on endpoint ${options.endpoint}`) +
    (options.tenant === undefined ? '' : ` for tenant ${options.tenant}`);
  const prefix = `Event ${eventId}${where} did not settle within ${timeoutMs} ms:`;
  if (!event) {
    return `${prefix} no such event is stored. Was the delivery answered 200, and is its id the provider's event id?`;
  }
  const attempts = `${event.attempts} attempt(s)`;
  switch (event.status) {
    case 'pending':
      return event.attempts === 0
        ? `${prefix} it is pending and no worker took it. Are the handlers started here (dispatch.enabled, router.start()) or on a worker process?`
        : `${prefix} it is pending after ${attempts}.`;
    case 'retrying':
      return `${prefix} it is retrying after ${attempts}; last error: ${event.lastError ?? 'none'}. Shorten dispatch.retry in tests, or throw NonRetryableError.`;
    default:
      return `${prefix} it is ${event.status} after ${attempts}.`;
  }
}
