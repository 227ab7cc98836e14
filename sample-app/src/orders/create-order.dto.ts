import { IsInt, IsOptional, IsPositive, Length, Matches, Max, ValidateIf } from 'class-validator';
import { MAX_ORDER_AMOUNT } from './order.entity';

export class CreateOrderDto {
  /** Amount in minor units (cents, kopecks), at most {@link MAX_ORDER_AMOUNT}. */
  @IsInt()
  @IsPositive()
  @Max(MAX_ORDER_AMOUNT, {
    message: `amount must be at most ${MAX_ORDER_AMOUNT} minor units, the most the orders table's amount column holds`,
  })
  amount!: number;

  /** ISO 4217 code in any case (`usd`, as Stripe writes it); stored upper-case. */
  @Matches(/^[A-Za-z]{3}$/, { message: 'currency must be an ISO 4217 code such as USD or RUB' })
  currency!: string;

  /**
   * The endpoint (provider) a payment for this order was created at, e.g. `yookassa`. Given
   * together with `paymentRef`.
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, {
    message: 'paymentEndpoint must be an endpoint name',
  })
  paymentEndpoint?: string;

  /** The provider's payment id, so reconciliation can ask the provider about it. */
  @ValidateIf(
    (dto: CreateOrderDto) => dto.paymentEndpoint !== undefined || dto.paymentRef !== undefined,
  )
  @Length(1, 255, {
    message: 'paymentRef must be given with paymentEndpoint (1 to 255 characters)',
  })
  paymentRef?: string;
}
