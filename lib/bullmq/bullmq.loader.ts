import { WebhookConfigurationError } from '../core/webhook-errors';
import { BULLMQ_MISSING } from './bullmq.messages';

/** The `bullmq` module. */
export type BullMq = typeof import('bullmq');

/**
 * Loads `bullmq`, an optional peer dependency, when the transport opens.
 * @throws WebhookConfigurationError naming `npm i bullmq` when it is not installed.
 */
export function loadBullMq(
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  load: (id: string) => unknown = (id) => require(id),
): BullMq {
  try {
    return load('bullmq') as BullMq;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    // NOTE: only bullmq itself missing; a module missing inside it is a broken install.
    if (code === 'MODULE_NOT_FOUND' && message.split('\n')[0].includes("'bullmq'")) {
      throw new WebhookConfigurationError(BULLMQ_MISSING);
    }
    throw error;
  }
}
