export * from '../providers/signed-delivery';
export * from './webhook-test-client';
export * from './settled';
export * from '../providers/catalog/testing-entry';
