import type { DispatchPauseScope } from '../store/ports/pause-queries.port';
import type { WebhookAlert } from '../telemetry/webhook-alert.interface';
import { safeText } from '../telemetry/safe-text';
import type { AttemptRecord, WebhookTelemetry } from '../telemetry/webhook-telemetry';
import type { DispatchLogger } from './dispatch-logger';
import { ADMIN, CLI, shellWord } from '../telemetry/operator-hints';

/** Longest error a `dispatch_paused` alert carries. */
const MAX_ALERT_ERROR = 500;

/** What the breaker does once a handler has failed too often: pause it, and say so. */
export interface FailureBreakerActions {
  /** Pauses `scope`; false when it was paused already. */
  pause(scope: DispatchPauseScope, reason: string): Promise<boolean>;
  raise(alert: WebhookAlert): void;
}

/**
 * Pauses a handler on an endpoint once it has failed `threshold` attempts in a row in this
 * process (`dispatch.pauseAfterFailures`), so the events of a handler whose downstream system
 * is down wait instead of going dead; a success starts the count again, and so does the pause.
 */
export class FailureBreaker {
  private readonly failures = new Map<string, number>();
  private unsubscribe?: () => void;

  constructor(
    private readonly threshold: number,
    private readonly telemetry: Pick<WebhookTelemetry, 'subscribe'>,
    private readonly actions: FailureBreakerActions,
    private readonly logger: DispatchLogger,
  ) {}

  start(): void {
    if (this.threshold > 0 && !this.unsubscribe) {
      this.unsubscribe = this.telemetry.subscribe({ attempt: (record) => this.onAttempt(record) });
    }
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.failures.clear();
  }

  private onAttempt(record: AttemptRecord): void {
    const key = `${record.endpoint}\u0000${record.handler}`;
    if (record.outcome !== 'failed') {
      this.failures.delete(key);
      return;
    }
    const failures = (this.failures.get(key) ?? 0) + 1;
    if (failures < this.threshold) {
      this.failures.set(key, failures);
      return;
    }
    this.failures.delete(key);
    void this.trip(record, failures);
  }

  private async trip(record: AttemptRecord, failures: number): Promise<void> {
    const error = safeText(record.error ?? 'no error recorded').slice(0, MAX_ALERT_ERROR);
    const scope = { endpoint: record.endpoint, handler: record.handler };
    try {
      const paused = await this.actions.pause(
        scope,
        `${failures} failed attempts in a row; the last: ${error}`,
      );
      if (!paused) {
        return;
      }
    } catch (failure) {
      this.logger.warn(
        `Pausing ${record.handler} on ${record.endpoint} after ${failures} failed attempts failed: ` +
          (failure instanceof Error ? failure.message : String(failure)),
      );
      return;
    }
    this.actions.raise({
      kind: 'dispatch_paused',
      endpoint: record.endpoint,
      provider: record.provider,
      at: new Date(),
      message:
        `Handler ${record.handler} on endpoint "${record.endpoint}" failed ${failures} attempts in a row ` +
        `(the last: ${error}) and is paused: its events are stored and answered and wait. Once the ` +
        `cause is fixed: \`${CLI} resume --endpoint ${shellWord(record.endpoint)} --handler ` +
        `${shellWord(record.handler)}\` (or \`POST ${ADMIN}/resume ${JSON.stringify(scope)}\`).`,
      handler: record.handler,
      failures,
      error,
    });
  }
}
