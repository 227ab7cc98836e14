import { OptionSpecs, ParsedCommand } from './arguments';
import { CliIo } from './cli-io';

/** The name the CLI is installed under (`npx nestjs-payment-webhooks …`). */
export const CLI_NAME = 'nestjs-payment-webhooks';

/** One command of the CLI: its options, its help and what it does. */
export interface CliCommand {
  /** The words that select it, e.g. `'events list'`. */
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The full `--help` text. */
  readonly help: string;
  /** Its options besides `--help` and `--json`. */
  readonly options: OptionSpecs;
  /** How many positional arguments it takes at most. */
  readonly maxPositionals: number;
  /**
   * Runs the command.
   * @returns the exit code.
   * @throws CliUsageError or CliFailure; any other error is reported as a failure.
   */
  run(parsed: ParsedCommand, io: CliIo): Promise<number>;
}

/** The connection options, as every database command's help lists them. */
export const DATABASE_HELP = `Database (the app's own):
  --database-url <url>   postgres://user:password@host:5432/db (or set DATABASE_URL)
  --sqlite <file>        the SQLite file (or set DATABASE_URL=sqlite:<file>)`;

/** The options every command's help lists. */
export const COMMON_HELP = `  --json                 machine-readable output on stdout
  -h, --help             this help`;
