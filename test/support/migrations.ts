import { DataSource } from 'typeorm';

/** The names of the migrations applied to `source`, oldest first. */
export async function appliedMigrations(source: DataSource): Promise<string[]> {
  const rows: { name: string }[] = await source.query('SELECT name FROM migrations ORDER BY id');
  return rows.map((row) => row.name);
}

/** Reverts, newest first, every migration applied after the one named `name`. */
export async function undoMigrationsAfter(source: DataSource, name: string): Promise<void> {
  for (;;) {
    const applied = await appliedMigrations(source);
    if (!applied.includes(name)) {
      throw new Error(`${name} is not applied`);
    }
    if (applied.at(-1) === name) {
      return;
    }
    await source.undoLastMigration();
  }
}
