import { notificationsOf } from '../providers/notifications';
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { PaymentEvent } from '../interfaces/payment-event.interface';
import { WebhookEventEntity } from '../store/entities/webhook-event.entity';
import { InboxSignal } from '../store/inbox-signal';
import { WebhookStore } from '../store/webhook-store.interface';
import { WEBHOOKS_RESOLVED_OPTIONS } from '../webhooks.constants';
import { ResolvedWebhooksOptions } from '../webhooks-options.resolver';
import { retryDelayMs } from './backoff';
import { NonRetryableError } from './non-retryable.error';
import { RegisteredWebhookHandler, WebhookHandlerRegistry } from './webhook-handler.registry';

interface HandlerFailure {
  readonly handler: RegisteredWebhookHandler;
  readonly error: unknown;
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

  private readonly logger = new Logger('WebhookDispatcher');
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Events given back on shutdown while their handlers still ran: never settle them here. */
  private readonly released = new Set<string>();
  private running = false;
  private loop?: Promise<void>;
  private wakeRequested = false;
  private wakeSleeper?: () => void;
  private heartbeat?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private unwatch?: Promise<() => Promise<void>>;

  constructor(
    @Inject(WebhookStore) private readonly store: WebhookStore,
    private readonly registry: WebhookHandlerRegistry,
    private readonly signal: InboxSignal,
    @Inject(WEBHOOKS_RESOLVED_OPTIONS) private readonly options: ResolvedWebhooksOptions,
  ) {}

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
    while (this.running) {
      this.wakeRequested = false;
      const capacity = concurrency - this.inFlight.size;
      let claimed = 0;
      if (capacity > 0) {
        try {
          const events = await this.store.claim(this.workerId, capacity, leaseMs, new Date());
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
        // NOTE: a full batch means more may be due; claim again once a slot frees.
        await Promise.race(this.inFlight.values());
        continue;
      }
      if (!this.wakeRequested) {
        await this.sleep(pollIntervalMs);
      }
    }
  }

  private track(event: WebhookEventEntity): void {
    const work = this.process(event)
      .catch((error: unknown) => {
        // NOTE: the event stays claimed; its lease expires and it is retried, never lost.
        this.logger.error(`Settling event ${event.id} failed: ${describe(error)}`);
      })
      .finally(() => {
        this.inFlight.delete(event.id);
      });
    this.inFlight.set(event.id, work);
  }

  private async process(entity: WebhookEventEntity): Promise<void> {
    const { maxAttempts, baseDelayMs, maxDelayMs } = this.options.dispatch;
    const attempt = entity.attempts;
    if (attempt > maxAttempts) {
      // NOTE: only reachable through expired leases: the worker died on every attempt.
      await this.store.markDead(
        entity.id,
        this.workerId,
        `Gave up after ${maxAttempts} attempts; the last ones never finished (worker lost its lease)`,
      );
      this.logger.error(`Event ${entity.id} (${entity.endpoint}/${entity.eventId}) is dead`);
      return;
    }
    const handlers = this.registry.match(entity);
    if (handlers.length === 0) {
      await this.store.markIgnored(entity.id, this.workerId, new Date());
      return;
    }
    const finished = await this.store.finishedHandlers(entity.id);
    const event = this.toPaymentEvent(entity, attempt);
    const failures: HandlerFailure[] = [];
    for (const handler of handlers) {
      if (finished.has(handler.key)) {
        continue;
      }
      const started = Date.now();
      try {
        const outcome = await this.store.runHandler(entity.id, handler.key, attempt, (manager) =>
          handler.invoke(event, {
            manager,
            attempt,
            idempotencyKey: this.idempotencyKey(entity, handler.key),
            logger: new Logger(`Webhooks:${handler.key}`),
          }),
        );
        this.logger.debug(
          `event=${entity.id} handler=${handler.key} attempt=${attempt} outcome=${outcome} ms=${Date.now() - started}`,
        );
      } catch (error) {
        failures.push({ handler, error });
        this.logger.warn(
          `event=${entity.id} handler=${handler.key} attempt=${attempt} outcome=failed ` +
            `ms=${Date.now() - started} error=${JSON.stringify(describe(error))}`,
        );
      }
    }
    if (this.released.has(entity.id)) {
      // NOTE: given back on shutdown; the handler transactions that still commit are in the
      // ledger, and the next worker settles the event.
      return;
    }
    if (failures.length === 0) {
      await this.store.markProcessed(entity.id, this.workerId, new Date());
      return;
    }
    const summary = failures.map((f) => `${f.handler.key}: ${describe(f.error)}`).join('; ');
    const permanent = failures.some((f) => f.error instanceof NonRetryableError);
    if (permanent || attempt >= maxAttempts) {
      await this.store.markDead(entity.id, this.workerId, summary);
      this.logger.error(
        `Event ${entity.id} (${entity.endpoint}/${entity.eventId}) is dead after ${attempt} attempt(s): ${summary}`,
      );
      return;
    }
    const delay = retryDelayMs(attempt, baseDelayMs, maxDelayMs);
    await this.store.scheduleRetry(entity.id, this.workerId, new Date(Date.now() + delay), summary);
  }

  private toPaymentEvent(entity: WebhookEventEntity, attempt: number): PaymentEvent {
    return {
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
      payload: this.payloadOf(entity),
      attempt,
    };
  }

  private payloadOf(entity: WebhookEventEntity): unknown {
    const endpoint = this.options.endpoints.get(entity.endpoint);
    if (endpoint) {
      try {
        const [notification] = notificationsOf(
          endpoint.provider.normalize({
            rawBody: Buffer.from(entity.rawBody, 'utf8'),
            headers: entity.headers,
            receivedAt: entity.receivedAt,
          }),
        );
        return notification.payload;
      } catch {
        // NOTE: the endpoint's configuration changed since the event was stored; fall through.
      }
    }
    try {
      return JSON.parse(entity.rawBody) as unknown;
    } catch {
      return entity.rawBody;
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
