/**
 * Decimal amounts ("10.99") to and from minor units (1099), by the ISO 4217 exponent of the
 * currency. Providers that send decimal strings (PayPal) normalize through these.
 */

/** ISO 4217 currencies whose minor unit is not 2 digits. */
const EXPONENTS: Readonly<Record<string, number>> = {
  // No minor unit.
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  // Three digits.
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  // Four digits.
  CLF: 4,
  UYW: 4,
};

const DEFAULT_EXPONENT = 2;
const CURRENCY = /^[A-Za-z]{3}$/;
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * The number of decimal digits of the currency's minor unit per ISO 4217: 0 for JPY or KRW,
 * 3 for KWD, 2 for USD, EUR and every code not listed as an exception.
 * @param currency a three-letter code, any case.
 * @returns undefined when `currency` is not three letters.
 * @example
 * currencyExponent('JPY'); // 0
 */
export function currencyExponent(currency: string): number | undefined {
  if (typeof currency !== 'string' || !CURRENCY.test(currency)) {
    return undefined;
  }
  // NOTE: own-property lookup, so a code like "toString" cannot reach Object.prototype.
  const code = currency.toUpperCase();
  return Object.prototype.hasOwnProperty.call(EXPONENTS, code) ? EXPONENTS[code] : DEFAULT_EXPONENT;
}

/**
 * Converts a non-negative decimal string to an integer amount in minor units, without floating
 * point: `'10.99'` USD → 1099, `'1000'` JPY → 1000, `'1.5'` KWD → 1500.
 * @returns undefined when the text is not a plain decimal (digits, optionally `.` and digits), has
 * more significant decimals than the currency allows (`'10.999'` USD), is beyond 2^53, or the
 * currency is not a three-letter code.
 * @example
 * toMinorUnits('10.99', 'USD'); // 1099
 */
export function toMinorUnits(value: string, currency: string): number | undefined {
  const exponent = currencyExponent(currency);
  const match = typeof value === 'string' ? DECIMAL.exec(value) : null;
  if (exponent === undefined || match === null) {
    return undefined;
  }
  const [, whole, fraction = ''] = match;
  // NOTE: trailing zeros beyond the exponent ("10.990") lose nothing; other digits would.
  if (!/^0*$/.test(fraction.slice(exponent))) {
    return undefined;
  }
  const minor = Number(whole + fraction.slice(0, exponent).padEnd(exponent, '0'));
  return Number.isSafeInteger(minor) ? minor : undefined;
}

/**
 * Writes an amount in minor units as the decimal string payment APIs use: 1099 USD → `'10.99'`,
 * 1000 JPY → `'1000'`.
 * @throws RangeError when `amount` is not a non-negative safe integer or `currency` is not three
 * letters.
 * @example
 * formatMinorUnits(1099, 'USD'); // '10.99'
 */
export function formatMinorUnits(amount: number, currency: string): string {
  const exponent = currencyExponent(currency);
  if (exponent === undefined) {
    throw new RangeError(`formatMinorUnits: ${JSON.stringify(currency)} is not a currency code`);
  }
  if (!Number.isSafeInteger(amount) || amount < 0) {
    throw new RangeError(
      `formatMinorUnits: the amount must be a non-negative integer of minor units (got ${amount})`,
    );
  }
  if (exponent === 0) {
    return String(amount);
  }
  const digits = String(amount).padStart(exponent + 1, '0');
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}
