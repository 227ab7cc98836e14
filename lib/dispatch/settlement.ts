import { ProviderStatusError } from '../core/webhook-errors';
import { retryDelayMs } from './backoff';
import { describeError, describeFailures } from './handler-failure';
import { NonRetryableError } from './non-retryable.error';

/** The retry settings an event is settled by (`dispatch.retry` in the module options). */
export interface RetryPolicy {
  /** Attempts before an event is dead. */
  readonly maxAttempts: number;
  /** Delay before the second attempt; it doubles with each attempt after that. */
  readonly baseDelayMs: number;
  /** Longest delay between two attempts. */
  readonly maxDelayMs: number;
}

/** A handler that threw on this attempt. */
export interface HandlerFailure {
  /** The handler's ledger key. */
  readonly key: string;
  readonly error: unknown;
  /** When the handler's run began and ended. */
  readonly startedAt: Date;
  readonly finishedAt: Date;
}

/** What one attempt at an event came to, as far as settling it goes. */
export type AttemptResult =
  /** Claimed again past `maxAttempts`: the worker lost its lease on every earlier attempt. */
  | { readonly kind: 'lease-lost' }
  /** No handler is subscribed to the event. */
  | { readonly kind: 'unhandled' }
  /** The handlers due ran; `failures` are those that threw. */
  | {
      readonly kind: 'handled';
      readonly failures: readonly HandlerFailure[];
      /** The handlers' reported outcomes, joined (or null when none reported one). */
      readonly outcome: string | null;
      /** What the provider's API said before the handlers ran, when it was asked. */
      readonly providerStatus: string | null;
    }
  /** Asking the provider about the event failed; `asked` names the question (`Asking stripe about …`). */
  | { readonly kind: 'provider-failed'; readonly asked: string; readonly error: unknown }
  /** The provider has not reached the event's state yet. */
  | { readonly kind: 'provider-pending'; readonly reason: string; readonly providerStatus: string }
  /** The provider reports another final state than the event's: its handlers do not run. */
  | { readonly kind: 'provider-disagrees'; readonly providerStatus: string };

/** The event's new state, and what its row and the telemetry record of it keep. */
export type Settlement =
  | {
      readonly status: 'processed';
      readonly outcome: string | null;
      readonly providerStatus: string | null;
    }
  | { readonly status: 'ignored' }
  | {
      readonly status: 'retrying';
      readonly nextAttemptAt: Date;
      /** `last_error`: the failure with its first frames. */
      readonly error: string;
      /** The failure on one line, for the log and the telemetry. */
      readonly summary: string;
      /** The provider's status to keep on the row; undefined keeps the one it has. */
      readonly providerStatus?: string | null;
    }
  | { readonly status: 'dead'; readonly error: string; readonly summary: string };

/** Where in its life the event is when it is settled. */
export interface SettlementContext {
  /** This attempt's number, from 1. */
  readonly attempt: number;
  readonly now: Date;
  readonly policy: RetryPolicy;
  /** Source of the retry delay's jitter, in [0, 1). */
  readonly random?: () => number;
}

/**
 * Decides what becomes of an event after an attempt: processed, ignored, retrying (and when),
 * or dead. A failure is retried with backoff while attempts are left, unless it says retrying
 * cannot help (`NonRetryableError`, or a provider error that is not retryable).
 */
export function decideSettlement(result: AttemptResult, context: SettlementContext): Settlement {
  switch (result.kind) {
    case 'lease-lost': {
      const reason =
        `Gave up after ${context.policy.maxAttempts} attempts; ` +
        'the last ones never finished (worker lost its lease)';
      return { status: 'dead', error: reason, summary: reason };
    }
    case 'unhandled':
      return { status: 'ignored' };
    case 'provider-disagrees':
      return {
        status: 'processed',
        outcome: 'provider_disagrees',
        providerStatus: result.providerStatus,
      };
    case 'provider-pending':
      return retryOrDie(context, { error: result.reason, summary: result.reason }, true, {
        providerStatus: result.providerStatus,
      });
    case 'provider-failed': {
      const retryable = !(result.error instanceof ProviderStatusError) || result.error.retryable;
      const reason = `${result.asked} failed: ${describeError(result.error)}`;
      return retryOrDie(context, { error: reason, summary: reason }, retryable, {});
    }
    case 'handled':
      return settleHandled(result, context);
  }
}

function settleHandled(
  result: Extract<AttemptResult, { kind: 'handled' }>,
  context: SettlementContext,
): Settlement {
  if (result.failures.length === 0) {
    return { status: 'processed', outcome: result.outcome, providerStatus: result.providerStatus };
  }
  const { summary, detail } = describeFailures(result.failures);
  const retryable = !result.failures.some((failure) => failure.error instanceof NonRetryableError);
  return retryOrDie(context, { error: detail, summary }, retryable, {
    providerStatus: result.providerStatus,
  });
}

function retryOrDie(
  context: SettlementContext,
  failure: { readonly error: string; readonly summary: string },
  retryable: boolean,
  kept: { readonly providerStatus?: string | null },
): Settlement {
  const { attempt, now, policy, random } = context;
  if (!retryable || attempt >= policy.maxAttempts) {
    return { status: 'dead', ...failure };
  }
  const delay = retryDelayMs(attempt, policy.baseDelayMs, policy.maxDelayMs, random);
  return {
    status: 'retrying',
    nextAttemptAt: new Date(now.getTime() + delay),
    ...failure,
    ...kept,
  };
}
