/** Exit code of a run that did what was asked. */
export const EXIT_OK = 0;
/** Exit code of a run that failed: the database, the network, or a refusal such as "no such event". */
export const EXIT_FAILURE = 1;
/** Exit code of a command line that cannot be run as written. */
export const EXIT_USAGE = 2;
/** Exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it). */
export const EXIT_INTERRUPTED = 130;

/**
 * The command line cannot be run as written (unknown command or option, missing or invalid
 * value). Printed as one line, with a pointer to `--help`; exit code 2.
 */
export class CliUsageError extends Error {
  /**
   * @param command the command whose `--help` explains the fix, e.g. `'events list'`.
   */
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/** The command ran and failed; printed as one line, exit code 1. */
export class CliFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliFailure';
  }
}
