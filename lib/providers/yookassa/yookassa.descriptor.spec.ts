import { yookassaDescriptor } from './yookassa.descriptor';
import { yookassaEndpoint } from './yookassa.provider';

describe('yookassaDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind yookassaEndpoint() makes by default', () => {
    const endpoint = yookassaEndpoint({ name: 'yookassa', verifyWithProvider: false });
    expect(endpoint.provider.kind).toBe(yookassaDescriptor.kind);
  });
});
