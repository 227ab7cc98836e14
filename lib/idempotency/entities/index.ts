import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { IdempotentCallEntity } from './idempotent-call.entity';

export { IdempotencyKeyEntity, IdempotentCallEntity };

/**
 * The entities `IdempotencyModule` stores; `IdempotencyModule.forRoot()` registers them with
 * `TypeOrmModule.forFeature`, so add them to `entities` only when you do not use
 * `autoLoadEntities`.
 */
export const idempotencyEntities = [IdempotencyKeyEntity, IdempotentCallEntity];
