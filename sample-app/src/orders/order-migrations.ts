import { CreateMerchantsTable1764900001000 } from '../merchants/create-merchants-table.migration';
import { AddOrderMerchant1764900002000 } from './add-order-merchant.migration';
import { AddOrderPaymentRef1764600001000 } from './add-order-payment-ref.migration';
import { AddOrderRefunds1764560001000 } from './add-order-refunds.migration';
import { CreateOrdersTable1764400001000 } from './create-orders-table.migration';

/**
 * The shop's own tables' migrations (orders, merchants), in order; both shops run them after
 * the package's own.
 */
export const orderMigrations = [
  CreateOrdersTable1764400001000,
  AddOrderRefunds1764560001000,
  AddOrderPaymentRef1764600001000,
  CreateMerchantsTable1764900001000,
  AddOrderMerchant1764900002000,
];
