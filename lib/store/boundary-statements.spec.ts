import { escapeLiteral } from 'pg';
import { pgInline, pgLiteral } from './boundary-statements';

// NOTE: pg's own parameter conversion is the oracle: a literal must read as the parameter would.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): string };

describe('pgLiteral', () => {
  const zone = process.env.TZ;
  afterEach(() => {
    if (zone === undefined) {
      delete process.env.TZ;
    } else {
      process.env.TZ = zone;
    }
  });

  it.each(['UTC', 'Asia/Kathmandu', 'America/St_Johns', 'Pacific/Chatham', 'America/Los_Angeles'])(
    'writes a date in %s as pg writes it as a parameter',
    (timeZone) => {
      process.env.TZ = timeZone;
      for (const iso of [
        '2026-11-30T05:06:07.089Z',
        '2026-03-08T10:30:00.000Z',
        '1999-12-31T23:59:59.999Z',
        '2026-07-01T00:00:00.001Z',
      ]) {
        const date = new Date(iso);
        expect(pgLiteral(date)).toBe(escapeLiteral(prepareValue(date)));
      }
    },
  );

  it.each([
    ['plain', 'Handlers.paid'],
    ['quotes', "it's a ''test''"],
    ['backslashes', "C:\\path\\n and \\'"],
    ['a statement', "'); DROP TABLE webhook_events; --"],
    ['placeholders', '$1 $2 $$ $tag$'],
    ['unicode', 'оплата ✓ 💳'],
    ['empty', ''],
  ])('quotes text with %s as pg escapes it', (_, text) => {
    expect(pgLiteral(text)).toBe(escapeLiteral(text));
  });

  it('writes numbers, booleans and null as bare SQL', () => {
    expect([pgLiteral(42), pgLiteral(-1.5), pgLiteral(true), pgLiteral(false)]).toEqual([
      '42',
      '-1.5',
      'TRUE',
      'FALSE',
    ]);
    expect([pgLiteral(null), pgLiteral(undefined)]).toEqual(['NULL', 'NULL']);
  });

  it('refuses text with a NUL character, which PostgreSQL cannot store', () => {
    expect(() => pgLiteral('ok\u0000; DROP TABLE x')).toThrow(/NUL/);
  });
});

describe('pgInline', () => {
  it('puts each parameter where its placeholder is, telling $1 from $10', () => {
    const params = Array.from({ length: 11 }, (_, i) => `v${i + 1}`);
    expect(pgInline('SELECT $10, $1, $11, $2', params)).toBe("SELECT 'v10', 'v1', 'v11', 'v2'");
  });

  it('does not read placeholders inside the values it writes in', () => {
    expect(pgInline('UPDATE t SET a = $1, b = $2', ['$2', "x'y"])).toBe(
      "UPDATE t SET a = '$2', b = 'x''y'",
    );
  });
});
