// CloudPayments' test pieces, exported by `nestjs-payment-webhooks/testing` alone: no other entry
// hands out signers. lib/providers/catalog/testing-entry.ts lists this file.
export * from './cloudpayments.signer';
export * from './cloudpayments.fixtures';
// NOTE: types the signer's and the fixtures' signatures name, which /testing exports with them.
export type { CloudPaymentsNotification } from './cloudpayments.provider';
