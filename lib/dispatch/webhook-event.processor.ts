import { isPaymentEventType } from '../core/payment-event-types';
import {
  RegisteredWebhookHandler,
  WebhookHandlerRegistry,
} from '../handlers/webhook-handler.registry';
import { WebhookTelemetry } from '../telemetry/webhook-telemetry';
import {
  PaymentStatusClient,
  ProviderPaymentStatus,
} from '../providers/payment-status-client.interface';
import { WebhookEndpoint } from '../providers/webhook-provider.interface';
import { endpointOfEvent } from '../tenants/tenant-endpoint';
import type { InboxEvent } from '../store/ports/inbox-event';
import type { EventOutcomes, RunLedger, WorkQueue } from '../store/ports';
import type { FailedAttempt } from '../store/ports/event-history';
import type { DispatchSettings } from './dispatch-settings';
import { Clock, systemClock } from './clock';
import { DispatchLogger } from './dispatch-logger';
import { DispatchPauses } from './dispatch-pauses';
import { errorClassOf, errorFingerprint, readableError } from './error-fingerprint';
import { HandlerRuns, HandlerRunsResult } from './handler-runs';
import type { InlineEnd, InlineSession } from '../store/ports/inline-run';
import { providerConfirms } from './provider-answer';
import { AttemptResult, decideSettlement, Settlement } from './settlement';
import { fetchedStatusOf, statusQuery } from './stored-event';

/** The options one event is processed by. */
export type EventProcessingOptions = DispatchSettings;

/** The claim an event is processed under. */
export interface EventLease {
  /** The worker holding the event. */
  readonly workerId: string;
  /** Whether the event was given back to the inbox (shutdown) since it was claimed. */
  released(id: string): boolean;
}

/** What the ledger and the provider said before the handlers run. */
type Preparation =
  | {
      readonly finished?: ReadonlyMap<string, string | null>;
      readonly verified: ProviderPaymentStatus | null;
    }
  | { readonly result: AttemptResult };

/** An event's attempt inside the transaction that stored it, as `runInline()` ran it. */
export interface InlineAttempt {
  readonly entity: InboxEvent;
  readonly startedAt: Date;
  readonly end: InlineEnd;
  readonly ran?: HandlerRunsResult;
}

/** Payment and refund events can be checked against the provider; disputes and natives are not. */
function isVerifiable(type: string): boolean {
  return isPaymentEventType(type) && (type.startsWith('payment.') || type.startsWith('refund.'));
}

/** Whether an event of `type` at `endpoint` is checked with the provider's API before its handlers run. */
export function asksProvider(endpoint: WebhookEndpoint | undefined, type: string): boolean {
  return Boolean(endpoint?.verifyWithProvider && endpoint.statusClient && isVerifiable(type));
}

/**
 * Processes one claimed event: checks it with the provider when its endpoint asks for that,
 * runs each handler not yet in the ledger, and settles the event as {@link decideSettlement}
 * decides: processed, ignored, retrying with backoff, or dead.
 */
export class WebhookEventProcessor {
  private readonly runs: HandlerRuns;
  /** The pauses of dispatch, as read from the store. */
  readonly pauses: DispatchPauses;

  constructor(
    private readonly worker: RunLedger &
      EventOutcomes &
      Pick<WorkQueue, 'park' | 'pauses' | 'values'>,
    private readonly registry: WebhookHandlerRegistry,
    private readonly options: EventProcessingOptions,
    private readonly telemetry: Pick<WebhookTelemetry, 'attempt' | 'settled'>,
    private readonly logger: DispatchLogger,
    private readonly clock: Clock = systemClock,
  ) {
    this.runs = new HandlerRuns(worker, telemetry, logger, clock);
    this.pauses = new DispatchPauses(() => worker.pauses(), clock);
  }

