import { Body, Controller, Post } from '@nestjs/common';
import { CreateMerchantDto } from './create-merchant.dto';
import { MerchantsService, MerchantView } from './merchants.service';

@Controller('merchants')
export class MerchantsController {
  constructor(private readonly merchants: MerchantsService) {}

  /**
   * Adds a merchant of the marketplace with the signing secrets of its Stripe webhook endpoint;
   * 409 when the slug is taken. A real marketplace keeps this route behind its admin login.
   */
  @Post()
  create(@Body() dto: CreateMerchantDto): Promise<MerchantView> {
    return this.merchants.create(dto);
  }
}
