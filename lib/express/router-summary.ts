import { routeOf, startupSummary, SummarizedEngine } from '../engine/startup-summary';
import { SafeLogger } from '../telemetry/safe-logger';
import { MOUNT_PATH_UNKNOWN, NO_HANDLER_LISTENS, NOT_STARTED } from './express.messages';

const logger = new SafeLogger('WebhooksRouter');

/**
 * Logs what the Nest module logs at startup, in its words: each endpoint's route (under the
 * mount path, which the router does not know), the handlers its events go to, and where they
 * run. Before `start()` the handlers may still change, so it warns about none then.
 */
export function logRouterSummary(engine: SummarizedEngine, started: boolean): void {
  logger.log(MOUNT_PATH_UNKNOWN);
  const lines = startupSummary(engine, {
    routesOf: (endpoint) => [routeOf(endpoint, `<mount>/${endpoint.name}`)],
    noListeners: NO_HANDLER_LISTENS,
    notStarted: started ? undefined : NOT_STARTED,
  });
  for (const { level, text } of lines) {
    if (started || level === 'log') {
      logger[level](text);
    }
  }
}