  async process(entity: InboxEvent, lease: EventLease): Promise<Settlement | void> {
    const startedAt = this.clock.now();
    let endpoint: WebhookEndpoint | undefined;
    try {
      endpoint = await endpointOfEvent(this.options.endpoints, entity);
    } catch (error) {
      const asked = `Resolving tenant "${entity.tenant}" of endpoint "${entity.endpoint}"`;
      return this.settle(entity, entity.attempts, lease, startedAt, {
        kind: 'provider-failed',
        asked,
        error,
      });
    }
    const attempt = entity.attempts;
    if (attempt > this.options.dispatch.maxAttempts) {
      // NOTE: only reachable through expired leases: the worker died on every attempt.
      return this.settle(entity, attempt, lease, startedAt, { kind: 'lease-lost' });
    }
    const matched = this.registry.match(entity);
    if (matched.length === 0) {
      return this.settle(entity, attempt, lease, startedAt, { kind: 'unhandled' });
    }
    const held = await this.pauses.held(
      entity.endpoint,
      matched.map((handler) => handler.key),
    );
    const handlers = matched.filter((handler) => !held.has(handler.key));
    if (handlers.length === 0) {
      return this.park(entity, lease, held);
    }
    const prepared = await this.prepare(entity, endpoint, handlers);
    if ('result' in prepared) {
      return this.settle(entity, attempt, lease, startedAt, prepared.result);
    }
    const ran = await this.runs.run({
      entity,
      endpoint,
      attempt,
      handlers,
      finished: prepared.finished,
      verified: prepared.verified,
      workerId: lease.workerId,
      released: () => lease.released(entity.id),
      paused: held.size > 0,
    });
    if (ran.settled) {
      this.reportSettled(entity, attempt, { status: 'processed', outcome: ran.outcome });
      return {
        status: 'processed',
        outcome: ran.outcome,
        providerStatus: prepared.verified?.status ?? null,
      };
    }
    if (lease.released(entity.id)) {
      // NOTE: given back on shutdown; the handler transactions that still commit are in the
      // ledger, and the next worker settles the event.
      return;
    }
    if (held.size > 0 && ran.failures.length === 0) {
      return this.park(entity, lease, held);
    }
    return this.settle(entity, attempt, lease, startedAt, {
      kind: 'handled',
      failures: ran.failures,
      outcome: ran.outcome,
      providerStatus: prepared.verified?.status ?? null,
    });
  }

  /**
   * Runs a fresh event's `handlers` inside the transaction that stores it (see
   * {@link InlineSession}), at attempt 1, for `workerId`. An event whose payment has an earlier
   * event still to run is left queued, before any handler runs.
   */
  async runInline(
    session: InlineSession,
    endpoint: WebhookEndpoint,
    handlers: readonly RegisteredWebhookHandler[],
    workerId: string,
  ): Promise<InlineAttempt> {
    const entity = session.event;
    const startedAt = this.clock.now();
    if (endpoint.orderPerPayment && entity.paymentRef !== null) {
      if (await session.earlierUnsettled()) {
        return { entity, startedAt, end: { kind: 'queued' } };
      }
    }
    const ran = await this.runs.run({
      entity,
      endpoint,
      attempt: entity.attempts,
      handlers,
      verified: null,
      workerId,
      released: () => false,
      runHandler: session.runHandler,
      journaled: true,
    });
    const end: InlineEnd =
      ran.failures.length === 0 && ran.deferred === undefined
        ? { kind: 'processed', outcome: ran.outcome }
        : { kind: 'held', workerId, leaseMs: this.options.dispatch.leaseMs };
    return { entity, startedAt, end, ran };
  }

  /** Reports an inline attempt that processed its event, once its transaction committed. */
  reportInline({ entity, end }: InlineAttempt): void {
    if (end.kind === 'processed') {
      this.reportSettled(entity, entity.attempts, { status: 'processed', outcome: end.outcome });
    }
  }

  /**
   * Goes on with an inline attempt that left its event held, once its transaction committed,
   * under `lease`: a deferred run's event is processed on once that run has returned; else the
   * event is settled with the failures, as any attempt is.
   */
  async continueInline(
    { entity, startedAt, ran }: InlineAttempt,
    lease: EventLease,
  ): Promise<Settlement | void> {
    if (ran?.deferred) {
      await ran.deferred.catch(() => undefined);
      return this.process(entity, lease);
    }
    return this.settle(entity, entity.attempts, lease, startedAt, {
      kind: 'handled',
      failures: ran?.failures ?? [],
      outcome: ran?.outcome ?? null,
      providerStatus: null,
    });
  }

