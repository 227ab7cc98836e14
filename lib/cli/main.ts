#!/usr/bin/env node
import 'reflect-metadata';
import { WebhooksLogger, useWebhooksLogger } from '../telemetry/webhooks-logger';
import { runCli } from './cli';
import { CLI_NAME } from './cli-command';
import { processIo } from './cli-io';

/**
 * In the CLI the package's warnings and errors go to stderr and its progress notes are dropped,
 * so stdout holds only the command's output.
 */
const stderrLogger: WebhooksLogger = {
  log: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
  warn: (message: unknown) => process.stderr.write(`${CLI_NAME}: warning: ${String(message)}\n`),
  error: (message: unknown) => process.stderr.write(`${CLI_NAME}: ${String(message)}\n`),
  fatal: (message: unknown) => process.stderr.write(`${CLI_NAME}: ${String(message)}\n`),
};

useWebhooksLogger(() => stderrLogger);

void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
  // NOTE: the work is done and the connections closed; a socket some driver keeps alive must
  // not hold the command open.
  setTimeout(() => process.exit(code), 2000).unref();
});
