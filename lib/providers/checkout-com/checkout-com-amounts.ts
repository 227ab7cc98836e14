import { currencyExponent } from '../../core/minor-units';

/**
 * The currencies whose Checkout.com amount is the full value (Checkout.com's "Format the amount
 * value"): no digits after the point.
 */
const FULL_VALUE = new Set([
  'BIF',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'VUV',
  'VND',
  'XAF',
  'XOF',
  'XPF',
]);

/** The currencies whose Checkout.com amount is divided by 1000. */
const THOUSANDTHS = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

/** How many digits Checkout.com puts after the point in an amount of `currency`. */
function checkoutComExponent(currency: string): number {
  if (FULL_VALUE.has(currency)) return 0;
  return THOUSANDTHS.has(currency) ? 3 : 2;
}

/**
 * A Checkout.com amount as minor units of the currency's ISO 4217 exponent. They are the same
 * number for every currency but those where Checkout.com uses another exponent than ISO 4217:
 * CLP is divided by 100 at Checkout.com but has no minor unit in ISO 4217, so 100000 CLP there is
 * 1000 here.
 * @returns undefined when `amount` is not a safe integer, the currency is not three letters, or
 * the amount has digits ISO 4217 cannot carry (a CLP amount that is not whole pesos).
 */
export function checkoutComMinorUnits(
  amount: unknown,
  currency: string | undefined,
): number | undefined {
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || currency === undefined) {
    return undefined;
  }
  const iso = currencyExponent(currency);
  if (iso === undefined) return undefined;
  const shift = iso - checkoutComExponent(currency.toUpperCase());
  if (shift >= 0) {
    const scaled = amount * 10 ** shift;
    return Number.isSafeInteger(scaled) ? scaled : undefined;
  }
  const divisor = 10 ** -shift;
  return amount % divisor === 0 ? amount / divisor : undefined;
}
