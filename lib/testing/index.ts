export * from './signers';
