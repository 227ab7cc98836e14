import type {
  PendingPayment,
  PendingPaymentsQuery,
  PendingPaymentsSource,
  WebhookTransactions,
} from 'nestjs-payment-webhooks';
import { IsNull, LessThan, Not } from 'typeorm';
import { Order } from './order.entity';

/**
 * The shop's unfinished payments for reconciliation: pending orders that have a payment at the
 * provider being reconciled, oldest first. Plain code (the package's names are imported as types
 * only), so the Nest shop and the Express shop both use it.
 */
export class OrdersAwaitingPayment implements PendingPaymentsSource {
  constructor(private readonly transactions: Pick<WebhookTransactions, 'run'>) {}

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
