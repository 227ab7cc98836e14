import 'reflect-metadata';
import { ShopDatabase } from '../../sample-app/src/shop-database';
import { DEVELOPMENT_SECRETS } from '../../sample-app/src/shop-settings';
import { startExpressShop } from '../support/sample-shop-apps';
import { describeSampleShop } from '../support/sample-shop-cases';
import {
  E2E_SECRETS,
  ENDPOINTS,
  paymentSucceeded,
  SECRET_NAMES,
  shopClient,
  shopDatabase,
  ShopUnderTest,
  useSecretEnv,
} from '../support/sample-shop';
import { eventually } from '../support/test-app';

/**
 * End-to-end tests of the sample shop on plain Express (sample-express/src): the shop built as
 * its main.ts builds it, listening on a random local port, driven through HTTP and the inbox
 * table with the same cases as the Nest shop. Nothing is mocked.
 */

/** The Express shop, built the way sample-express/src/main.ts builds it. */
async function startShop(database: ShopDatabase): Promise<ShopUnderTest> {
  const { url, transactions, close } = await startExpressShop(database);
  return shopClient(url, transactions, close);
}

describeSampleShop('Express sample shop', startShop);

describe('Express sample shop without secrets in the environment', () => {
  useSecretEnv(undefined);
  let shop: ShopUnderTest;
  let drop: () => Promise<void> = async () => undefined;
  const warnings: string[] = [];

  beforeAll(async () => {
    const db = await shopDatabase('sqlite');
    drop = db.drop;
    const warn = jest.spyOn(console, 'warn').mockImplementation((message: unknown) => {
      warnings.push(String(message));
    });
    try {
      shop = await startShop(db.database);
    } finally {
      warn.mockRestore();
    }
  });
  afterAll(async () => {
    await shop?.close();
    await drop();
  });

  it('warns loudly about each missing secret', () => {
    for (const name of SECRET_NAMES) {
      expect(warnings).toContainEqual(
        expect.stringContaining(`${name} is not set: using the PUBLIC development secret`),
      );
    }
  });

  it.each(ENDPOINTS)(
    'accepts /webhooks/%s deliveries signed with the documented development secret',
    async (endpoint) => {
      const order = await shop.createOrder();
      const refused = paymentSucceeded(endpoint, E2E_SECRETS, order.id);
      expect((await shop.deliver(refused)).status).toBe(400);
      const accepted = paymentSucceeded(endpoint, DEVELOPMENT_SECRETS, order.id);
      expect((await shop.deliver(accepted)).status).toBe(200);
      await eventually(async () => (await shop.getOrder(order.id)).body.state === 'paid');
      expect((await shop.getOrder(order.id)).body.fulfilments).toBe(1);
    },
  );
});
