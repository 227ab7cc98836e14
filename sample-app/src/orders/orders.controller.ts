import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { Idempotent } from 'nestjs-payment-webhooks/idempotency';
import { CreateOrderDto } from './create-order.dto';
import { Order } from './order.entity';
import { OrdersService } from './orders.service';
import { RefundOrderDto } from './refund-order.dto';

@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  /** Creates an order; a retry with the same Idempotency-Key returns the same order. */
  @Post()
  @Idempotent({ scope: 'order' })
  create(@Body() dto: CreateOrderDto): Promise<Order> {
    return this.orders.create(dto);
  }

  @Get(':id')
  get(@Param('id', new ParseUUIDPipe()) id: string): Promise<Order> {
    return this.orders.get(id);
  }

  /** Refunds a paid order; needs an Idempotency-Key, as money leaves the shop. */
  @Post(':id/refund')
  @HttpCode(200)
  @Idempotent({ scope: 'refund', required: true })
  refund(
    @Param('id', new ParseUUIDPipe()) id: string,
    @Body() dto: RefundOrderDto,
  ): Promise<Order> {
    return this.orders.refund(id, dto);
  }
}
