export * from './signers';
export * from './signed-delivery';
