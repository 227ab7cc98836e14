import { DATABASE_OPTIONS, flagOption } from '../arguments';
import { CLI_NAME, CliCommand, COMMON_HELP, DATABASE_HELP } from '../cli-command';
import { CliFailure, EXIT_OK } from '../cli-errors';
import { printJson, printLines } from '../cli-io';
import { databaseTarget, describeTarget } from '../database-target';

/** `migrate`: runs the package's pending migrations. */
export const migrateCommand: CliCommand = {
  name: 'migrate',
  summary: "create or update the package's tables",
  maxPositionals: 0,
  options: { ...DATABASE_OPTIONS },
  help: `Usage: ${CLI_NAME} migrate [--json]

Runs the package's migrations (webhooksMigrations, then idempotencyMigrations) that have not
run yet: the inbox, the handler ledger and the idempotency tables. They are recorded in TypeORM's "migrations" table,
the same one the app's migrationsRun uses, so running both is safe. A new SQLite file is
created. Nothing else runs migrations: the other commands only read and change rows.

Options:
${COMMON_HELP}

${DATABASE_HELP}`,
  async run(parsed, io) {
    const target = databaseTarget(this.name, parsed, io.env);
    // NOTE: loaded only now, as in withInbox().
    const { connect } = await import('../database');
    const dataSource = await connect(target, { create: true });
    let names: string[];
    try {
      const ran = await dataSource.runMigrations({ transaction: 'each' });
      names = ran.map((migration) => migration.name);
    } catch (error) {
      throw new CliFailure(
        `migrating ${describeTarget(target)} failed: ${(error as Error).message.split('\n')[0]}`,
      );
    } finally {
      await dataSource.destroy();
    }
    if (flagOption(parsed, 'json')) {
      printJson(io, { ran: names });
    } else {
      printLines(
        io,
        names.length === 0
          ? [`${describeTarget(target)} is up to date.`]
          : [
              `Ran ${names.length} migration(s) on ${describeTarget(target)}:`,
              ...names.map((n) => `  ${n}`),
            ],
      );
    }
    return EXIT_OK;
  },
};
