import { ConfigurableModuleBuilder, Provider } from '@nestjs/common';
import { WebhooksModuleOptions } from '../options/webhooks-module-options.interface';
import { WebhooksModuleExtras } from './webhooks-module-extras';
import { DEFAULT_WEBHOOKS_PATH } from './webhooks.constants';
import { createWebhooksModuleParts } from './webhooks.providers';

/** The options `forRoot()` was given; undefined under `forRootAsync()`, where a factory makes them. */
function givenOptions(providers: Provider[] | undefined): WebhooksModuleOptions | undefined {
  for (const provider of providers ?? []) {
    if (
      typeof provider === 'object' &&
      provider.provide === WEBHOOKS_MODULE_OPTIONS &&
      'useValue' in provider
    ) {
      return provider.useValue as WebhooksModuleOptions;
    }
  }
  return undefined;
}

export const {
  ConfigurableModuleClass: ConfigurableWebhooksModule,
  MODULE_OPTIONS_TOKEN: WEBHOOKS_MODULE_OPTIONS,
  OPTIONS_TYPE: WEBHOOKS_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: WEBHOOKS_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<WebhooksModuleOptions>({ moduleName: 'Webhooks' })
  .setClassMethodName('forRoot')
  .setExtras<WebhooksModuleExtras>(
    {
      isGlobal: false,
      path: DEFAULT_WEBHOOKS_PATH,
      dataSource: undefined,
      controllerDecorators: [],
      admin: undefined,
    },
    (definition, extras) => {
      const parts = createWebhooksModuleParts(
        extras,
        WEBHOOKS_MODULE_OPTIONS,
        givenOptions(definition.providers),
      );
      return {
        ...definition,
        global: extras.isGlobal,
        imports: [...(definition.imports ?? []), ...parts.imports],
        controllers: [...(definition.controllers ?? []), ...parts.controllers],
        providers: [...(definition.providers ?? []), ...parts.providers],
        exports: [...(definition.exports ?? []), ...parts.exports],
      };
    },
  )
  .build();
