import { DynamicModule, Module, Provider, ValueProvider } from '@nestjs/common';
import { WEBHOOKS_MODULE_OPTIONS, WebhooksModule } from 'nestjs-payment-webhooks';
import type {
  WebhookBatchOptions,
  WebhookDispatchOptions,
  WebhookInlineOptions,
  WebhookObservabilityOptions,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
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

/** What the runner changes in the shop's webhook options; the rest is the shop's. */
interface OptionsPatch {
  readonly dispatch: WebhookDispatchOptions;
  readonly observability: WebhookObservabilityOptions;
}

/** The shop's webhook module registration with these settings, all else kept. */
function withOptions(imported: DynamicModule, patch: OptionsPatch): DynamicModule {
  const providers = (imported.providers ?? []).map((provider) =>
    isOptionsProvider(provider)
      ? {
          ...provider,
          useValue: {
            ...provider.useValue,
            dispatch: { ...provider.useValue.dispatch, ...patch.dispatch },
            observability: { ...provider.useValue.observability, ...patch.observability },
          },
        }
      : provider,
  );
  if (!providers.some(isOptionsProvider)) {
    throw new Error('BENCH_*: the shop registers WebhooksModule asynchronously');
  }
  return { ...imported, providers };
}

/** The dispatcher settings the runner asked for, from the environment. */
function dispatchFromEnv(): WebhookDispatchOptions {
  const concurrency = Number(process.env.BENCH_DISPATCH_CONCURRENCY ?? 0);
  const batch = process.env.BENCH_DISPATCH_BATCH;
  const inline = process.env.BENCH_DISPATCH_INLINE;
  return {
    ...(concurrency > 0 ? { concurrency } : {}),
    ...(process.env.BENCH_DISPATCH_ENABLED === 'false' ? { enabled: false } : {}),
    ...(batch
      ? { batch: batch === 'true' ? true : (JSON.parse(batch) as WebhookBatchOptions) }
      : {}),
    ...(inline
      ? {
          inline:
            inline === 'true' || inline === 'false'
              ? inline === 'true'
              : (JSON.parse(inline) as WebhookInlineOptions),
        }
      : {}),
  };
}

/**
 * The observability the runner asked for, from the environment: `BENCH_JOURNAL=false` turns
 * the delivery journal off and `BENCH_METRICS=false` the metrics, to measure what each costs
 * (`npm run bench:floor -- --parts`).
 */
function observabilityFromEnv(): WebhookObservabilityOptions {
  return {
    ...(process.env.BENCH_JOURNAL === 'false' ? { journal: false } : {}),
    ...(process.env.BENCH_METRICS === 'false' ? { metrics: false } : {}),
  };
}

/**
 * The sample shop exactly as `sample-app/src/main.ts` runs it (its database, endpoints, orders,
 * handlers, operations routes), plus the benchmark's handler and routes. With
 * `BENCH_DISPATCH_CONCURRENCY` set, the shop's webhook module runs its dispatcher with that
 * concurrency instead of its own setting; the runner sets it only when asked
 * (`--dispatch-concurrency`), and `BENCH_DISPATCH_BATCH` (`true` or JSON options) likewise
 * (`--dispatch-batch`), and `BENCH_DISPATCH_INLINE` (`true`, `false` or JSON options) likewise
 * (`--dispatch-inline`). With `BENCH_DISPATCH_ENABLED=false` the app runs no handlers, as an
 * ingress-only instance would (`npm run bench:floor`); `BENCH_JOURNAL` and `BENCH_METRICS` likewise
 * (see {@link observabilityFromEnv}).
 */
@Module({})
export class BenchAppModule {
  static forRoot(): DynamicModule {
    const shop = AppModule.forRoot();
    const patch = { dispatch: dispatchFromEnv(), observability: observabilityFromEnv() };
    const imports =
      Object.keys(patch.dispatch).length + Object.keys(patch.observability).length > 0
        ? (shop.imports ?? []).map((imported) =>
            (imported as DynamicModule).module === WebhooksModule
              ? withOptions(imported as DynamicModule, patch)
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
