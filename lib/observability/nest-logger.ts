import { Logger } from '@nestjs/common';
import { useWebhooksLogger } from './webhooks-logger';

/** In a Nest app the package's lines go through Nest's `Logger`, so `app.useLogger()` applies. */
export function useNestLogger(): void {
  useWebhooksLogger((context) => new Logger(context));
}
