import { kit } from './gocardless.kit';

// NOTE: the SDK's root entry also loads its API client, which needs an ES-module-only uuid; its
// webhooks entry is CommonJS alone. TypeScript finds the types through the root entry.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse } = require('gocardless-nodejs/webhooks') as Pick<
  typeof import('gocardless-nodejs'),
  'parse'
>;

// NOTE: the kit signs with node:crypto; the official SDK must take what it sends.
describe('the GoCardless provider kit', () => {
  it('signs paid() as the official SDK parses it', () => {
    const { delivery: sent } = kit.paid('order-kit-1');
    const secret = 'gc_kit_webhook_secret_Qm7Lx2Vb9Ns4';
    expect(parse(sent.body, secret, sent.headers['webhook-signature'])).toHaveLength(1);
  });
});
