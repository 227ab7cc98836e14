// Robokassa's test pieces, exported by `nestjs-payment-webhooks/testing` alone: no other entry
// hands out signers. lib/providers/catalog/testing-entry.ts lists this file.
export * from './robokassa.signer';
export * from './robokassa.fixtures';
