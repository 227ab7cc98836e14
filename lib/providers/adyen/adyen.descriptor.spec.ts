import { adyenDescriptor } from './adyen.descriptor';
import { adyenEndpoint } from './adyen.provider';

describe('adyenDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind adyenEndpoint() makes by default', () => {
    const endpoint = adyenEndpoint({
      name: 'adyen',
      hmacKey: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
    });
    expect(endpoint.provider.kind).toBe(adyenDescriptor.kind);
  });
});
