import { TableShape } from '../store/schema/schema-check';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity';
import { IdempotentCallEntity } from './entities/idempotent-call.entity';

/** The tables behind `@Idempotent` and `IdempotentCall`, as `CreateIdempotencyTables` makes them. */
export const IDEMPOTENCY_TABLES: readonly TableShape[] = [
  {
    table: 'idempotency_keys',
    entity: IdempotencyKeyEntity,
    indexes: ['uq_idempotency_keys_scope_principal_key', 'ix_idempotency_keys_expires_at'],
    checks: 2,
    references: [],
  },
  {
    table: 'idempotent_calls',
    entity: IdempotentCallEntity,
    indexes: ['uq_idempotent_calls_scope_key', 'ix_idempotent_calls_expires_at'],
    checks: 1,
    references: [],
  },
];
