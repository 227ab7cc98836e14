import { CliUsageError } from './cli-errors';
import { integerOption, listOption, parseCommand, parseStatuses, parseTime } from './arguments';

const NOW = new Date('2025-06-30T12:00:00.000Z');

describe('parseTime', () => {
  it.each([
    ['30', '2025-05-31T12:00:00.000Z'],
    ['30d', '2025-05-31T12:00:00.000Z'],
    ['1.5d', '2025-06-29T00:00:00.000Z'],
    ['12h', '2025-06-30T00:00:00.000Z'],
    ['15m', '2025-06-30T11:45:00.000Z'],
    ['2w', '2025-06-16T12:00:00.000Z'],
    ['2025-01-31', '2025-01-31T00:00:00.000Z'],
    ['2025-01-31T12:00:00+02:00', '2025-01-31T10:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
  ])('reads %s as %s', (text, expected) => {
    expect(parseTime('events list', '--since', text, NOW).toISOString()).toBe(expected);
  });

  // NOTE: the rules of the admin routes' since and until: a day that does not exist is refused
  // (JavaScript's Date would roll 2025-02-30 over to March 2), and so is a space instead of the
  // T (Date reads "2025-01-31 12:00" in the local time zone, unlike the same time with a T).
  it.each([
    'yesterday',
    '-3d',
    '3 days',
    '2025-13-45',
    '',
    '2025-02-30',
    '2025-02-29',
    '2025-01-31 12:00',
    '2025-01-31 12:00:00Z',
    '2025-01-31junk',
  ])('refuses %j naming both accepted forms', (text) => {
    expect(() => parseTime('events list', '--since', text, NOW)).toThrow(CliUsageError);
    expect(() => parseTime('events list', '--since', text, NOW)).toThrow(
      /--since must be an age such as 30d, 12h or 15m .* or an ISO 8601 time/,
    );
  });
});

describe('parseTime outside 1970..9999', () => {
  it.each(['99999999d', '30000d', '1969-12-31T23:59:59Z', '10000-01-01'])(
    'refuses %j naming the range',
    (text) => {
      expect(() => parseTime('events list', '--since', text, NOW)).toThrow(CliUsageError);
      expect(() => parseTime('events list', '--since', text, NOW)).toThrow(
        /--since must (be a time from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z|be an age)/,
      );
    },
  );
});

describe('parseCommand', () => {
  const options = { limit: { type: 'string' as const }, force: { type: 'boolean' as const } };

  it('names the unknown option, the missing value and the extra argument', () => {
    expect(() => parseCommand('events list', ['--limt', '3'], options, 0)).toThrow(
      'unknown option --limt',
    );
    expect(() => parseCommand('events list', ['--limit'], options, 0)).toThrow(
      '--limit needs a value',
    );
    expect(() => parseCommand('events list', ['extra'], options, 0)).toThrow(
      'unexpected argument "extra"',
    );
  });

  it('reads --json, --help and positionals', () => {
    const parsed = parseCommand('events show', ['id-1', '--json'], options, 1);
    expect(parsed.positionals).toEqual(['id-1']);
    expect(parsed.values.json).toBe(true);
  });

  it('checks integer bounds', () => {
    const parsed = parseCommand('events list', ['--limit', '1001'], options, 0);
    expect(() => integerOption('events list', parsed, 'limit', 1, 1000)).toThrow(
      '--limit must be an integer from 1 to 1000 (got "1001")',
    );
    const ok = parseCommand('events list', ['--limit', '20'], options, 0);
    expect(integerOption('events list', ok, 'limit', 1, 1000)).toBe(20);
  });

  it('reads an option given several times, each a comma-separated list', () => {
    const repeatable = { type: { type: 'string' as const, multiple: true } };
    const parse = (args: string[]) => parseCommand('events backfill', args, repeatable, 0);
    expect(
      listOption('events backfill', parse(['--type', 'a, b', '--type', 'c,a']), 'type'),
    ).toEqual(['a', 'b', 'c']);
    expect(listOption('events backfill', parse([]), 'type')).toEqual([]);
    expect(() => listOption('events backfill', parse(['--type', ' , ']), 'type')).toThrow(
      '--type needs a value',
    );
  });
});

describe('parseStatuses', () => {
  it('takes a comma-separated list of allowed statuses, without repeats', () => {
    expect(parseStatuses('x', '--status', 'dead, ignored,dead', ['dead', 'ignored'])).toEqual([
      'dead',
      'ignored',
    ]);
    expect(() => parseStatuses('x', '--status', 'dead,pending', ['dead', 'ignored'])).toThrow(
      '--status takes dead, ignored (comma-separated); got "dead,pending"',
    );
    expect(() => parseStatuses('x', '--status', ',', ['dead'])).toThrow(CliUsageError);
  });
});
