import { IsInt, IsPositive, Matches } from 'class-validator';

export class CreateOrderDto {
  /** Amount in minor units (cents, kopecks). */
  @IsInt()
  @IsPositive()
  amount!: number;

  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code such as USD or RUB' })
  currency!: string;
}
