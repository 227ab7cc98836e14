import { randomUUID } from 'node:crypto';
import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { WebhookTransactions } from 'nestjs-payment-webhooks';
import { IdempotentCall, idempotencyKeyFor } from 'nestjs-payment-webhooks/idempotency';
import { CreateOrderDto } from './create-order.dto';
import { Order, OrderState } from './order.entity';
import { RefundOrderDto } from './refund-order.dto';
import { SandboxRefundsGateway } from './sandbox-refunds.gateway';

@Injectable()
export class OrdersService {
  constructor(
    private readonly transactions: WebhookTransactions,
    private readonly calls: IdempotentCall,
    private readonly refunds: SandboxRefundsGateway,
  ) {}

  create(dto: CreateOrderDto): Promise<Order> {
    const order: Order = {
      id: randomUUID(),
      amount: dto.amount,
      currency: dto.currency.toUpperCase(),
      state: 'pending',
      paidAt: null,
      fulfilments: 0,
      createdAt: new Date(),
      refundId: null,
      refundedAmount: null,
      refundedAt: null,
      paymentEndpoint: dto.paymentEndpoint ?? null,
      paymentRef: dto.paymentRef ?? null,
      merchant: null,
    };
    // NOTE: WebhookTransactions gives one transaction on either database; on SQLite the module
    // keeps the app's writes out of payment handlers' transactions with or without it.
    return this.transactions.run(async (manager) => {
      await manager.insert(Order, order);
      return order;
    });
  }

  async get(id: string): Promise<Order> {
    const order = await this.transactions.run((manager) => manager.findOneBy(Order, { id }));
    if (!order) {
      throw new NotFoundException(`Order ${id} not found`);
    }
    return order;
  }

  /**
   * Gives a paid order's money back through the provider, once. The provider call goes through
   * IdempotentCall with a key made from the order: however often and through whichever request
   * the refund is asked for, the provider sees one key and refunds once; after a crash between
   * the provider's answer and the update below, a retry finds the stored refund and only
   * records it.
   */
  async refund(id: string, dto: RefundOrderDto): Promise<Order> {
    const order = await this.get(id);
    if (order.state === 'refunded') {
      return order;
    }
    if (order.state !== 'paid') {
      throw new BadRequestException(
        `Order ${id} is ${order.state}: only a paid order can be refunded`,
      );
    }
    const amount = dto.amount ?? order.amount;
    if (amount > order.amount) {
      throw new BadRequestException(
        `A refund of ${amount} exceeds the order's ${order.amount} ${order.currency}`,
      );
    }
    const refund = await this.calls.run(idempotencyKeyFor('refund', order.id), (key) =>
      this.refunds.refund({ orderId: order.id, amount, currency: order.currency }, key),
    );
    return this.transactions.run(async (manager) => {
      await manager
        .createQueryBuilder()
        .update(Order)
        .set({
          state: 'refunded',
          refundId: refund.id,
          refundedAmount: refund.amount,
          refundedAt: new Date(),
        })
        .where('id = :id AND state = :from', { id, from: 'paid' satisfies OrderState })
        .execute();
      return manager.findOneByOrFail(Order, { id });
    });
  }
}
