// YooKassa's test pieces, exported by `nestjs-payment-webhooks/testing` alone: no other entry hands
// out signers. lib/providers/catalog/testing-entry.ts lists this file.
export * from './yookassa.signer';
export * from './yookassa.fixtures';
export * from './yookassa-test-api';
// NOTE: types the signer's and the fixtures' signatures name, which /testing exports with them.
export type { YooKassaNotification, YooKassaNotificationObject } from './yookassa.provider';
