import type { EntityManager } from 'typeorm';
import { RegisteredWebhookHandler } from '../handlers/webhook-handler.registry';
import { PaymentEvent, WebhookContext } from '../handlers/payment-event.interface';
import { ProviderPaymentStatus } from '../providers/payment-status-client.interface';
import { WebhookEndpoint } from '../providers/webhook-provider.interface';
import { SafeLogger } from '../telemetry/safe-logger';
import { WebhookTelemetry } from '../telemetry/webhook-telemetry';
import { storedTraceParent, TraceParent } from '../telemetry/trace-context';
import { webhookTracing, WebhookTracing } from '../telemetry/tracing';
import type { InboxEvent } from '../store/ports/inbox-event';
import type { RunLedger, WorkQueue } from '../store/ports';
import { HandlerRunOutcome, HandlerSettlement } from '../store/ports/inbox-worker.port';
import { InlineRunDeferred } from '../store/ports/inline-run';
import { Clock } from './clock';
import { DispatchLogger } from './dispatch-logger';
import { describeError, describeWithStack } from './handler-failure';
import { HandlerFailure } from './settlement';
import { ProviderLookups } from './provider-lookups';
import { handlerIdempotencyKey, tenantOf, toPaymentEvent } from './stored-event';

/** One event's handlers to run on this attempt. */
export interface HandlerRunsInput {
  /**
   * The row as claimed. Handlers get its values as stored, never a value its columns could not
   * take (a NUL, an over-long id): what they write back from it fits the package's columns.
   */
  readonly entity: InboxEvent;
  readonly endpoint: WebhookEndpoint | undefined;
  readonly attempt: number;
  /** The event's handlers, in registration order. */
  readonly handlers: readonly RegisteredWebhookHandler[];
  /** The ledger as read before the run, when it was. */
  readonly finished?: ReadonlyMap<string, string | null>;
  /** The provider's answer, when it was asked and confirmed the event. */
  readonly verified: ProviderPaymentStatus | null;
  readonly workerId: string;
  /** Whether the event was given back to the inbox (shutdown) since it was claimed. */
  readonly released: () => boolean;
  /**
   * Whether a handler of the event is held by a pause: then no run marks the event processed,
   * even when every handler that ran succeeded.
   */
  readonly paused?: boolean;
  /**
   * Runs each handler instead of the worker's `runHandler()`: inside the delivery's transaction
   * when the event settles on the answer path (see `InlineSession`).
   */
  readonly runHandler?: RunLedger['runHandler'];
  /**
   * Whether the runs that end well are named on the delivery's journal line (settling on the
   * answer path) rather than logged one line each; failures and cut-off runs still are.
   */
  readonly journaled?: boolean;
}

/** How the handlers of one event ran. */
export interface HandlerRunsResult {
  /** True when the last handler's transaction also marked the event processed. */
  readonly settled: boolean;
  /** The handlers that threw. */
  readonly failures: readonly HandlerFailure[];
  /** The outcomes the handlers reported (now and on earlier attempts), sorted and joined. */
  readonly outcome: string | null;
  /** The handlers that ran to the end in this attempt, by key (not those the ledger already had). */
  readonly completed: readonly string[];
  /**
   * Set when a handler's run did not count and the handlers after it did not start (see
   * {@link InlineRunDeferred}): ends when that run's code has returned.
   */
  readonly deferred?: Promise<unknown>;
}

/** The outcomes handlers of one event reported, as kept on the event. */
class Outcomes {
  private readonly values = new Set<string>();

  add(value: string | null | undefined): void {
    if (value !== undefined && value !== null) {
      this.values.add(value);
    }
  }

  summary(extra?: string): string | null {
    const all = extra === undefined ? this.values : new Set([...this.values, extra]);
    return all.size > 0 ? [...all].sort().join(',') : null;
  }
}

/**
 * Runs an event's handlers that are not in the ledger yet, each in its own transaction with its
 * ledger row, in order; a failing handler does not stop the ones after it.
 */
export class HandlerRuns {
  constructor(
    private readonly worker: RunLedger & Pick<WorkQueue, 'values'>,
    private readonly telemetry: Pick<WebhookTelemetry, 'attempt'>,
    private readonly logger: DispatchLogger,
    private readonly clock: Clock,
    private readonly tracing: WebhookTracing = webhookTracing,
  ) {}

  async run(input: HandlerRunsInput): Promise<HandlerRunsResult> {
    const { entity, handlers, verified } = input;
    const { event, lookups, trace } = this.prepared(input);
    const failures: HandlerFailure[] = [];
    const outcomes = new Outcomes();
    const completed: string[] = [];
    let finished = input.finished;
    finished?.forEach((outcome) => outcomes.add(outcome));
    for (const [index, handler] of handlers.entries()) {
      if (finished?.has(handler.key)) {
        continue;
      }
      // NOTE: when every handler before it succeeded, the last one marks the event processed
      // in its own transaction: one commit per event instead of two.
      const last =
        index === handlers.length - 1 &&
        failures.length === 0 &&
        !input.paused &&
        !input.released();
      const settle: HandlerSettlement | undefined = last
        ? {
            workerId: input.workerId,
            result: (reported) => ({
              outcome: outcomes.summary(reported),
              providerStatus: verified?.status ?? null,
            }),
          }
        : undefined;
      const startedAt = this.clock.now();
      try {
        const { outcome, reported } = await this.runOne(
          input,
          event,
          lookups,
          handler,
          settle,
          trace,
        );
        if (outcome === 'already_done') {
          finished = await this.worker.finishedHandlers(entity.id);
          outcomes.add(finished.get(handler.key));
        } else {
          outcomes.add(reported);
          completed.push(handler.key);
        }
        if (outcome === 'ran_and_settled') {
          return { settled: true, failures, outcome: outcomes.summary(), completed };
        }
      } catch (error) {
        if (error instanceof InlineRunDeferred) {
          return {
            settled: false,
            failures,
            outcome: outcomes.summary(),
            completed,
            deferred: error.first,
          };
        }
        failures.push({ key: handler.key, error, startedAt, finishedAt: this.clock.now() });
      }
    }
    return { settled: false, failures, outcome: outcomes.summary(), completed };
  }

