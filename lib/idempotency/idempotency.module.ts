import {
  ConfigurableModuleAsyncOptions,
  DynamicModule,
  Inject,
  Module,
  OnModuleInit,
} from '@nestjs/common';
import {
  IdempotencyModuleExtras,
  IdempotencyModuleOptions,
} from './idempotency-module-options.interface';
import { ConfigurableIdempotencyModule } from './idempotency.module-definition';
import { TypeOrmIdempotencyStore } from './typeorm-idempotency.store';

/**
 * Idempotency keys for the app's own API (`@Idempotent()`) and for its calls to other systems
 * (`IdempotentCall`), in the tables `idempotencyMigrations` create. Global unless
 * `isGlobal: false`. Next to `WebhooksModule` on the same database it shares the webhook
 * store's transactions, so on SQLite its writes wait their turn behind the handlers'.
 *
 * @example
 * ```ts
 * TypeOrmModule.forRoot({ ..., migrations: [...webhooksMigrations, ...idempotencyMigrations] }),
 * IdempotencyModule.forRoot(),
 * ```
 */
// NOTE: forRoot() and forRootAsync() call the builder's class rather than extend it, so that the
// declarations name only public types (API Extractor would flag the builder's class as a base).
@Module({})
export class IdempotencyModule implements OnModuleInit {
  /** @internal Nest constructs the module. */
  constructor(@Inject(TypeOrmIdempotencyStore) private readonly store: TypeOrmIdempotencyStore) {}

  /** Registers the module; takes no options today besides `isGlobal` and `dataSource`. */
  static forRoot(
    options: IdempotencyModuleOptions & Partial<IdempotencyModuleExtras> = {},
  ): DynamicModule {
    return { ...ConfigurableIdempotencyModule.forRoot(options), module: IdempotencyModule };
  }

  /** Registers the module with options a factory makes (`useFactory`, `useClass`, `useExisting`). */
  static forRootAsync(
    options: ConfigurableModuleAsyncOptions<IdempotencyModuleOptions> &
      Partial<IdempotencyModuleExtras>,
  ): DynamicModule {
    return { ...ConfigurableIdempotencyModule.forRootAsync(options), module: IdempotencyModule };
  }

  /**
   * Checks the idempotency tables exist as the migration makes them.
   * @throws WebhookConfigurationError naming the fix (`idempotencyMigrations`) otherwise.
   */
  async onModuleInit(): Promise<void> {
    await this.store.initialize();
  }
}
