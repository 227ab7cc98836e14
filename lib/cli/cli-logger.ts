import type { WebhooksLogger } from '../telemetry/webhooks-logger';
import { CLI_NAME } from './cli-command';
import type { CliStream } from './cli-io';

/**
 * The package's own lines while a command runs: warnings and errors to `stderr`, progress notes
 * dropped, so stdout holds only the command's output.
 */
export function cliLogger(stderr: CliStream): WebhooksLogger {
  const write = (prefix: string) => (message: unknown) =>
    stderr.write(`${CLI_NAME}: ${prefix}${String(message)}\n`);
  return {
    log: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
    warn: write('warning: '),
    error: write(''),
    fatal: write(''),
  };
}
