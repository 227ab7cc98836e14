import type { DataSource } from 'typeorm';
import { WebhookConfigurationError } from '../core/webhook-errors';
import type { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';
import { TypeOrmWebhookStore } from '../store/typeorm-webhook.store';
import type { WebhookStore } from '../store/ports/webhook-store.port';
import { NO_STORE } from './engine.messages';

/**
 * The package's own store: the TypeORM inbox on the app's data source, set up by the options
 * (`storeTimeoutMs`, `storage`, `dispatch.batch`).
 * @throws WebhookConfigurationError when there is no data source to build it on
 */
export function defaultStore(
  dataSource: DataSource | undefined,
  options: ResolvedWebhooksOptions,
): WebhookStore {
  if (!dataSource) {
    throw new WebhookConfigurationError(NO_STORE);
  }
  return new TypeOrmWebhookStore(dataSource, {
    storeTimeoutMs: options.storeTimeoutMs,
    ...options.storage,
    ...(options.dispatch.batch ? { handlerBatches: options.dispatch.batch } : {}),
  });
}
