import { IsInt, IsOptional, IsPositive } from 'class-validator';

export class RefundOrderDto {
  /** Amount to give back in minor units; the whole order when absent. */
  @IsOptional()
  @IsInt()
  @IsPositive()
  amount?: number;
}
