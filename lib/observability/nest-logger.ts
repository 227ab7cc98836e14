import { Logger } from '@nestjs/common';
import { useWebhooksLogger, WebhooksLogLevel } from './webhooks-logger';

/**
 * In a Nest app the package's lines go through Nest's `Logger`, so `app.useLogger()` applies,
 * levels included: a line of a level the app turned off is not prepared.
 */
export function useNestLogger(): void {
  useWebhooksLogger((context) =>
    Object.assign(new Logger(context), {
      isLevelEnabled: (level: WebhooksLogLevel) => Logger.isLevelEnabled(level),
    }),
  );
}
