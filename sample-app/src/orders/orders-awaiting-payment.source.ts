import { Injectable } from '@nestjs/common';
import {
  PendingPayment,
  PendingPaymentsQuery,
  PendingPaymentsSource,
  WebhookTransactions,
} from 'nestjs-payment-webhooks';
import { IsNull, LessThan, Not } from 'typeorm';
import { Order } from './order.entity';

/**
 * The shop's unfinished payments for reconciliation: pending orders that have a payment at the
 * provider being reconciled, oldest first.
 */
@Injectable()
export class OrdersAwaitingPayment extends PendingPaymentsSource {
  constructor(private readonly transactions: WebhookTransactions) {
    super();
  }

  async pendingPayments(query: PendingPaymentsQuery): Promise<PendingPayment[]> {
    const orders = await this.transactions.run((manager) =>
      manager.find(Order, {
        where: {
          state: 'pending',
          paymentEndpoint: query.endpoint,
          paymentRef: Not(IsNull()),
          createdAt: LessThan(query.olderThan),
        },
        order: { createdAt: 'ASC' },
        take: query.limit,
      }),
    );
    return orders.map((order) => ({ paymentRef: order.paymentRef!, merchantRef: order.id }));
  }
}