  /**
   * Reads the ledger and asks the provider when the endpoint checks events with it and a
   * handler is still to run; the provider's answer settles the event when it does not confirm it.
   */
  private async prepare(
    entity: InboxEvent,
    endpoint: WebhookEndpoint | undefined,
    handlers: readonly RegisteredWebhookHandler[],
  ): Promise<Preparation> {
    // NOTE: the ledger is read up front only when it decides whether to ask the provider;
    // otherwise a handler already in it reports 'already_done' and its outcome is read then.
    if (!endpoint?.statusClient || !asksProvider(endpoint, entity.type)) {
      return { verified: null };
    }
    const finished = await this.worker.finishedHandlers(entity.id);
    if (handlers.every((handler) => finished.has(handler.key))) {
      return { finished, verified: null };
    }
    const asked = await this.askProvider(entity, endpoint, endpoint.statusClient);
    return 'result' in asked ? asked : { finished, verified: asked.verified };
  }

  /**
   * The provider's answer when it confirms the event (the same state, or a later one reached
   * only through it); otherwise what that means for the event: retried while the provider
   * cannot answer or is not there yet, dead when it never will, processed as
   * `provider_disagrees` when it reports another final state. An event stored as the payment
   * the provider's API returned at receipt is that answer: the API is not asked again.
   */
  private async askProvider(
    entity: InboxEvent,
    endpoint: WebhookEndpoint,
    client: PaymentStatusClient,
  ): Promise<{ readonly verified: ProviderPaymentStatus } | { readonly result: AttemptResult }> {
    const label = eventLabel(entity);
    let answer: ProviderPaymentStatus;
    try {
      answer =
        fetchedStatusOf(entity, endpoint, this.worker.values) ??
        (await client.fetchStatus(statusQuery(entity, endpoint, this.worker.values)));
    } catch (error) {
      return {
        result: { kind: 'provider-failed', asked: `Asking ${client.kind} about ${label}`, error },
      };
    }
    if (providerConfirms(entity.type, answer.type)) {
      return { verified: answer };
    }
    if (answer.type === undefined) {
      const reason = `${client.kind} reports status "${answer.status}" for ${answer.paymentRef}, not yet ${entity.type}`;
      return { result: { kind: 'provider-pending', reason, providerStatus: answer.status } };
    }
    this.logger.warn(
      `Event ${entity.id} (${label}) says ${entity.type} but ${client.kind} reports ` +
        `"${answer.status}" (${answer.type}) for ${answer.paymentRef}; handlers not run`,
    );
    return { result: { kind: 'provider-disagrees', providerStatus: answer.status } };
  }

  /**
   * Gives an event back, its attempt not counted, until the pauses that hold its handlers
   * (`held`) are lifted: the handlers that are not held have run.
   */
  private async park(
    entity: InboxEvent,
    lease: EventLease,
    held: ReadonlySet<string>,
  ): Promise<void> {
    const parked = await this.worker.park(
      entity.id,
      lease.workerId,
      entity.endpoint,
      [...held],
      this.clock.now(),
    );
    if (parked === false) {
      // NOTE: lifted since this process last read the pauses: read them again before the
      // event, due now, is claimed again.
      this.pauses.forget();
    }
    this.logger.debug(
      `event=${entity.id} ${parked ? 'parked' : 'not parked'}: dispatch paused for ${[...held].join(', ')} on ${entity.endpoint}`,
    );
  }

