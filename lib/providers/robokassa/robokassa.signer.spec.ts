import { createHash } from 'node:crypto';
import { robokassaFixtures } from './robokassa.fixtures';
import { robokassaSignatureBase, signRobokassaDelivery } from './robokassa.signer';
import { robokassaEndpoint, robokassaProvider } from './robokassa.provider';
import { storedEventIds } from '../../spec-support/stored-event-ids';

describe('signRobokassaDelivery', () => {
  it('reproduces a vector computed outside Node, for MD5 and SHA-256', () => {
    const payload = { OutSum: '100.000000', InvId: '5' };
    const md5 = signRobokassaDelivery({ payload, password2: 'securepass2' });
    expect(md5.body).toBe(
      'OutSum=100.000000&InvId=5&SignatureValue=1CF90B964035DF7DD221EBCCEF94E63B',
    );
    const sha256 = signRobokassaDelivery({
      payload,
      password2: 'securepass2',
      hashAlgorithm: 'sha256',
    });
    expect(new URLSearchParams(sha256.body).get('SignatureValue')).toBe(
      '740E07E39DFEBC8E3FD8395DE3E99C2D3C2DB586357A92656C55F555769C8C5A',
    );
  });

  it('signs the Shp_ parameters sorted by name and sends GET as a query string', () => {
    const payload = { Shp_order: 'заказ 7', OutSum: '100.000000', InvId: '5', Shp_item: '1' };
    expect(robokassaSignatureBase(payload, 'p')).toBe(
      '100.000000:5:p:Shp_item=1:Shp_order=заказ 7',
    );
    const get = signRobokassaDelivery({ payload, password2: 'securepass2', method: 'GET' });
    expect(get).toMatchObject({ provider: 'robokassa', method: 'GET', headers: {}, eventId: '5' });
    expect(new URLSearchParams(get.body).get('SignatureValue')).toBe(
      'BE24C942DF4944E435988BB916F1AE87',
    );
  });

  it('replaces a SignatureValue given in the payload', () => {
    const payload: Record<string, string> = {
      ...robokassaFixtures.result(),
      SignatureValue: 'stale',
    };
    const sent = signRobokassaDelivery({ payload, password2: 'p2' });
    const fields = new URLSearchParams(sent.body);
    expect(fields.getAll('SignatureValue')).toEqual([
      createHash('md5').update(`${payload.OutSum}:${payload.InvId}:p2`).digest('hex').toUpperCase(),
    ]);
    expect(sent.headers).toEqual({ 'content-type': 'application/x-www-form-urlencoded' });
  });

  it.each(['GET', 'POST'] as const)(
    'names the InvId a Robokassa endpoint stores a %s notification under',
    async (method) => {
      const payload = robokassaFixtures.result({ invId: '42', amount: 1999 });
      const delivery = signRobokassaDelivery({ payload, password2: 'robokassa-pw2', method });
      const endpoint = robokassaEndpoint({ name: 'robokassa', password2: 'robokassa-pw2' });
      expect(await storedEventIds(endpoint, delivery)).toEqual(['42']);
      expect(delivery.eventId).toBe('42');
    },
  );
});

describe('robokassaFixtures', () => {
  it('writes OutSum with six decimals and user parameters as Shp_', () => {
    expect(
      robokassaFixtures.result({ invId: '9', amount: 1999, shp: { orderId: 'order-9' } }),
    ).toMatchObject({ OutSum: '19.990000', InvId: '9', Shp_orderId: 'order-9' });
    expect(robokassaFixtures.result({ test: true }).IsTest).toBe('1');
    expect(robokassaFixtures.result()).not.toHaveProperty('IsTest');
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
    const { signing } = robokassaProvider.descriptor;
    const post = signing.sign(input({}));
    expect(post).toMatchObject({
      method: 'POST',
      body: 'OutSum=100.000000&InvId=5&SignatureValue=1CF90B964035DF7DD221EBCCEF94E63B',
    });
    expect(signing.sign(input({ method: 'GET' })).method).toBe('GET');
    expect(() => signing.sign(input({ 'hash-algorithm': 'crc32' }))).toThrow(
      /--hash-algorithm takes md5 or sha1/,
    );
  });
});
