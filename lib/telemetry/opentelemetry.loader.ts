import { loadOptionalPeer } from '../core/optional-peer';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { SafeLogger } from './safe-logger';

/** The `@opentelemetry/api` module. */
export type OpenTelemetryApi = typeof import('@opentelemetry/api');

const API = '@opentelemetry/api';

/**
 * Loads `@opentelemetry/api`, an optional peer dependency, for tracing; null when it is not
 * installed, and then nothing is traced. An install that fails to load is warned about and
 * traces nothing either: a delivery never fails for its tracing.
 */
export function loadOpenTelemetry(
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  load: (id: string) => unknown = (id) => require(id),
): OpenTelemetryApi | null {
  try {
    return loadOptionalPeer<OpenTelemetryApi>(API, `${API} is not installed`, load);
  } catch (error) {
    if (!(error instanceof WebhookConfigurationError)) {
      new SafeLogger('WebhookTracing').warn(
        `${API} is installed but failed to load, so nothing is traced: ${(error as Error).message}`,
      );
    }
    return null;
  }
}
