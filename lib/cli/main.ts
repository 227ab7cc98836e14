#!/usr/bin/env node
import 'reflect-metadata';
import { useWebhooksLogger } from '../telemetry/webhooks-logger';
import { runCli } from './cli';
import { processIo } from './cli-io';
import { cliLogger } from './cli-logger';

useWebhooksLogger(() => cliLogger(process.stderr));

void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
  // NOTE: the work is done and the connections closed; a socket some driver keeps alive must
  // not hold the command open.
  setTimeout(() => process.exit(code), 2000).unref();
});
