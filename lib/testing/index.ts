export * from './signers';
export * from './signed-delivery';
export * from './webhook-test-client';
