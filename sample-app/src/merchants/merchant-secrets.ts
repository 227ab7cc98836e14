import type { TenantLookup } from 'nestjs-payment-webhooks';
import type { DataSource, Repository } from 'typeorm';
import { Merchant } from './merchant.entity';

/** What the merchants endpoint verifies a merchant's deliveries with: its Stripe secrets. */
export interface MerchantStripeSettings {
  readonly secret: readonly string[];
}

/**
 * The merchants endpoint's `resolveTenant`: a merchant's webhook secrets from the merchants
 * table, by the slug in the delivery's URL. Plain code (the package's names are imported as
 * types only), so the Nest shop and the Express shop both use it.
 */
export class MerchantSecrets {
  private merchants: Repository<Merchant> | undefined;

  /**
   * Reads the merchants table through `dataSource` from now on. The Nest shop calls it once Nest
   * has made the data source, which is after the webhook endpoints were defined.
   */
  readFrom(dataSource: DataSource): this {
    this.merchants = dataSource.getRepository(Merchant);
    return this;
  }

  /**
   * The secrets of the merchant named `tenant`, or null when no merchant has that slug (the
   * delivery is answered 404, nothing stored).
   * @throws Error before {@link readFrom}: the delivery is answered 503, and Stripe retries it.
   */
  async settingsOf({ tenant }: TenantLookup): Promise<MerchantStripeSettings | null> {
    if (this.merchants === undefined) {
      throw new Error('the merchants table is not open yet');
    }
    // NOTE: a plain read on the app's data source: on SQLite it never waits for a handler's
    // transaction, which runs on the package's own connection.
    const merchant = await this.merchants.findOneBy({ slug: tenant });
    return merchant && { secret: merchant.stripeWebhookSecrets };
  }
}
