import { randomUUID } from 'node:crypto';
import { Injectable, NotFoundException } from '@nestjs/common';
import { WebhookTransactions } from 'nestjs-payment-webhooks';
import { CreateOrderDto } from './create-order.dto';
import { Order } from './order.entity';

@Injectable()
export class OrdersService {
  constructor(private readonly transactions: WebhookTransactions) {}

  create(dto: CreateOrderDto): Promise<Order> {
    const order: Order = {
      id: randomUUID(),
      amount: dto.amount,
      currency: dto.currency,
      state: 'pending',
      paidAt: null,
      fulfilments: 0,
      createdAt: new Date(),
    };
    // NOTE: through WebhookTransactions so that, on SQLite, the insert never lands inside a
    // payment handler's open transaction.
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
}
