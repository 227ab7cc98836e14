import { DynamicModule, Inject, Module, OnModuleInit } from '@nestjs/common';
import {
  ConfigurableIdempotencyModule,
  IDEMPOTENCY_OPTIONS_TYPE,
} from './idempotency.module-definition';
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
@Module({})
export class IdempotencyModule extends ConfigurableIdempotencyModule implements OnModuleInit {
  constructor(@Inject(TypeOrmIdempotencyStore) private readonly store: TypeOrmIdempotencyStore) {
    super();
  }

  /** Registers the module; takes no options today besides `isGlobal` and `dataSource`. */
  static override forRoot(options: typeof IDEMPOTENCY_OPTIONS_TYPE = {}): DynamicModule {
    return super.forRoot(options);
  }

  /**
   * Checks the idempotency tables exist as the migration makes them.
   * @throws WebhookConfigurationError naming the fix (`idempotencyMigrations`) otherwise.
   */
  async onModuleInit(): Promise<void> {
    await this.store.initialize();
  }
}