  /**
   * Runs one handler of an event alone, through `input.runHandler` (a backfill's transaction),
   * leaving the event's status as it is; rethrows the handler's error.
   */
  async runAlone(
    input: HandlerRunsInput,
    handler: RegisteredWebhookHandler,
  ): Promise<HandlerRunOutcome> {
    const { event, lookups, trace } = this.prepared(input);
    const { outcome } = await this.runOne(input, event, lookups, handler, undefined, trace);
    return outcome;
  }

  /** The event as its handlers get it, its lookups of the provider and its stored trace context. */
  private prepared(input: HandlerRunsInput): {
    event: PaymentEvent;
    lookups: ProviderLookups;
    trace: TraceParent | undefined;
  } {
    const { entity, endpoint, attempt, verified } = input;
    const event = toPaymentEvent(entity, endpoint, attempt, verified, this.worker.values);
    const lookups = new ProviderLookups(entity.endpoint, endpoint, () => ({
      paymentRef: event.paymentRef,
      merchantRef: event.merchantRef,
      type: event.type,
      nativeType: event.nativeType,
      payload: event.payload,
      account: event.account,
    }));
    return { event, lookups, trace: storedTraceParent(entity.headers) };
  }

  /**
   * Runs one handler in its ledger transaction, under the attempt's span when one records (a
   * child of the event's stored trace context, `trace`), reporting the attempt; rethrows its
   * error.
   */
  private async runOne(
    input: HandlerRunsInput,
    event: PaymentEvent,
    lookups: ProviderLookups,
    handler: RegisteredWebhookHandler,
    settle: HandlerSettlement | undefined,
    trace: TraceParent | undefined,
  ): Promise<{ outcome: HandlerRunOutcome; reported: string | undefined }> {
    const { entity, attempt } = input;
    const started = this.clock.now().getTime();
    const span = this.tracing.attempt(trace, {
      inboxId: entity.id,
      endpoint: entity.endpoint,
      tenant: tenantOf(entity),
      provider: entity.provider,
      eventId: entity.eventId,
      type: entity.type,
      handler: handler.key,
      attempt,
    });
    const traceId = span?.traceId ?? trace?.traceId;
    let reported: string | undefined;
    const runHandler = input.runHandler ?? this.worker.runHandler.bind(this.worker);
    const run = () =>
      runHandler(
        entity.id,
        handler.key,
        attempt,
        async (manager) => {
          reported = undefined;
          await handler.invoke(
            event,
            this.context(input, lookups, handler.key, manager, traceId, (value: string) => {
              reported = String(value).slice(0, 64);
            }),
          );
          return reported;
        },
        settle,
      );
    try {
      const outcome = await (span ? span.within(run) : run());
      const ms = this.clock.now().getTime() - started;
      const summary = outcome === 'already_done' ? outcome : (reported ?? 'ran');
      span?.end(summary);
      this.report(entity, handler, attempt, summary, ms);
      if (!input.journaled) {
        this.logger.debug(
          `event=${entity.id} handler=${handler.key} attempt=${attempt} outcome=${reported ?? outcome} ms=${ms}`,
        );
      }
      return { outcome, reported };
    } catch (error) {
      const ms = this.clock.now().getTime() - started;
      if (error instanceof InlineRunDeferred) {
        // NOTE: not a failure: the run goes on in the background, where its attempt is reported.
        span?.end('deferred');
        this.logger.debug(
          `event=${entity.id} handler=${handler.key} attempt=${attempt} outcome=deferred ms=${ms}`,
        );
        throw error;
      }
      span?.fail(error);
      this.report(entity, handler, attempt, 'failed', ms, describeError(error));
      this.logger.warn(
        `event=${entity.id} handler=${handler.key} attempt=${attempt} outcome=failed ` +
          `ms=${ms} error=${JSON.stringify(describeWithStack(error))}`,
      );
      throw error;
    }
  }

  /** `ctx` for one handler's run in the transaction of `manager`. */
  private context(
    input: HandlerRunsInput,
    lookups: ProviderLookups,
    handlerKey: string,
    manager: EntityManager,
    traceId: string | undefined,
    recordOutcome: (outcome: string) => void,
  ): WebhookContext {
    const { entity, attempt } = input;
    return {
      manager,
      attempt,
      idempotencyKey: handlerIdempotencyKey(entity, handlerKey),
      logger: new SafeLogger(`Webhooks:${handlerKey}`),
      get account() {
        return lookups.account;
      },
      tenant: tenantOf(entity),
      traceId,
      fetchStatus: () => lookups.status(),
      fetchEvent: () => lookups.fetchEvent(),
      fetchRelatedObject: () => lookups.fetchRelatedObject(),
      recordOutcome,
    };
  }

  private report(
    entity: InboxEvent,
    handler: RegisteredWebhookHandler,
    attempt: number,
    outcome: string,
    durationMs: number,
    error?: string,
  ): void {
    this.telemetry.attempt({
      id: entity.id,
      endpoint: entity.endpoint,
      provider: entity.provider,
      type: entity.type,
      eventId: entity.eventId,
      handler: handler.key,
      attempt,
      outcome,
      durationMs,
      ...(error === undefined ? {} : { error }),
    });
  }
}
