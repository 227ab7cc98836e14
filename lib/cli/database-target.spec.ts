import { resolve } from 'node:path';
import { DATABASE_OPTIONS, parseCommand } from './arguments';
import { CliUsageError } from './cli-errors';
import { databaseTarget, describeTarget } from './database-target';

function target(args: string[], env: Record<string, string> = {}) {
  return databaseTarget('stats', parseCommand('stats', args, DATABASE_OPTIONS, 0), env);
}

describe('databaseTarget', () => {
  it('takes --database-url, then --sqlite, then DATABASE_URL', () => {
    expect(target(['--database-url', 'postgres://a@h/db'], { DATABASE_URL: 'sqlite:x' })).toEqual({
      kind: 'postgres',
      url: 'postgres://a@h/db',
    });
    expect(target(['--sqlite', 'shop.sqlite'], { DATABASE_URL: 'postgres://a@h/db' })).toEqual({
      kind: 'sqlite',
      path: resolve('shop.sqlite'),
    });
    expect(target([], { DATABASE_URL: 'postgresql://a@h/db' })).toEqual({
      kind: 'postgres',
      url: 'postgresql://a@h/db',
    });
  });

  it.each([
    ['sqlite:shop.sqlite', resolve('shop.sqlite')],
    ['sqlite://shop.sqlite', resolve('shop.sqlite')],
    ['sqlite:///var/data/shop.sqlite', '/var/data/shop.sqlite'],
    ['SQLITE:/tmp/a.sqlite', '/tmp/a.sqlite'],
  ])('reads DATABASE_URL=%s as the SQLite file %s', (url, path) => {
    expect(target([], { DATABASE_URL: url })).toEqual({ kind: 'sqlite', path });
  });

  it('refuses no database, both flags and other schemes, without echoing the URL', () => {
    expect(() => target([])).toThrow(/no database given/);
    expect(() => target(['--sqlite', 'a', '--database-url', 'postgres://h/db'])).toThrow(
      'give --database-url or --sqlite, not both',
    );
    const error = (() => {
      try {
        target([], { DATABASE_URL: 'mysql://root:s3cret@db/shop' });
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeInstanceOf(CliUsageError);
    expect(error?.message).toBe(
      'DATABASE_URL must start with postgres://, postgresql:// or sqlite: (got "mysql:")',
    );
  });
});

describe('describeTarget', () => {
  it('hides the password', () => {
    expect(describeTarget({ kind: 'postgres', url: 'postgres://shop:s3cret@db:5432/shop' })).toBe(
      'PostgreSQL postgres://shop:***@db:5432/shop',
    );
    expect(describeTarget({ kind: 'sqlite', path: '/data/shop.sqlite' })).toBe(
      'SQLite file /data/shop.sqlite',
    );
  });
});
