import { InboxWorker, WebhookDispatcher, WebhookTelemetry } from 'nestjs-payment-webhooks';
import {
  InboxSignal,
  ResolvedWebhooksOptions,
  SafeLogger,
  WebhookEventProcessor,
  WebhookHandlerRegistry,
  WEBHOOKS_RESOLVED_OPTIONS,
} from './internals';
import { TestApp } from './test-app';

/** What a worker assembled by hand is built from, besides the app's inbox. */
export interface AssembledWorkerParts {
  /** The function handlers it runs. */
  readonly registry: WebhookHandlerRegistry;
  /** What wakes it on an insert instead of its next poll. */
  readonly signal: InboxSignal;
  /** Dispatch options laid over the app's resolved ones. */
  readonly dispatch?: Partial<ResolvedWebhooksOptions['dispatch']>;
}

/**
 * A dispatcher assembled from its parts, the way an app without Nest assembles it, on the
 * inbox of `app` (started with `dispatch.enabled: false`, so this is the only worker): the
 * inbox's worker port, a registry holding function handlers, and the app's resolved options.
 * It is started; the spec stops it.
 */
export function startAssembledWorker(app: TestApp, parts: AssembledWorkerParts): WebhookDispatcher {
  const resolved = app.app.get<ResolvedWebhooksOptions>(WEBHOOKS_RESOLVED_OPTIONS);
  const options = { ...resolved, dispatch: { ...resolved.dispatch, ...parts.dispatch } };
  const worker = app.app.get<InboxWorker>(InboxWorker);
  const logger = new SafeLogger('WebhookDispatcher');
  const processor = new WebhookEventProcessor(
    worker,
    parts.registry,
    options,
    new WebhookTelemetry(),
    logger,
  );
  const dispatcher = new WebhookDispatcher(worker, processor, parts.signal, options, logger);
  dispatcher.start();
  return dispatcher;
}
