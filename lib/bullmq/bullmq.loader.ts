import { loadOptionalPeer } from '../core/optional-peer';
import { BULLMQ_MISSING } from './bullmq.messages';

/** The `bullmq` module. */
export type BullMq = typeof import('bullmq');

/**
 * Loads `bullmq`, an optional peer dependency, when the transport opens its queue or worker.
 * @throws WebhookConfigurationError naming `npm i bullmq` when it is not installed.
 */
export function loadBullMq(
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  load: (id: string) => unknown = (id) => require(id),
): BullMq {
  return loadOptionalPeer('bullmq', BULLMQ_MISSING, load);
}
