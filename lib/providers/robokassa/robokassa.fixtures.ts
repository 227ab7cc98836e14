import { randomInt } from 'node:crypto';
import { formatMinorUnits } from '../../core/minor-units';

/** Options of a ResultURL fixture; every field has a realistic default. */
export interface RobokassaResultFixtureOptions {
  /** The shop's invoice number. @default a random 7-digit number */
  invId?: string;
  /** Amount in kopecks (minor units of `currency`). @default 1999 */
  amount?: number;
  /** The shop's currency, which OutSum is written in. @default 'RUB' */
  currency?: string;
  /** User parameters, sent and signed as `Shp_<name>`. @default none */
  shp?: Readonly<Record<string, string>>;
  /** Marks a test payment (`IsTest=1`), signed with the test Password #2. @default false */
  test?: boolean;
}

/**
 * Builders of Robokassa ResultURL notifications, to sign with `signRobokassaDelivery()`.
 * @example
 * robokassaFixtures.result({ invId: '42', amount: 1999, shp: { orderId: 'order-42' } })
 */
export const robokassaFixtures = {
  /** A successful payment (`payment.succeeded`), as Robokassa posts it to the Result URL. */
  result(options: RobokassaResultFixtureOptions = {}): Record<string, string> {
    const currency = options.currency ?? 'RUB';
    const amount = options.amount ?? 1999;
    const fee = Math.round(amount * 0.039);
    const shp = Object.fromEntries(
      Object.entries(options.shp ?? {}).map(([name, value]) => [`Shp_${name}`, value]),
    );
    return {
      // NOTE: Robokassa writes OutSum with six decimals.
      OutSum: `${formatMinorUnits(amount, currency)}0000`,
      InvId: options.invId ?? String(randomInt(1_000_000, 9_999_999)),
      Fee: formatMinorUnits(fee, currency),
      EMail: 'buyer@example.com',
      PaymentMethod: 'BankCard',
      IncCurrLabel: 'BankCardPSR',
      ...(options.test === true ? { IsTest: '1' } : {}),
      ...shp,
    };
  },
};
