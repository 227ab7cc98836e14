#!/usr/bin/env node
import 'reflect-metadata';
import { Logger, LoggerService } from '@nestjs/common';
import { runCli } from './cli';
import { CLI_NAME } from './cli-command';
import { processIo } from './cli-io';

/**
 * The package's services log through Nest's Logger; in the CLI their warnings and errors go to
 * stderr and their progress notes are dropped, so stdout holds only the command's output.
 */
const stderrLogger: LoggerService = {
  log: () => undefined,
  warn: (message: unknown) => process.stderr.write(`${CLI_NAME}: warning: ${String(message)}\n`),
  error: (message: unknown) => process.stderr.write(`${CLI_NAME}: ${String(message)}\n`),
};

Logger.overrideLogger(stderrLogger);

void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
  // NOTE: the work is done and the connections closed; a socket some driver keeps alive must
  // not hold the command open.
  setTimeout(() => process.exit(code), 2000).unref();
});
