import { resolve } from 'node:path';
import { ParsedCommand, stringOption } from './arguments';
import { CliUsageError } from './cli-errors';

/** The database the CLI works on: the app's own. */
export type DatabaseTarget =
  | { readonly kind: 'postgres'; readonly url: string }
  | { readonly kind: 'sqlite'; readonly path: string };

const NO_DATABASE =
  'no database given: pass --database-url postgres://user:password@host:5432/db or ' +
  '--sqlite <file>, or set DATABASE_URL (postgres://… or sqlite:<file>) as the app has it';

/**
 * Where the database is: `--database-url`, else `--sqlite`, else `DATABASE_URL`
 * (`postgres://…`, `postgresql://…` or `sqlite:<file>`).
 * @throws CliUsageError when none is given, both flags are, or the URL's scheme is unknown.
 */
export function databaseTarget(
  command: string,
  parsed: ParsedCommand,
  env: Readonly<Record<string, string | undefined>>,
): DatabaseTarget {
  const url = stringOption(parsed, 'database-url');
  const sqlite = stringOption(parsed, 'sqlite');
  if (url !== undefined && sqlite !== undefined) {
    throw new CliUsageError('give --database-url or --sqlite, not both', command);
  }
  if (sqlite !== undefined) {
    if (sqlite.trim() === '') {
      throw new CliUsageError('--sqlite needs the path of the SQLite file', command);
    }
    return { kind: 'sqlite', path: resolve(sqlite) };
  }
  const text = url ?? env.DATABASE_URL;
  if (text === undefined || text.trim() === '') {
    throw new CliUsageError(NO_DATABASE, command);
  }
  const source = url === undefined ? 'DATABASE_URL' : '--database-url';
  if (/^postgres(ql)?:\/\//i.test(text)) {
    return { kind: 'postgres', url: text };
  }
  if (/^sqlite:/i.test(text)) {
    // NOTE: sqlite:shop.sqlite, sqlite:///var/data/shop.sqlite and sqlite://shop.sqlite all work.
    const path = text.replace(/^sqlite:/i, '').replace(/^\/\//, '');
    if (path === '') {
      throw new CliUsageError(`${source} sqlite: needs a file, e.g. sqlite:./shop.sqlite`, command);
    }
    return { kind: 'sqlite', path: resolve(path) };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1];
  throw new CliUsageError(
    `${source} must start with postgres://, postgresql:// or sqlite: (got ${
      scheme === undefined ? 'no scheme' : `"${scheme}:"`
    })`,
    command,
  );
}

/** The target for messages, with any password replaced by `***`. */
export function describeTarget(target: DatabaseTarget): string {
  if (target.kind === 'sqlite') {
    return `SQLite file ${target.path}`;
  }
  try {
    const url = new URL(target.url);
    if (url.password !== '') {
      url.password = '***';
    }
    return `PostgreSQL ${url.toString()}`;
  } catch {
    return 'PostgreSQL (unparseable URL)';
  }
}
