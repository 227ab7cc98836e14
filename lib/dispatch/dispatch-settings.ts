import type { WebhookEndpoint } from '../providers/webhook-provider.interface';
import type { HandlerBatchSettings } from '../store/ledger/handler-batches';

/** How fresh events settle on the answer path (`dispatch.inline`, resolved). */
export interface InlineSettings {
  /** How long a delivery's transaction runs handlers before it commits and answers, in ms. */
  readonly boundMs: number;
  /** A handler whose runs lately took longer than this on average runs in the background. */
  readonly slowHandlerMs: number;
}

/** How claimed events run, every default filled in (`dispatch` of the module options). */
export interface ResolvedDispatchOptions {
  readonly enabled: boolean;
  readonly concurrency: number;
  readonly pollIntervalMs: number;
  readonly leaseMs: number;
  readonly shutdownTimeoutMs: number;
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Null: each handler run commits on its own. */
  readonly batch: HandlerBatchSettings | null;
  /** Null: fresh events are stored, answered, and handled in the background. */
  readonly inline: InlineSettings | null;
  /** Consecutive failed attempts of a handler on an endpoint that pause it; 0 never. */
  readonly pauseAfterFailures: number;
}

/** What the claim loop, the processor and a transport read of the resolved options. */
export interface DispatchSettings {
  readonly endpoints: ReadonlyMap<string, WebhookEndpoint>;
  readonly dispatch: ResolvedDispatchOptions;
}
