import { robokassaDescriptor } from './robokassa.descriptor';
import { robokassaEndpoint } from './robokassa.provider';

describe('robokassaDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind robokassaEndpoint() makes', () => {
    const endpoint = robokassaEndpoint({ name: 'robokassa', password2: 'robokassa-descriptor' });
    expect(endpoint.provider.kind).toBe(robokassaDescriptor.kind);
  });

  it('signs a JSON file of parameters for the CLI, by POST or GET', () => {
    const json = { OutSum: '100.000000', InvId: 5 };
    const input = (options: Record<string, string | undefined>) => ({
      text: JSON.stringify(json),
      json,
      secret: 'securepass2',
      options,
      readFile: () => '',
    });
    const post = robokassaDescriptor.signing.sign(input({}));
    expect(post).toMatchObject({
      method: 'POST',
      body: 'OutSum=100.000000&InvId=5&SignatureValue=1CF90B964035DF7DD221EBCCEF94E63B',
    });
    expect(robokassaDescriptor.signing.sign(input({ method: 'GET' })).method).toBe('GET');
    expect(() => robokassaDescriptor.signing.sign(input({ 'hash-algorithm': 'crc32' }))).toThrow(
      /--hash-algorithm takes md5 or sha1/,
    );
  });
});
