import { notificationsOf } from '../providers/notifications';
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { isPaymentEventType } from '../core/payment-event-types';
import { ProviderStatusError, WebhookConfigurationError } from '../core/webhook-errors';
import { PaymentEvent } from '../interfaces/payment-event.interface';
import {
  PaymentStatusClient,
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from '../providers/payment-status-client.interface';
import { WebhookEventEntity } from '../store/entities/webhook-event.entity';
import { InboxSignal } from '../store/inbox-signal';
import { storedBodyBytes } from '../store/stored-body';
import { WebhookStore } from '../store/webhook-store.interface';
import { WEBHOOKS_RESOLVED_OPTIONS } from '../webhooks.constants';
import { ResolvedWebhooksOptions } from '../webhooks-options.resolver';
import { WebhookTelemetry } from '../observability/webhook-telemetry';
import { retryDelayMs } from './backoff';
import { describeFailures, describeWithStack } from './handler-failure';
import { withFullValues } from './full-event-values';
import { NonRetryableError } from './non-retryable.error';
import { providerConfirms } from './provider-answer';
import { RegisteredWebhookHandler, WebhookHandlerRegistry } from '../handlers/webhook-handler.registry';
import { SafeLogger } from '../observability/safe-logger';

interface HandlerFailure {
  readonly handler: RegisteredWebhookHandler;
  readonly error: unknown;
}

/** Payment and refund events can be checked against the provider; disputes and natives are not. */
function isVerifiable(type: string): boolean {
  return isPaymentEventType(type) && (type.startsWith('payment.') || type.startsWith('refund.'));
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Claims due events, runs each handler not yet in the ledger, and settles the event:
 * processed, retrying with backoff, ignored, or dead. Wakes on a local insert and polls
 * as a fallback; many instances may share one PostgreSQL database.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** Identifies this worker's leases. */
  readonly workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  private readonly logger = new SafeLogger('WebhookDispatcher');
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Events given back on shutdown while their handlers still ran: never settle them here. */
  private readonly released = new Set<string>();
  private running = false;
  private loop?: Promise<void>;
  private wakeRequested = false;
  private wakeSleeper?: () => void;
  private slotWaiter?: { readonly slots: number; readonly resolve: () => void };
  private heartbeat?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private unwatch?: Promise<() => Promise<void>>;
  private readonly orderedEndpoints: readonly string[];

  constructor(
    @Inject(WebhookStore) private readonly store: WebhookStore,
    private readonly registry: WebhookHandlerRegistry,
    private readonly signal: InboxSignal,
    @Inject(WEBHOOKS_RESOLVED_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly telemetry: WebhookTelemetry,
  ) {
    this.orderedEndpoints = [...options.endpoints.values()]
      .filter((endpoint) => endpoint.orderPerPayment)
      .map((endpoint) => endpoint.name);
  }

  onApplicationBootstrap(): void {
    if (this.options.dispatch.enabled) {
      this.start();
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Starts claiming events (done at bootstrap unless `dispatch.enabled` is false). */
  start(): void {
    if (this.running) {
      return;
    }
    this.running = true;
    this.released.clear();
    this.unsubscribe = this.signal.subscribe(() => this.wake());
    this.unwatch = this.store
      .watch(() => this.wake())
      .catch((error: unknown) => {
        this.logger.warn(
          `Listening for other instances' events failed; polling only: ${describe(error)}`,
        );
        return async () => undefined;
      });
    const { leaseMs } = this.options.dispatch;
    this.heartbeat = setInterval(
      () => void this.renewLeases(),
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    this.heartbeat.unref();
    this.loop = this.run();
  }

  /**
   * Stops claiming, lets running handlers finish for up to `shutdownTimeoutMs`, then gives
   * the events still held back to the inbox so another worker can take them at once.
   */
  async stop(): Promise<void> {
    if (!this.running) {
      return;
    }
    this.running = false;
    this.unsubscribe?.();
    await (
      await this.unwatch
    )?.();
    this.wake();
    this.slotWaiter?.resolve();
    this.slotWaiter = undefined;
    await this.loop;
    const settled = Promise.allSettled([...this.inFlight.values()]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.dispatch.shutdownTimeoutMs);
    });
    await Promise.race([settled, timeout]);
    clearTimeout(timer);
    clearInterval(this.heartbeat);
    const held = [...this.inFlight.keys()];
    held.forEach((id) => this.released.add(id));
    if (held.length > 0) {
      this.logger.warn(`Giving ${held.length} unfinished event(s) back to the inbox on shutdown`);
      await this.store.release(held, this.workerId, new Date()).catch((error: unknown) => {
        this.logger.error(`Could not release events on shutdown: ${describe(error)}`);
      });
    }
  }

  /** Asks the loop to look for due events now (called after a local insert). */
  wake(): void {
    this.wakeRequested = true;
    this.wakeSleeper?.();
  }

  private async run(): Promise<void> {
    const { concurrency, pollIntervalMs, leaseMs } = this.options.dispatch;
    // NOTE: claims are refilled in batches: after a full claim the loop waits until half the
    // slots are free, so a backlog costs one claim per concurrency/2 events, not one per event.
    const refillAt = Math.max(1, Math.floor(concurrency / 2));
    let expiredCheckedAt = 0;
    while (this.running) {
      this.wakeRequested = false;
      const capacity = concurrency - this.inFlight.size;
      let claimed = 0;
      if (capacity > 0) {
        const now = new Date();
        // NOTE: expired leases (a dead worker's events) are looked for once per poll interval.
        const expired = now.getTime() - expiredCheckedAt >= pollIntervalMs;
        try {
          const events = await this.store.claim(this.workerId, capacity, leaseMs, now, {
            orderedEndpoints: this.orderedEndpoints,
            expired,
          });
          if (expired) {
            expiredCheckedAt = now.getTime();
          }
          claimed = events.length;
          for (const event of events) {
            this.track(event);
          }
        } catch (error) {
          this.logger.error(`Claiming events failed: ${describe(error)}`);
        }
      }
      if (!this.running) {
        break;
      }
      if (claimed > 0 && claimed === capacity) {
        // NOTE: a full batch means more may be due; claim again once enough slots free.
        await this.slotsFree(refillAt);
        continue;
      }
      if (!this.wakeRequested) {
        await this.sleep(pollIntervalMs);
      }
    }
  }

  /** Resolves once at least `slots` of the concurrency are free (or the dispatcher stops). */
  private slotsFree(slots: number): Promise<void> {
    const { concurrency } = this.options.dispatch;
    if (concurrency - this.inFlight.size >= slots || !this.running) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.slotWaiter = { slots, resolve };
    });
  }

  private track(event: WebhookEventEntity): void {
    const work = this.process(event)
      .catch((error: unknown) => {
        // NOTE: the event stays claimed; its lease expires and it is retried, never lost.
        this.logger.error(`Settling event ${event.id} failed: ${describe(error)}`);
      })
      .finally(() => {
        this.inFlight.delete(event.id);
        const waiter = this.slotWaiter;
        if (waiter && this.options.dispatch.concurrency - this.inFlight.size >= waiter.slots) {
          this.slotWaiter = undefined;
          waiter.resolve();
        }
      });
    this.inFlight.set(event.id, work);
  }

  private async process(claimed: WebhookEventEntity): Promise<void> {
    const { maxAttempts, baseDelayMs, maxDelayMs } = this.options.dispatch;
    // NOTE: handlers, matching and the provider's API get the values the delivery carried,
    // also where the row holds them shortened; downstream keys stay those of the row.
    const entity = withFullValues(claimed, this.options.endpoints.get(claimed.endpoint)?.provider);
    const attempt = entity.attempts;
    if (attempt > maxAttempts) {
      // NOTE: only reachable through expired leases: the worker died on every attempt.
      const reason = `Gave up after ${maxAttempts} attempts; the last ones never finished (worker lost its lease)`;
      await this.store.markDead(entity.id, this.workerId, reason);
      this.reportSettled(entity, attempt, 'dead', { error: reason });
      this.logger.error(`Event ${entity.id} (${entity.endpoint}/${entity.eventId}) is dead`);
      return;
    }
    const handlers = this.registry.match(entity);
    if (handlers.length === 0) {
      await this.store.markIgnored(entity.id, this.workerId, new Date());
      this.reportSettled(entity, attempt, 'ignored');
      return;
    }
    const endpoint = this.options.endpoints.get(entity.endpoint);
    // NOTE: the ledger is read up front only when it decides whether to ask the provider;
    // otherwise a handler already in it reports 'already_done' and its outcome is read then.
    let finished: Map<string, string | null> | undefined;
    let verified: ProviderPaymentStatus | null = null;
    if (endpoint?.verifyWithProvider && endpoint.statusClient && isVerifiable(entity.type)) {
      finished = await this.store.finishedHandlers(entity.id);
      const done = finished;
      if (handlers.some((handler) => !done.has(handler.key))) {
        const answer = await this.askProvider(entity, endpoint.statusClient, attempt);
        if (answer === undefined) {
          return;
        }
        verified = answer;
      }
    }
    const providerStatus = verified?.status ?? null;
    const event = this.toPaymentEvent(entity, attempt, verified);
    const failures: HandlerFailure[] = [];
    const outcomes = new Set<string>();
    finished?.forEach((outcome) => outcome !== null && outcomes.add(outcome));
    const summarize = (extra?: string) => {
      const all = extra === undefined ? outcomes : new Set([...outcomes, extra]);
      return all.size > 0 ? [...all].sort().join(',') : null;
    };
    for (const [index, handler] of handlers.entries()) {
      if (finished?.has(handler.key)) {
        continue;
      }
      // NOTE: when every handler before it succeeded, the last one marks the event processed
      // in its own transaction: one commit per event instead of two.
      const settle =
        index === handlers.length - 1 && failures.length === 0 && !this.released.has(entity.id)
          ? {
              workerId: this.workerId,
              result: (reported: string | undefined) => ({
                outcome: summarize(reported),
                providerStatus,
              }),
            }
          : undefined;
      const started = Date.now();
      let reported: string | undefined;
      try {
        const outcome = await this.store.runHandler(
          entity.id,
          handler.key,
          attempt,
          async (manager) => {
            reported = undefined;
            await handler.invoke(event, {
              manager,
              attempt,
              idempotencyKey: this.idempotencyKey(claimed, handler.key),
              logger: new SafeLogger(`Webhooks:${handler.key}`),
              fetchStatus: () => this.fetchStatus(entity, event),
              recordOutcome: (value: string) => {
                reported = String(value).slice(0, 64);
              },
            });
            return reported;
          },
          settle,
        );
        if (outcome === 'already_done') {
          finished = await this.store.finishedHandlers(entity.id);
          const earlier = finished.get(handler.key);
          if (earlier !== undefined && earlier !== null) {
            outcomes.add(earlier);
          }
        } else if (reported !== undefined) {
          outcomes.add(reported);
        }
        this.telemetry.attempt({
          ...this.identity(entity),
          handler: handler.key,
          attempt,
          outcome: outcome === 'already_done' ? outcome : (reported ?? 'ran'),
          durationMs: Date.now() - started,
        });
        this.logger.debug(
          `event=${entity.id} handler=${handler.key} attempt=${attempt} outcome=${reported ?? outcome} ms=${Date.now() - started}`,
        );
        if (outcome === 'ran_and_settled') {
          this.reportSettled(entity, attempt, 'processed', { outcome: summarize() });
          return;
        }
      } catch (error) {
        failures.push({ handler, error });
        this.telemetry.attempt({
          ...this.identity(entity),
          handler: handler.key,
          attempt,
          outcome: 'failed',
          durationMs: Date.now() - started,
          error: describe(error),
        });
        this.logger.warn(
          `event=${entity.id} handler=${handler.key} attempt=${attempt} outcome=failed ` +
            `ms=${Date.now() - started} error=${JSON.stringify(describeWithStack(error))}`,
        );
      }
    }
    if (this.released.has(entity.id)) {
      // NOTE: given back on shutdown; the handler transactions that still commit are in the
      // ledger, and the next worker settles the event.
      return;
    }
    if (failures.length === 0) {
      const outcome = summarize();
      await this.store.markProcessed(entity.id, this.workerId, new Date(), {
        outcome,
        providerStatus,
      });
      this.reportSettled(entity, attempt, 'processed', { outcome });
      return;
    }
    const { summary, detail } = describeFailures(
      failures.map((f) => ({ key: f.handler.key, error: f.error })),
    );
    const permanent = failures.some((f) => f.error instanceof NonRetryableError);
    if (permanent || attempt >= maxAttempts) {
      await this.store.markDead(entity.id, this.workerId, detail);
      this.reportSettled(entity, attempt, 'dead', { error: summary });
      this.logger.error(
        `Event ${entity.id} (${entity.endpoint}/${entity.eventId}) is dead after ${attempt} attempt(s): ${summary}`,
      );
      return;
    }
    const delay = retryDelayMs(attempt, baseDelayMs, maxDelayMs);
    await this.store.scheduleRetry(entity.id, this.workerId, new Date(Date.now() + delay), detail, {
      providerStatus,
    });
    this.reportSettled(entity, attempt, 'retrying', { error: summary });
  }

  /**
   * Asks the provider before handlers run. Resolves to its answer when it confirms the
   * event (the same state, or a later one reached only through it), or to undefined once the
   * event has been settled here: retried when the provider cannot answer yet, dead when it
   * never will, processed as `provider_disagrees` when it reports another final state.
   */
  private async askProvider(
    entity: WebhookEventEntity,
    client: PaymentStatusClient,
    attempt: number,
  ): Promise<ProviderPaymentStatus | undefined> {
    const { maxAttempts, baseDelayMs, maxDelayMs } = this.options.dispatch;
    const label = `${entity.endpoint}/${entity.eventId}`;
    const retryOrDie = async (reason: string, retryable: boolean, providerStatus?: string) => {
      if (!retryable || attempt >= maxAttempts) {
        await this.store.markDead(entity.id, this.workerId, reason);
        this.reportSettled(entity, attempt, 'dead', { error: reason });
        this.logger.error(`Event ${entity.id} (${label}) is dead: ${reason}`);
        return;
      }
      const delay = retryDelayMs(attempt, baseDelayMs, maxDelayMs);
      await this.store.scheduleRetry(
        entity.id,
        this.workerId,
        new Date(Date.now() + delay),
        reason,
        {
          providerStatus,
        },
      );
      this.reportSettled(entity, attempt, 'retrying', { error: reason });
    };
    let answer: ProviderPaymentStatus;
    try {
      answer = await client.fetchStatus(this.statusQuery(entity));
    } catch (error) {
      const retryable = !(error instanceof ProviderStatusError) || error.retryable;
      await retryOrDie(
        `Asking ${client.kind} about ${label} failed: ${describe(error)}`,
        retryable,
      );
      return undefined;
    }
    if (providerConfirms(entity.type, answer.type)) {
      return answer;
    }
    if (answer.type === undefined) {
      await retryOrDie(
        `${client.kind} reports status "${answer.status}" for ${answer.paymentRef}, not yet ${entity.type}`,
        true,
        answer.status,
      );
      return undefined;
    }
    this.logger.warn(
      `Event ${entity.id} (${label}) says ${entity.type} but ${client.kind} reports ` +
        `"${answer.status}" (${answer.type}) for ${answer.paymentRef}; handlers not run`,
    );
    await this.store.markProcessed(entity.id, this.workerId, new Date(), {
      outcome: 'provider_disagrees',
      providerStatus: answer.status,
    });
    this.reportSettled(entity, attempt, 'processed', { outcome: 'provider_disagrees' });
    return undefined;
  }

  private identity(entity: WebhookEventEntity) {
    return {
      id: entity.id,
      endpoint: entity.endpoint,
      provider: entity.provider,
      type: entity.type,
      eventId: entity.eventId,
    };
  }

  private reportSettled(
    entity: WebhookEventEntity,
    attempt: number,
    status: 'processed' | 'ignored' | 'retrying' | 'dead',
    extra: { outcome?: string | null; error?: string } = {},
  ): void {
    this.telemetry.settled({
      ...this.identity(entity),
      paymentRef: entity.paymentRef,
      status,
      attempt,
      ageMs: Date.now() - entity.receivedAt.getTime(),
      ...extra,
    });
  }

  private fetchStatus(
    entity: WebhookEventEntity,
    event: PaymentEvent,
  ): Promise<ProviderPaymentStatus> {
    const client = this.options.endpoints.get(entity.endpoint)?.statusClient;
    if (!client) {
      return Promise.reject(
        new WebhookConfigurationError(
          `Endpoint "${entity.endpoint}" has no status client: give it the provider's API credentials to use ctx.fetchStatus().`,
        ),
      );
    }
    return client.fetchStatus({ ...this.statusQuery(entity), payload: event.payload });
  }

  private statusQuery(entity: WebhookEventEntity): PaymentStatusQuery {
    return {
      paymentRef: entity.paymentRef,
      merchantRef: entity.merchantRef,
      type: entity.type,
      nativeType: entity.nativeType,
      payload: this.payloadOf(entity),
    };
  }

  private toPaymentEvent(
    entity: WebhookEventEntity,
    attempt: number,
    verified: ProviderPaymentStatus | null,
  ): PaymentEvent {
    const event = {
      id: entity.id,
      endpoint: entity.endpoint,
      provider: entity.provider,
      eventId: entity.eventId,
      type: entity.type as PaymentEvent['type'],
      nativeType: entity.nativeType,
      paymentRef: entity.paymentRef,
      merchantRef: entity.merchantRef,
      amount: entity.amount,
      currency: entity.currency,
      status: entity.paymentStatus,
      occurredAt: entity.occurredAt,
      receivedAt: entity.receivedAt,
      payload: undefined as unknown,
      attempt,
      verified,
    };
    // NOTE: the payload is parsed from the stored body when a handler first reads it; most
    // handlers act on the normalized fields alone.
    Object.defineProperty(event, 'payload', {
      enumerable: true,
      configurable: true,
      get: () => {
        const value = this.payloadOf(entity);
        Object.defineProperty(event, 'payload', { value, enumerable: true, writable: false });
        return value;
      },
    });
    return event;
  }

  private payloadOf(entity: WebhookEventEntity): unknown {
    const endpoint = this.options.endpoints.get(entity.endpoint);
    if (endpoint) {
      try {
        const [notification] = notificationsOf(
          endpoint.provider.normalize({
            rawBody: storedBodyBytes(entity.rawBody),
            headers: entity.headers,
            receivedAt: entity.receivedAt,
          }),
        );
        return notification.payload;
      } catch {
        // NOTE: the endpoint's configuration changed since the event was stored; fall through.
      }
    }
    const body = storedBodyBytes(entity.rawBody).toString('utf8');
    try {
      return JSON.parse(body) as unknown;
    } catch {
      return body;
    }
  }

  private idempotencyKey(entity: WebhookEventEntity, handlerKey: string): string {
    const digest = createHash('sha256')
      .update(`${entity.endpoint}\n${entity.eventId}\n${handlerKey}`)
      .digest('hex');
    return `whk_${digest.slice(0, 40)}`;
  }

  private async renewLeases(): Promise<void> {
    const held = [...this.inFlight.keys()];
    if (held.length === 0) {
      return;
    }
    try {
      await this.store.extendLease(held, this.workerId, this.options.dispatch.leaseMs, new Date());
    } catch (error) {
      this.logger.warn(`Renewing leases failed: ${describe(error)}`);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeSleeper = done;
    });
  }
}
