import { createSourceAllowlist } from './source-allowlist';
import { WebhookConfigurationError } from './webhook-errors';

describe('createSourceAllowlist', () => {
  const yookassa = createSourceAllowlist('yookassa', [
    '185.71.76.0/27',
    '77.75.156.11',
    '2a02:5180::/32',
  ]);

  it.each([
    ['185.71.76.0', true],
    ['185.71.76.31', true],
    ['185.71.76.32', false],
    ['77.75.156.11', true],
    ['77.75.156.12', false],
    ['::ffff:185.71.76.5', true],
    ['::ffff:127.0.0.1', false],
    ['2a02:5180:0:1509::1', true],
    ['2a02:5181::1', false],
    ['not-an-ip', false],
    [undefined, false],
  ])('%s → %s', (ip, allowed) => {
    expect(yookassa.allows(ip)).toBe(allowed);
  });

  it.each(['185.71.76.0/33', '300.1.1.1', 'example.com', '10.0.0.0/8/1', '::1/129'])(
    'fails at startup on %s, naming the endpoint and the expected form',
    (entry) => {
      expect(() => createSourceAllowlist('yookassa', [entry])).toThrow(WebhookConfigurationError);
      expect(() => createSourceAllowlist('yookassa', [entry])).toThrow(/"yookassa".*CIDR/);
    },
  );
});
