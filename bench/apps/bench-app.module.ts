import { DynamicModule, Module, Provider, ValueProvider } from '@nestjs/common';
import { WEBHOOKS_MODULE_OPTIONS, WebhooksModule } from 'nestjs-payment-webhooks';
import type { WebhooksModuleOptions } from 'nestjs-payment-webhooks';
import { AppModule } from '../../sample-app/src/app.module';
import { BenchController } from './bench.controller';
import { BenchHandler } from './bench.handler';
import { CpuProfiler } from './cpu-profiler';
import { HeapWatch } from './heap-watch';
import { LagRecorder } from './lag-recorder';

function isOptionsProvider(provider: Provider): provider is ValueProvider<WebhooksModuleOptions> {
  return (
    typeof provider === 'object' &&
    'provide' in provider &&
    provider.provide === WEBHOOKS_MODULE_OPTIONS &&
    'useValue' in provider
  );
}

/** The shop's webhook module registration with another dispatcher concurrency, all else kept. */
function withDispatchConcurrency(imported: DynamicModule, concurrency: number): DynamicModule {
  const providers = (imported.providers ?? []).map((provider) =>
    isOptionsProvider(provider)
      ? {
          ...provider,
          useValue: {
            ...provider.useValue,
            dispatch: { ...provider.useValue.dispatch, concurrency },
          },
        }
      : provider,
  );
  if (!providers.some(isOptionsProvider)) {
    throw new Error('BENCH_DISPATCH_CONCURRENCY: the shop registers WebhooksModule asynchronously');
  }
  return { ...imported, providers };
}

/**
 * The sample shop exactly as `sample-app/src/main.ts` runs it (its database, endpoints, orders,
 * handlers, operations routes), plus the benchmark's handler and routes. With
 * `BENCH_DISPATCH_CONCURRENCY` set, the shop's webhook module runs its dispatcher with that
 * concurrency instead of its own setting; the runner sets it only when asked
 * (`--dispatch-concurrency`).
 */
@Module({})
export class BenchAppModule {
  static forRoot(): DynamicModule {
    const shop = AppModule.forRoot();
    const concurrency = Number(process.env.BENCH_DISPATCH_CONCURRENCY ?? 0);
    const imports =
      concurrency > 0
        ? (shop.imports ?? []).map((imported) =>
            (imported as DynamicModule).module === WebhooksModule
              ? withDispatchConcurrency(imported as DynamicModule, concurrency)
              : imported,
          )
        : shop.imports;
    return {
      module: BenchAppModule,
      imports: [{ ...shop, imports }],
      controllers: [BenchController],
      providers: [LagRecorder, BenchHandler, CpuProfiler, HeapWatch],
    };
  }
}
