/** A payment the application still believes unfinished. */
export interface PendingPayment {
  /** The provider's payment id (what its status API is asked about). */
  readonly paymentRef: string;
  /** The application's own order id, carried onto the recovered event. */
  readonly merchantRef?: string | null;
}

/** What `ReconciliationService` asks the application for. */
export interface PendingPaymentsQuery {
  /** The endpoint (and so the provider) being reconciled. */
  readonly endpoint: string;
  /** Only payments the application started before this time: younger ones may still be in flight. */
  readonly olderThan: Date;
  /** Most payments to return. */
  readonly limit: number;
}

/**
 * Implemented by the application: lists the payments it still believes unfinished (orders
 * awaiting payment, refunds awaiting confirmation). Register an implementation under this
 * class as token anywhere in the app:
 * @example
 * ```ts
 * @Injectable()
 * export class OrdersAwaitingPayment extends PendingPaymentsSource {
 *   async pendingPayments({ olderThan, limit }: PendingPaymentsQuery) {
 *     const orders = await this.orders.find({ where: { status: 'pending', createdAt: LessThan(olderThan) }, take: limit });
 *     return orders.map((order) => ({ paymentRef: order.paymentId, merchantRef: order.id }));
 *   }
 * }
 * // providers: [{ provide: PendingPaymentsSource, useClass: OrdersAwaitingPayment }]
 * ```
 */
export abstract class PendingPaymentsSource {
  /** Payments to check with the provider. */
  abstract pendingPayments(query: PendingPaymentsQuery): Promise<readonly PendingPayment[]>;
}
