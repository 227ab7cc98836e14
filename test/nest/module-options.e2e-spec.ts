import { CanActivate, SetMetadata } from '@nestjs/common';
import {
  stripeEndpoint,
  WebhooksModuleExtras,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { startTestApp } from '../support/test-app';

const STRIPE = stripeEndpoint({ name: 'stripe', secret: 'whsec_module_options_secret' });

class AllowAll implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

/** A value for each option that shapes the module, as a user would write it. */
const SHAPING_OPTIONS: [keyof WebhooksModuleExtras, unknown][] = [
  ['path', 'hooks'],
  ['controllerDecorators', [SetMetadata('isPublic', true)]],
  ['admin', { guards: [AllowAll] }],
  ['isGlobal', true],
  ['dataSource', 'inbox'],
];

describe('module-shaping options given to forRootAsync', () => {
  it.each(SHAPING_OPTIONS)(
    'fails startup when the factory returns `%s`, naming it and the fix',
    async (name, value) => {
      const fromFactory = { endpoints: [STRIPE], [name]: value } as WebhooksModuleOptions;
      const started = startTestApp({
        platform: 'express',
        database: 'sqlite',
        async: true,
        webhooks: fromFactory,
      });
      await expect(started).rejects.toThrow(`\`${name}\` came from the forRootAsync() factory`);
      await expect(started).rejects.toThrow('Pass it next to useFactory, as a builder extra');
    },
  );

  it('mounts the routes under `path` given next to useFactory', async () => {
    const t = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      async: true,
      webhooks: { endpoints: [STRIPE] },
      extras: { path: 'hooks' },
    });
    try {
      // Unsigned, so refused: but by the webhook route, not as an unknown route.
      const response = await post(`${t.url}/hooks/stripe`, '{}');
      expect(response.status).toBe(400);
      expect((await post(`${t.url}/webhooks/stripe`, '{}')).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
