import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { InboxEvent } from '../store/ports/inbox-event';
import type { WorkQueue } from '../store/ports';
import type { DispatchSettings } from './dispatch-settings';
import { Clock, systemClock } from './clock';
import { DispatchLogger } from './dispatch-logger';
import { describeError } from './handler-failure';
import { InboxWakeups, LocalInsertSignal } from './inbox-wakeups';
import { EventLease, WebhookEventProcessor } from './webhook-event.processor';

export type { LocalInsertSignal } from './inbox-wakeups';

/** The options the claim loop runs by. */
export type ClaimLoopOptions = DispatchSettings;

/**
 * The worker: claims due events with a lease, processes up to `concurrency` of them at a time,
 * and keeps their leases alive while they run. Wakes on a local insert, on another instance's
 * insert (PostgreSQL LISTEN/NOTIFY) and by polling; many instances may share one database.
 */
export class WebhookDispatcher {
  /** Identifies this worker's leases. */
  readonly workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  private readonly inFlight = new Map<string, Promise<unknown>>();
  /** Events given back on shutdown while their handlers still ran: never settle them here. */
  private readonly released = new Set<string>();
  private readonly lease: EventLease;
  private readonly orderedEndpoints: readonly string[];
  private isRunning = false;
  private loop?: Promise<void>;
  private readonly wakeups: InboxWakeups;
  private slotWaiter?: { readonly slots: number; readonly resolve: () => void };
  private heartbeat?: NodeJS.Timeout;

  /** @internal the module constructs it; an app injects it, so its dependencies are not part of the API. */
  constructor(
    private readonly worker: WorkQueue,
    private readonly processor: WebhookEventProcessor,
    signal: LocalInsertSignal,
    private readonly options: ClaimLoopOptions,
    private readonly logger: DispatchLogger,
    private readonly clock: Clock = systemClock,
  ) {
    this.wakeups = new InboxWakeups(signal, worker, logger);
    this.orderedEndpoints = [...options.endpoints.values()]
      .filter((endpoint) => endpoint.orderPerPayment)
      .map((endpoint) => endpoint.name);
    this.lease = { workerId: this.workerId, released: (id) => this.released.has(id) };
  }

  /** Starts claiming events (the module does it at bootstrap unless `dispatch.enabled` is false). */
  start(): void {
    if (this.isRunning) {
      return;
    }
    this.isRunning = true;
    this.released.clear();
    this.wakeups.listen();
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
    if (!this.isRunning) {
      return;
    }
    this.isRunning = false;
    await this.wakeups.close();
    this.slotWaiter?.resolve();
    this.slotWaiter = undefined;
    await this.loop;
    await this.drain();
    clearInterval(this.heartbeat);
    await this.releaseHeld();
  }

  /** Whether it runs handlers now: started, and not stopping. */
  get running(): boolean {
    return this.isRunning;
  }

  /**
   * Takes on an event this worker holds without having claimed it (an inline attempt left it
   * unfinished): `work` runs under this worker's lease, renewed while it runs, and counts among
   * the events running, so shutdown waits for it and gives it back when it outlasts the wait.
   * @internal the inline dispatch hands it an event; an app has no lease to give.
   */
  adopt(id: string, work: (lease: EventLease) => Promise<unknown>): void {
    this.hold(id, work(this.lease));
  }

  /** Asks the loop to look for due events now (called after a local insert). */
  wake(): void {
    this.wakeups.wake();
  }

  private async run(): Promise<void> {
    const { concurrency, pollIntervalMs } = this.options.dispatch;
    // NOTE: claims are refilled in batches: after a full claim the loop waits until half the
    // slots are free, so a backlog costs one claim per concurrency/2 events, not one per event.
    const refillAt = Math.max(1, Math.floor(concurrency / 2));
    let expiredCheckedAt = 0;
    while (this.isRunning) {
      this.wakeups.clear();
      const capacity = concurrency - this.inFlight.size;
      let claimed = 0;
      if (capacity > 0) {
        const now = this.clock.now();
        // NOTE: expired leases (a dead worker's events) are looked for once per poll interval.
        const expired = now.getTime() - expiredCheckedAt >= pollIntervalMs;
        const got = await this.claim(capacity, now, expired);
        if (got !== undefined && expired) {
          expiredCheckedAt = now.getTime();
        }
        claimed = got ?? 0;
      }
      if (!this.isRunning) {
        break;
      }
      if (claimed > 0 && claimed === capacity) {
        // NOTE: a full batch means more may be due; claim again once enough slots free.
        await this.slotsFree(refillAt);
        continue;
      }
      if (!this.wakeups.requested) {
        await this.wakeups.sleep(pollIntervalMs);
      }
    }
  }

  /** Claims up to `capacity` events and starts each; undefined when the claim failed. */
  private async claim(capacity: number, now: Date, expired: boolean): Promise<number | undefined> {
    try {
      const events = await this.worker.claim(
        this.workerId,
        capacity,
        this.options.dispatch.leaseMs,
        now,
        { orderedEndpoints: this.orderedEndpoints, expired },
      );
      for (const event of events) {
        this.track(event);
      }
      return events.length;
    } catch (error) {
      this.logger.error(`Claiming events failed: ${describeError(error)}`);
      return undefined;
    }
  }

  /** Resolves once at least `slots` of the concurrency are free (or the dispatcher stops). */
  private slotsFree(slots: number): Promise<void> {
    const { concurrency } = this.options.dispatch;
    if (concurrency - this.inFlight.size >= slots || !this.isRunning) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.slotWaiter = { slots, resolve };
    });
  }

  private track(event: InboxEvent): void {
    this.hold(event.id, this.processor.process(event, this.lease));
  }

  /** Counts `running` among the events in flight until it ends. */
  private hold(id: string, running: Promise<unknown>): void {
    const work = running
      .catch((error: unknown) => {
        // NOTE: the event stays claimed; its lease expires and it is retried, never lost.
        this.logger.error(`Settling event ${id} failed: ${describeError(error)}`);
      })
      .finally(() => {
        this.inFlight.delete(id);
        const waiter = this.slotWaiter;
        if (waiter && this.options.dispatch.concurrency - this.inFlight.size >= waiter.slots) {
          this.slotWaiter = undefined;
          waiter.resolve();
        }
      });
    this.inFlight.set(id, work);
  }

  /** Waits for the running events to finish, for up to `shutdownTimeoutMs`. */
  private async drain(): Promise<void> {
    const settled = Promise.allSettled([...this.inFlight.values()]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.dispatch.shutdownTimeoutMs);
    });
    await Promise.race([settled, timeout]);
    clearTimeout(timer);
  }

  /** Gives the events still running back to the inbox, without counting the attempt. */
  private async releaseHeld(): Promise<void> {
    const held = [...this.inFlight.keys()];
    held.forEach((id) => this.released.add(id));
    if (held.length === 0) {
      return;
    }
    this.logger.warn(`Giving ${held.length} unfinished event(s) back to the inbox on shutdown`);
    await this.worker.release(held, this.workerId, this.clock.now()).catch((error: unknown) => {
      this.logger.error(`Could not release events on shutdown: ${describeError(error)}`);
    });
  }

  private async renewLeases(): Promise<void> {
    const held = [...this.inFlight.keys()];
    if (held.length === 0) {
      return;
    }
    try {
      await this.worker.extendLease(
        held,
        this.workerId,
        this.options.dispatch.leaseMs,
        this.clock.now(),
      );
    } catch (error) {
      this.logger.warn(`Renewing leases failed: ${describeError(error)}`);
    }
  }
}
