import 'reflect-metadata';
import { Logger, LoggerService } from '@nestjs/common';
import { ShopDatabase } from '../../sample-app/src/app.module';
import { DEVELOPMENT_SECRETS } from '../../sample-app/src/config';
import { startNestShop } from '../support/sample-shop-apps';
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
 * End-to-end tests of the sample shop (sample-app/src): the real AppModule booted as main.ts
 * boots it, signed by the providers' own SDK signers (or node:crypto where there is no SDK),
 * observed only through HTTP and the inbox table. Nothing is mocked. The cases are shared with
 * the plain Express shop (test/support/sample-shop-cases.ts).
 */

/** The sample shop, booted the way sample-app/src/main.ts boots it, on a random local port. */
async function startShop(database: ShopDatabase): Promise<ShopUnderTest> {
  const { url, transactions, close } = await startNestShop(database);
  return shopClient(url, transactions, close);
}

describeSampleShop('sample shop', startShop);

/** Records what the sample logs before Nest's own logger is configured. */
class RecordingLogger implements LoggerService {
  readonly warnings: string[] = [];
  log(): void {}
  error(): void {}
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
}

describe('sample shop without secrets in the environment', () => {
  useSecretEnv(undefined);
  let shop: ShopUnderTest;
  let drop: () => Promise<void> = async () => undefined;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    const db = await shopDatabase('sqlite');
    drop = db.drop;
    Logger.overrideLogger(logger);
    shop = await startShop(db.database);
  });
  afterAll(async () => {
    await shop?.close();
    await drop();
  });

  it('warns loudly about each missing secret', () => {
    for (const name of SECRET_NAMES) {
      expect(logger.warnings).toContainEqual(
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
