import { WebhookHandlerRegistry } from '../handlers/webhook-handler.registry';
import type { WebhookEndpoint } from '../providers/webhook-provider.interface';
import type { WebhookTelemetry } from '../telemetry/webhook-telemetry';
import type { InboxWriter } from '../store/ports';
import type { NewWebhookEvent, RecordResult } from '../store/ports/inbox-writer.port';
import type { ResolvedDispatchOptions } from './dispatch-settings';
import type { WebhookTransport } from './webhook-transport';
import { asksProvider, InlineAttempt, WebhookEventProcessor } from './webhook-event.processor';
import type { WebhookDispatcher } from './webhook.dispatcher';

/** What {@link InlineDispatch.record} stored, and the handlers that ran to the end before the answer. */
export interface InlineRecorded extends RecordResult {
  /** By key, in the order they ran; empty when none did (a duplicate, or an event left queued). */
  readonly handled: readonly string[];
}

/**
 * Settling on the answer path (`dispatch.inline`): the ingress hands it a fresh event, and it
 * has the store keep the event and run its handlers in one transaction before the answer; what
 * that attempt leaves unfinished goes on under the in-process worker's lease. An event it does
 * not take is for the caller to record as usual.
 */
export class InlineDispatch {
  private readonly pace = new HandlerPace();

  constructor(
    private readonly settings: {
      readonly dispatch: Pick<ResolvedDispatchOptions, 'inline'> & {
        readonly transport: WebhookTransport | null;
      };
    },
    private readonly store: InboxWriter,
    private readonly registry: WebhookHandlerRegistry,
    private readonly processor: WebhookEventProcessor,
    private readonly dispatcher: WebhookDispatcher,
    telemetry: Pick<WebhookTelemetry, 'subscribe'>,
  ) {
    if (settings.dispatch.inline) {
      telemetry.subscribe({ attempt: (run) => this.pace.note(run.handler, run.durationMs) });
    }
  }

  /**
   * Stores `event` of a delivery to `endpoint` and runs its handlers before the answer;
   * undefined, with nothing stored, when the event is not to be settled on the answer path:
   * inline settling off, no handler, a handler paused or lately slower than `slowHandlerMs`, an
   * endpoint that asks the provider, handlers running elsewhere, or the store unable to take it
   * now.
   */
  async record(
    endpoint: WebhookEndpoint,
    event: NewWebhookEvent,
  ): Promise<InlineRecorded | undefined> {
    const { inline, transport } = this.settings.dispatch;
    if (
      !inline ||
      transport !== null ||
      !this.store.recordInline ||
      event.status !== 'pending' ||
      !this.dispatcher.running ||
      asksProvider(endpoint, event.type)
    ) {
      return undefined;
    }
    const handlers = this.registry.match(event);
    if (
      handlers.length === 0 ||
      handlers.some((handler) => this.pace.slowerThan(handler.key, inline.slowHandlerMs))
    ) {
      return undefined;
    }
    const handlerKeys = handlers.map((handler) => handler.key);
    if ((await this.processor.pauses.held(event.endpoint, handlerKeys)).size > 0) {
      return undefined;
    }
    let attempt: InlineAttempt | undefined;
    const request = { boundMs: inline.boundMs, handlerKeys };
    const recorded = await this.store.recordInline(event, request, async (session) => {
      attempt = await this.processor.runInline(
        session,
        endpoint,
        handlers,
        this.dispatcher.workerId,
      );
      return attempt.end;
    });
    const ran = attempt;
    if (!recorded) {
      return undefined;
    }
    if (!recorded.end || !ran) {
      return { ...recorded, handled: [] };
    }
    if (ran.end.kind === 'held') {
      this.dispatcher.adopt(ran.entity.id, (lease) => this.processor.continueInline(ran, lease));
    } else {
      this.processor.reportInline(ran);
    }
    return { ...recorded, handled: ran.ran?.completed ?? [] };
  }
}

/**
 * How long each handler's runs have lately taken in this process, inline or in the background: a
 * moving average over its runs (each new run weighs a fifth), so a handler that turns slow leaves
 * the answer path within a few runs, and comes back once its background runs are quick again.
 */
class HandlerPace {
  private readonly averageMs = new Map<string, number>();

  note(handlerKey: string, ms: number): void {
    const average = this.averageMs.get(handlerKey);
    this.averageMs.set(handlerKey, average === undefined ? ms : average + (ms - average) / 5);
  }

  slowerThan(handlerKey: string, ms: number): boolean {
    return (this.averageMs.get(handlerKey) ?? 0) > ms;
  }
}
