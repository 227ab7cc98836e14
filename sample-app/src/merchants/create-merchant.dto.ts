import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, Length, Matches } from 'class-validator';

export class CreateMerchantDto {
  /**
   * The last segment of the merchant's webhook URL, `/webhooks/merchants/{slug}`: what the
   * package takes as a tenant's name.
   */
  @Matches(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, {
    message:
      'slug must be 1 to 64 letters, digits, "-" or "_", starting with a letter or a digit: it ends the URL /webhooks/merchants/{slug}',
  })
  slug!: string;

  @IsString()
  @Length(1, 200)
  name!: string;

  /**
   * The signing secrets of the merchant's Stripe webhook endpoint: one, or the new and the old
   * while it rolls its secret.
   */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(5)
  @Matches(/^whsec_\S{1,250}$/, {
    each: true,
    message: 'each of stripeWebhookSecrets must be a Stripe signing secret (whsec_…)',
  })
  stripeWebhookSecrets!: string[];
}
