import { ConfigurableModuleBuilder } from '@nestjs/common';
import {
  IdempotencyModuleExtras,
  IdempotencyModuleOptions,
} from './idempotency-module-options.interface';
import { createIdempotencyModuleParts } from './idempotency.providers';

export const {
  ConfigurableModuleClass: ConfigurableIdempotencyModule,
  MODULE_OPTIONS_TOKEN: IDEMPOTENCY_MODULE_OPTIONS,
  OPTIONS_TYPE: IDEMPOTENCY_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: IDEMPOTENCY_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<IdempotencyModuleOptions>({ moduleName: 'Idempotency' })
  .setClassMethodName('forRoot')
  .setExtras<IdempotencyModuleExtras>(
    { isGlobal: true, dataSource: undefined },
    (definition, extras) => {
      const parts = createIdempotencyModuleParts(extras);
      return {
        ...definition,
        global: extras.isGlobal,
        imports: [...(definition.imports ?? []), ...parts.imports],
        providers: [...(definition.providers ?? []), ...parts.providers],
        exports: [...(definition.exports ?? []), ...parts.exports],
      };
    },
  )
  .build();
