import { FieldRule } from './envelope';
import {
  boolean,
  currencyCode,
  equalTo,
  identifier,
  integer,
  jsonObject,
  named,
  nonEmptyArray,
  nonEmptyString,
  oneOf,
  optional,
  string,
} from './envelope-rules';

type Case = readonly [string, FieldRule<unknown>, readonly unknown[], [unknown, string[]][]];

/** Each rule: values it accepts, and values it refuses with the problems it names for field `f`. */
const CASES: readonly Case[] = [
  [
    'string()',
    string(),
    ['', 'x', ' '],
    [
      [undefined, ['f must be a string']],
      [null, ['f must be a string']],
      [7, ['f must be a string']],
      [['x'], ['f must be a string']],
    ],
  ],
  [
    'nonEmptyString()',
    nonEmptyString(),
    ['x', ' '],
    [
      ['', ['f should not be empty']],
      [7, ['f must be a string']],
      [undefined, ['f should not be empty', 'f must be a string']],
      [null, ['f should not be empty', 'f must be a string']],
    ],
  ],
  [
    'integer()',
    integer(),
    [0, -3, 1700000000, 1e21],
    [
      [1.5, ['f must be an integer number']],
      ['7', ['f must be an integer number']],
      [Number.NaN, ['f must be an integer number']],
      [Number.POSITIVE_INFINITY, ['f must be an integer number']],
      [undefined, ['f must be an integer number']],
    ],
  ],
  [
    'boolean()',
    boolean(),
    [true, false],
    [
      ['true', ['f must be a boolean value']],
      [0, ['f must be a boolean value']],
      [null, ['f must be a boolean value']],
    ],
  ],
  [
    'jsonObject()',
    jsonObject(),
    [{}, { a: 1 }],
    [
      [[], ['f must be an object']],
      [null, ['f must be an object']],
      ['{}', ['f must be an object']],
    ],
  ],
  [
    'nonEmptyArray()',
    nonEmptyArray(),
    [[1], [null, {}]],
    [
      [[], ['f should not be empty']],
      [{ 0: 1, length: 1 }, ['f should not be empty', 'f must be an array']],
      [undefined, ['f should not be empty', 'f must be an array']],
    ],
  ],
  [
    'identifier()',
    identifier(),
    ['ord-1', 0, 42, -1, Number.MAX_SAFE_INTEGER],
    [
      ['', ['f must be a non-empty string or an integer']],
      [1.5, ['f must be a non-empty string or an integer']],
      [2 ** 53, ['f must be a non-empty string or an integer']],
      [true, ['f must be a non-empty string or an integer']],
      [undefined, ['f must be a non-empty string or an integer']],
    ],
  ],
  [
    'currencyCode()',
    currencyCode(),
    ['RUB', 'rub', 'Eur', 'XCG', 'XTS'],
    [
      ['ABC', ['f must be a valid ISO4217 currency code']],
      ['RU', ['f must be a valid ISO4217 currency code']],
      ['', ['f must be a valid ISO4217 currency code']],
      ['constructor', ['f must be a valid ISO4217 currency code']],
      [643, ['f must be a valid ISO4217 currency code']],
    ],
  ],
  [
    'oneOf()',
    oneOf('true', 'false', true, false),
    ['true', 'false', true, false],
    [
      ['TRUE', ['f must be one of the following values: true, false, true, false']],
      [1, ['f must be one of the following values: true, false, true, false']],
      [null, ['f must be one of the following values: true, false, true, false']],
    ],
  ],
  [
    'equalTo()',
    equalTo('notification'),
    ['notification'],
    [
      ['Notification', ['f must be "notification"']],
      [undefined, ['f must be "notification"']],
    ],
  ],
  [
    'optional(nonEmptyString())',
    optional(nonEmptyString()),
    [undefined, null, 'x'],
    [
      ['', ['f should not be empty']],
      [7, ['f must be a string']],
    ],
  ],
  [
    'named() over optional(identifier())',
    named('the event id', optional(identifier())),
    [undefined, null, 'evt_1', 7],
    [[1.5, ['the event id must be a non-empty string or an integer']]],
  ],
];

describe.each(CASES)('%s', (_name, rule, accepted, refused) => {
  it.each(accepted.map((value) => [value]))('accepts %p with no problem', (value) => {
    expect(rule.accepts(value)).toBe(true);
    expect(rule.problems(value, 'f')).toEqual([]);
  });

  it.each(refused)('refuses %p: %j', (value, problems) => {
    expect(rule.accepts(value)).toBe(false);
    expect(rule.problems(value, 'f')).toEqual(problems);
  });
});
