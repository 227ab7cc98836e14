import { Logger } from '@nestjs/common';
import { useContextLoggerClass } from '../telemetry/webhooks-logger';

/** In a Nest app the package's lines go through Nest's `Logger`, so `app.useLogger()` applies. */
export function useNestLogger(): void {
  useContextLoggerClass(Logger);
}