  /** Decides the event's new state, writes it to the inbox and reports it. */
  private async settle(
    entity: InboxEvent,
    attempt: number,
    lease: EventLease,
    startedAt: Date,
    result: AttemptResult,
  ): Promise<Settlement> {
    const now = this.clock.now();
    const settlement = decideSettlement(result, {
      attempt,
      now,
      policy: this.options.dispatch,
    });
    const { workerId } = lease;
    const failed =
      settlement.status === 'retrying' || settlement.status === 'dead'
        ? failedAttempts(result, settlement.summary, attempt, startedAt, now, workerId)
        : [];
    switch (settlement.status) {
      case 'processed': {
        const { outcome, providerStatus } = settlement;
        await this.worker.markProcessed(entity.id, workerId, now, { outcome, providerStatus });
        break;
      }
      case 'ignored':
        await this.worker.markIgnored(entity.id, workerId, now);
        break;
      case 'retrying':
        await this.worker.scheduleRetry(
          entity.id,
          workerId,
          settlement.nextAttemptAt,
          settlement.error,
          { providerStatus: settlement.providerStatus },
          failed,
        );
        break;
      case 'dead':
        await this.worker.markDead(entity.id, workerId, settlement.error, failed);
        break;
    }
    this.reportSettled(entity, attempt, settlement, failed);
    if (settlement.status === 'dead') {
      this.logger.error(
        `Event ${entity.id} (${eventLabel(entity)}) is dead${deathNote(result, attempt, settlement.summary)}`,
      );
    }
    return settlement;
  }

  private reportSettled(
    entity: InboxEvent,
    attempt: number,
    settlement: Settlement | { readonly status: 'processed'; readonly outcome: string | null },
    failed: readonly FailedAttempt[] = [],
  ): void {
    this.telemetry.settled({
      id: entity.id,
      endpoint: entity.endpoint,
      provider: entity.provider,
      type: entity.type,
      eventId: entity.eventId,
      paymentRef: entity.paymentRef,
      status: settlement.status,
      attempt,
      ageMs: this.clock.now().getTime() - entity.receivedAt.getTime(),
      ...(settlement.status === 'processed' ? { outcome: settlement.outcome } : {}),
      ...(settlement.status === 'retrying' || settlement.status === 'dead'
        ? {
            error: settlement.summary,
            failures: failed.map(({ handlerKey, errorClass, fingerprint }) => ({
              handler: handlerKey,
              errorClass,
              fingerprint,
            })),
          }
        : {}),
    });
  }
}

/** An event as log lines name it: `stripe/evt_1`, and `merchants/acme/evt_1` at a tenant endpoint. */
function eventLabel(entity: InboxEvent): string {
  return [entity.endpoint, entity.tenant, entity.eventId].filter((part) => part !== '').join('/');
}

/** The end of the "is dead" log line: why, as each path has always said it. */
function deathNote(result: AttemptResult, attempt: number, summary: string): string {
  switch (result.kind) {
    case 'lease-lost':
      return '';
    case 'handled':
      return ` after ${attempt} attempt(s): ${summary}`;
    default:
      return `: ${summary}`;
  }
}

/** What the history keeps of an attempt that failed: one row per handler that threw, or one for the event. */
function failedAttempts(
  result: AttemptResult,
  summary: string,
  attempt: number,
  startedAt: Date,
  finishedAt: Date,
  worker: string,
): FailedAttempt[] {
  const failure = (handlerKey: string | null, error: unknown, prefix = '') => ({
    handlerKey,
    attempt,
    errorClass: errorClassOf(error),
    error: prefix + readableError(error),
    fingerprint: errorFingerprint(error),
    worker,
  });
  switch (result.kind) {
    case 'handled':
      return result.failures.map((f) => ({
        ...failure(f.key, f.error),
        startedAt: f.startedAt,
        finishedAt: f.finishedAt,
      }));
    case 'provider-failed':
      return [
        { ...failure(null, result.error, `${result.asked} failed: `), startedAt, finishedAt },
      ];
    case 'provider-pending':
    case 'lease-lost':
      return [
        { ...failure(null, new DispatchFailure(result.kind, summary)), startedAt, finishedAt },
      ];
    default:
      return [];
  }
}

/**
 * A failure of the attempt as a whole, not of a handler: `provider-pending` (the provider has
 * not reached the event's state yet) or `lease-lost` (every attempt's worker lost its lease).
 */
class DispatchFailure extends Error {
  override readonly stack = undefined;

  constructor(kind: 'provider-pending' | 'lease-lost', message: string) {
    super(message);
    this.name = kind === 'lease-lost' ? 'LeaseLost' : 'ProviderPending';
  }
}
