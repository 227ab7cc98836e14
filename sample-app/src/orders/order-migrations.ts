import { AddOrderPaymentRef1764600001000 } from './add-order-payment-ref.migration';
import { AddOrderRefunds1764560001000 } from './add-order-refunds.migration';
import { CreateOrdersTable1764400001000 } from './create-orders-table.migration';

/** The orders table's migrations, in order; both shops run them after the package's own. */
export const orderMigrations = [
  CreateOrdersTable1764400001000,
  AddOrderRefunds1764560001000,
  AddOrderPaymentRef1764600001000,
];
