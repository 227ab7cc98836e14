import { randomUUID } from 'node:crypto';
import { ConflictException, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { WebhookTransactions } from 'nestjs-payment-webhooks';
import { QueryFailedError } from 'typeorm';
import { CreateMerchantDto } from './create-merchant.dto';
import { keepDemoMerchant } from './demo-merchant';
import { Merchant } from './merchant.entity';

/**
 * The demo merchant's webhook secret: `DEMO_MERCHANT_WEBHOOK_SECRET`, read with the shop's other
 * secrets when its module is defined.
 */
export const DEMO_MERCHANT_SECRET = Symbol('DEMO_MERCHANT_SECRET');

/** A merchant as the shop shows it: never its secrets. */
export interface MerchantView {
  id: string;
  slug: string;
  name: string;
  createdAt: Date;
  /** Where its Stripe webhook endpoint delivers to on this shop. */
  webhookPath: string;
}

/** A unique violation, as PostgreSQL and SQLite report it: here, a slug another merchant has. */
function isUniqueViolation(error: unknown): boolean {
  const code =
    error instanceof QueryFailedError ? (error.driverError as { code?: unknown }).code : undefined;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

@Injectable()
export class MerchantsService implements OnApplicationBootstrap {
  constructor(
    private readonly transactions: WebhookTransactions,
    @Inject(DEMO_MERCHANT_SECRET) private readonly demoSecret: string,
  ) {}

  /** Keeps the demo merchant before the app takes requests (see `keepDemoMerchant`). */
  onApplicationBootstrap(): Promise<void> {
    return this.transactions.run((manager) => keepDemoMerchant(manager, this.demoSecret));
  }

  /**
   * Adds a merchant. Its deliveries are verified with its secrets from then on, without a
   * restart: the merchants endpoint reads the table when a merchant's first delivery comes.
   * @throws ConflictException when another merchant has the slug.
   */
  async create(dto: CreateMerchantDto): Promise<MerchantView> {
    const merchant: Merchant = {
      id: randomUUID(),
      slug: dto.slug,
      name: dto.name,
      stripeWebhookSecrets: dto.stripeWebhookSecrets,
      createdAt: new Date(),
    };
    try {
      await this.transactions.run((manager) => manager.insert(Merchant, merchant));
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictException(`A merchant with the slug "${dto.slug}" exists already`);
      }
      throw error;
    }
    const { id, slug, name, createdAt } = merchant;
    return { id, slug, name, createdAt, webhookPath: `/webhooks/merchants/${slug}` };
  }
}
