import { WebhookConfigurationError } from './webhook-errors';

/**
 * Loads an optional peer dependency when a feature that needs it is turned on.
 * @throws WebhookConfigurationError with `missing` (which names the install command) when the
 * package itself is not installed; a module missing inside it is a broken install, thrown as is.
 */
export function loadOptionalPeer<T>(id: string, missing: string, load: (id: string) => unknown): T {
  try {
    return load(id) as T;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'MODULE_NOT_FOUND' && message.split('\n')[0].includes(`'${id}'`)) {
      throw new WebhookConfigurationError(missing);
    }
    throw error;
  }
}
