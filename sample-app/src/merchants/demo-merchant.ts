import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { Merchant } from './merchant.entity';

/** The merchant every shop starts with, so `/webhooks/merchants/demo-merchant` answers at once. */
export const DEMO_MERCHANT = { slug: 'demo-merchant', name: 'Demo merchant' } as const;

/**
 * Makes sure the demo merchant exists with `secret` as its only webhook secret: the value of
 * `DEMO_MERCHANT_WEBHOOK_SECRET`, or the documented development one. One statement, so shops
 * starting side by side on one database all succeed.
 */
export async function keepDemoMerchant(manager: EntityManager, secret: string): Promise<void> {
  await manager
    .createQueryBuilder()
    .insert()
    .into(Merchant)
    .values({
      id: randomUUID(),
      ...DEMO_MERCHANT,
      stripeWebhookSecrets: [secret],
      createdAt: new Date(),
    })
    .orUpdate(['stripe_webhook_secrets'], ['slug'])
    .execute();
}
