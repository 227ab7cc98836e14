import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Column, DataSource, Entity, EntityManager, PrimaryColumn } from 'typeorm';
import { WebhookConfigurationError } from 'nestjs-payment-webhooks';
import type { PaymentEvent } from 'nestjs-payment-webhooks';
import {
  applyPaymentEvent,
  definePaymentStates,
  PaymentStateLogger,
  paymentStateTarget,
  transition,
  TransitionResult,
} from 'nestjs-payment-webhooks/payments';
import { ConnectionLock } from '../support/internals';
import { createTestDatabase, TestDatabase } from '../support/postgres';

type Database = 'sqlite' | 'postgres';

@Entity({ name: 'state_payments' })
class Payment {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'payment_ref', type: 'varchar', length: 64, unique: true })
  paymentRef!: string;

  @Column({ type: 'varchar', length: 32 })
  status!: string;

  @Column({ name: 'status_changed_at', type: Date, nullable: true })
  statusChangedAt!: Date | null;

  @Column({ name: 'status_version', type: 'integer', nullable: true })
  statusVersion!: number | null;

  /** How many times the paid-payment action ran. Must never exceed 1. */
  @Column({ type: 'integer', default: 0 })
  fulfilments!: number;
}

class StatusBlock {
  @Column({ type: 'varchar', length: 32 })
  value!: string;

  @Column({ type: Date, nullable: true })
  changedAt!: Date | null;
}

/** A payment whose state lives in an embedded object (columns status_value, status_changed_at). */
@Entity({ name: 'state_embedded_payments' })
class EmbeddedPayment {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column(() => StatusBlock, { prefix: 'status_' })
  status!: StatusBlock;
}

/** An entity the data sources do not register. */
@Entity({ name: 'state_unregistered' })
class Unregistered {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 32 })
  state!: string;
}

const paymentStates = definePaymentStates({
  states: ['created', 'pending', 'paid', 'canceled', 'disputed', 'partially_refunded', 'refunded'],
  transitions: {
    created: ['pending'],
    pending: ['paid', 'canceled'],
    paid: ['partially_refunded', 'refunded', 'disputed'],
    partially_refunded: ['refunded', 'disputed'],
    disputed: ['paid', 'refunded'],
  },
  events: {
    'payment.succeeded': 'paid',
    'payment.canceled': 'canceled',
    'refund.succeeded': 'refunded',
    'dispute.opened': 'disputed',
  },
});

const payments = paymentStateTarget(Payment, {
  machine: paymentStates,
  state: 'status',
  occurredAt: 'statusChangedAt',
});
const paymentsByRef = paymentStateTarget(Payment, {
  machine: paymentStates,
  state: 'status',
  key: 'paymentRef',
});
const versionedPayments = paymentStateTarget(Payment, {
  machine: paymentStates,
  state: 'status',
  version: 'statusVersion',
});

/** A logger that keeps what it was told. */
class RecordingLogger implements PaymentStateLogger {
  readonly lines: string[] = [];
  log(message: string): void {
    this.lines.push(`log: ${message}`);
  }
  warn(message: string): void {
    this.lines.push(`warn: ${message}`);
  }
}

let sequence = 0;

function event(
  type: PaymentEvent['type'],
  merchantRef: string | null,
  occurredAt: Date | null = null,
): PaymentEvent {
  const eventId = `evt_state_${process.pid}_${sequence++}`;
  return {
    id: `inbox-${eventId}`,
    endpoint: 'stripe',
    provider: 'stripe',
    eventId,
    type,
    nativeType: type,
    paymentRef: `pi_${eventId}`,
    merchantRef,
    amount: 500,
    currency: 'eur',
    status: null,
    occurredAt,
    receivedAt: new Date(),
    payload: {},
    account: null,
    tenant: null,
    attempt: 1,
    verified: null,
  };
}

function at(seconds: number): Date {
  return new Date(Date.UTC(2025, 0, 1, 12, 0, seconds, 250));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe.each<Database>(['sqlite', 'postgres'])('payment state transitions on %s', (database) => {
  let dataSource: DataSource;
  let testDatabase: TestDatabase | undefined;
  /** Serializes transactions on SQLite's one connection, as the package's store does. */
  let lock: ConnectionLock;
  let logger: RecordingLogger;

  function inTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return lock.run(() => dataSource.transaction(work));
  }

  async function newPayment(status = 'pending', changes: Partial<Payment> = {}): Promise<string> {
    const id = `pay-${process.pid}-${sequence++}`;
    await inTransaction((manager) =>
      manager.insert(Payment, {
        id,
        paymentRef: `ref-${id}`,
        status,
        statusChangedAt: null,
        statusVersion: null,
        fulfilments: 0,
        ...changes,
      }),
    );
    return id;
  }

  function payment(id: string): Promise<Payment> {
    return inTransaction((manager) => manager.findOneByOrFail(Payment, { id }));
  }

  /** A handler's work: apply the event, and fulfil only when this call moved the payment. */
  function handle(paymentEvent: PaymentEvent, holdMs = 0) {
    return inTransaction(async (manager) => {
      const result = await applyPaymentEvent(
        manager,
        payments,
        paymentEvent.merchantRef,
        paymentEvent,
        { logger },
      );
      if (result.outcome === 'applied' && result.to === 'paid') {
        await manager.increment(Payment, { id: paymentEvent.merchantRef! }, 'fulfilments', 1);
        await sleep(holdMs);
      }
      return result;
    });
  }

  beforeAll(async () => {
    const entities = [Payment, EmbeddedPayment];
    if (database === 'postgres') {
      testDatabase = await createTestDatabase();
      dataSource = new DataSource({
        type: 'postgres',
        url: testDatabase.url,
        entities,
        synchronize: true,
        poolSize: 20,
      });
    } else {
      dataSource = new DataSource({
        type: 'better-sqlite3',
        database: join(mkdtempSync(join(tmpdir(), 'pw-states-')), 'states.sqlite'),
        entities,
        synchronize: true,
      });
    }
    await dataSource.initialize();
    lock = new ConnectionLock(database === 'sqlite');
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await testDatabase?.drop();
  });

  beforeEach(() => {
    logger = new RecordingLogger();
  });

  it('applies an allowed transition and stores when it happened', async () => {
    const id = await newPayment();
    const result = await inTransaction((manager) =>
      transition(manager, payments, id, 'paid', { occurredAt: at(2), logger }),
    );
    expect(result).toEqual({ outcome: 'applied', changed: true, to: 'paid' });
    const row = await payment(id);
    expect(row.status).toBe('paid');
    expect(row.statusChangedAt?.toISOString()).toBe(at(2).toISOString());
    expect(logger.lines).toEqual([]);
  });

  it('refuses canceled after paid: not_allowed, logged, and the payment stays paid', async () => {
    const id = await newPayment('paid');
    const result = await inTransaction((manager) =>
      transition(manager, payments, id, 'canceled', { logger }),
    );
    expect(result).toEqual({
      outcome: 'not_allowed',
      changed: false,
      to: 'canceled',
      from: 'paid',
    });
    expect((await payment(id)).status).toBe('paid');
    expect(logger.lines).toEqual([
      `log: Payment "${id}" stays "paid": "canceled" is allowed only from "pending".`,
    ]);
  });

  it('never lets a late pending (or created) overwrite paid', async () => {
    const id = await newPayment('paid');
    const [pending, created] = await inTransaction(async (manager) => [
      await transition(manager, payments, id, 'pending', { logger }),
      // NOTE: no transition leads to "created": reported, not thrown, and no update is tried.
      await transition(manager, payments, id, 'created', { logger }),
    ]);
    expect(pending).toEqual({
      outcome: 'not_allowed',
      changed: false,
      to: 'pending',
      from: 'paid',
    });
    expect(created).toEqual({
      outcome: 'not_allowed',
      changed: false,
      to: 'created',
      from: 'paid',
    });
    expect((await payment(id)).status).toBe('paid');
    expect(logger.lines).toEqual([
      `log: Payment "${id}" stays "paid": "pending" is allowed only from "created".`,
      `log: Payment "${id}" stays "paid": no transition leads to "created".`,
    ]);
  });

  it('reports an older event as stale and applies one from the same instant or later', async () => {
    const id = await newPayment('paid', { statusChangedAt: at(20) });
    const late = await inTransaction((manager) =>
      transition(manager, payments, id, 'disputed', { occurredAt: at(10), logger }),
    );
    expect(late).toEqual({
      outcome: 'stale',
      changed: false,
      to: 'disputed',
      from: 'paid',
      staleBy: 'occurredAt',
    });
    expect(await payment(id)).toMatchObject({ status: 'paid', statusChangedAt: at(20) });
    expect(logger.lines).toEqual([
      `log: Payment "${id}" stays "paid": the move to "disputed" is older than its current state (by occurredAt).`,
    ]);

    // Same instant (providers often send whole seconds): not older, so it applies.
    const opened = await inTransaction((manager) =>
      transition(manager, payments, id, 'disputed', { occurredAt: at(20), logger }),
    );
    expect(opened.outcome).toBe('applied');
    const won = await inTransaction((manager) =>
      transition(manager, payments, id, 'paid', { occurredAt: at(30) }),
    );
    expect(won.outcome).toBe('applied');
    // The dispute's opening arriving again after it was won is allowed by the machine, but stale.
    const replayed = await inTransaction((manager) =>
      transition(manager, payments, id, 'disputed', { occurredAt: at(20), logger: null }),
    );
    expect(replayed).toMatchObject({ outcome: 'stale', from: 'paid' });
    expect(await payment(id)).toMatchObject({ status: 'paid', statusChangedAt: at(30) });
  });

  it('guards by version: only a greater version applies, and it is stored', async () => {
    const id = await newPayment();
    const run = (to: 'paid' | 'partially_refunded' | 'refunded', version: number) =>
      inTransaction((manager) =>
        transition(manager, versionedPayments, id, to, { version, logger }),
      );
    expect((await run('paid', 3)).outcome).toBe('applied');
    expect(await run('partially_refunded', 3)).toMatchObject({
      outcome: 'stale',
      from: 'paid',
      staleBy: 'version',
    });
    expect((await run('partially_refunded', 4)).outcome).toBe('applied');
    expect(await run('refunded', 2)).toMatchObject({
      outcome: 'stale',
      from: 'partially_refunded',
    });
    expect(await payment(id)).toMatchObject({ status: 'partially_refunded', statusVersion: 4 });
  });

  it('reports a missing row as not_found, with a warning', async () => {
    const result = await inTransaction((manager) =>
      transition(manager, payments, 'no-such-payment', 'paid', { logger }),
    );
    expect(result).toEqual({ outcome: 'not_found', changed: false, to: 'paid' });
    expect(logger.lines).toEqual([
      'warn: Payment "no-such-payment" does not exist; not moved to "paid".',
    ]);
  });

  it('finds rows by another unique key, and narrows the source states with from', async () => {
    const id = await newPayment('paid');
    const ref = `ref-${id}`;
    const narrowed = await inTransaction((manager) =>
      transition(manager, paymentsByRef, ref, 'refunded', {
        from: 'partially_refunded',
        logger,
      }),
    );
    expect(narrowed).toEqual({
      outcome: 'not_allowed',
      changed: false,
      to: 'refunded',
      from: 'paid',
    });
    const refunded = await inTransaction((manager) =>
      transition(manager, paymentsByRef, ref, 'refunded', { from: ['paid', 'partially_refunded'] }),
    );
    expect(refunded.outcome).toBe('applied');
    expect((await payment(id)).status).toBe('refunded');
  });

  it('writes and guards state kept in embedded columns', async () => {
    // NOTE: property paths of embeddeds are not keys of the entity type, hence the casts.
    const embedded = paymentStateTarget(EmbeddedPayment, {
      machine: paymentStates,
      state: 'status.value' as 'status',
      occurredAt: 'status.changedAt' as 'status',
    });
    const id = `emb-${process.pid}-${sequence++}`;
    await inTransaction((manager) =>
      manager.insert(EmbeddedPayment, { id, status: { value: 'pending', changedAt: null } }),
    );
    const paid = await inTransaction((manager) =>
      transition(manager, embedded, id, 'paid', { occurredAt: at(7), logger }),
    );
    expect(paid.outcome).toBe('applied');
    const late = await inTransaction((manager) =>
      transition(manager, embedded, id, 'refunded', { occurredAt: at(6), logger }),
    );
    expect(late).toMatchObject({ outcome: 'stale', from: 'paid' });
    const row = await inTransaction((manager) => manager.findOneByOrFail(EmbeddedPayment, { id }));
    expect(row.status).toEqual({ value: 'paid', changedAt: at(7) });
  });

  it('of 50 concurrent transitions pending → paid, exactly one applies', async () => {
    const id = await newPayment();
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        inTransaction(async (manager) => {
          const result = await transition(manager, payments, id, 'paid', { logger: null });
          if (result.changed) {
            await manager.increment(Payment, { id }, 'fulfilments', 1);
            // NOTE: hold the winner's transaction open so that the others queue behind its lock.
            await sleep(50);
          }
          return result;
        }),
      ),
    );
    const outcomes = results.map((result: TransitionResult) => result.outcome);
    expect(outcomes.filter((outcome) => outcome === 'applied')).toHaveLength(1);
    expect(
      results.filter((result) => result.outcome === 'not_allowed' && result.from === 'paid'),
    ).toHaveLength(49);
    expect(await payment(id)).toMatchObject({ status: 'paid', fulfilments: 1 });
  });

  it('two different events for one payment: one applies, the effect runs once', async () => {
    const id = await newPayment();
    // A re-send under a new event id, or a provider's two events for one payment.
    const first = event('payment.succeeded', id, at(5));
    const second = event('payment.succeeded', id, at(5));
    const results = await Promise.all([handle(first, 50), handle(second, 50)]);
    expect(results.map((result) => result.outcome).sort()).toEqual(['applied', 'not_allowed']);
    expect(await payment(id)).toMatchObject({ status: 'paid', fulfilments: 1 });
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatch(
      new RegExp(
        `^log: stripe evt_state_\\S+ \\(payment.succeeded\\): Payment "${id}" stays "paid"`,
      ),
    );
  });

  it('applies events through the machine: unmapped types are ignored, no id is not_found', async () => {
    const id = await newPayment();
    const disputeClosed = await handle(event('dispute.closed', id, at(1)));
    expect(disputeClosed).toEqual({ outcome: 'ignored', changed: false, type: 'dispute.closed' });
    const withoutId = await handle(event('payment.succeeded', null, at(1)));
    expect(withoutId).toEqual({ outcome: 'not_found', changed: false, to: 'paid' });
    expect(logger.lines).toEqual([
      expect.stringMatching(/^warn: stripe evt_state_\S+ \(payment.succeeded\): no payment id/),
    ]);
    // An event without a time applies and keeps the stored time.
    const paid = await handle(event('payment.succeeded', id, null));
    expect(paid).toEqual({ outcome: 'applied', changed: true, to: 'paid' });
    expect(await payment(id)).toMatchObject({
      status: 'paid',
      statusChangedAt: null,
      fulfilments: 1,
    });
  });

  it('rolls the state back with the caller’s transaction, so a retry applies again', async () => {
    const id = await newPayment();
    await expect(
      inTransaction(async (manager) => {
        const result = await transition(manager, payments, id, 'paid');
        expect(result.changed).toBe(true);
        throw new Error('the e-mail service is down');
      }),
    ).rejects.toThrow('the e-mail service is down');
    expect((await payment(id)).status).toBe('pending');
    const retried = await inTransaction((manager) => transition(manager, payments, id, 'paid'));
    expect(retried.outcome).toBe('applied');
  });

  it('throws on programming errors, naming the fix', async () => {
    const id = await newPayment();
    const attempt = (work: (manager: EntityManager) => Promise<unknown>) =>
      inTransaction(work).then(
        () => {
          throw new Error('no error was thrown');
        },
        (error: Error) => {
          expect(error).toBeInstanceOf(WebhookConfigurationError);
          return error.message;
        },
      );
    expect(await attempt((m) => transition(m, payments, id, 'payed' as 'paid'))).toMatch(
      /"payed" is not a state of this payment state machine/,
    );
    expect(
      await attempt((m) => transition(m, payments, id, 'paid', { from: ['pending', 'refunded'] })),
    ).toMatch(/allows "paid" only from "pending", "disputed"/);
    expect(await attempt((m) => transition(m, payments, id, 'paid', { from: [] }))).toMatch(
      /with from \[\]: an empty list allows no state/,
    );
    expect(await attempt((m) => transition(m, payments, Number.NaN, 'paid'))).toMatch(
      /id must be a string or a number \(got NaN\)/,
    );
    expect(
      await attempt((m) => transition(m, paymentsByRef, id, 'paid', { occurredAt: at(1) })),
    ).toMatch(/occurredAt was given, but the target for Payment has no occurredAt column/);
    expect(
      await attempt((m) => transition(m, payments, id, 'paid', { occurredAt: new Date('nope') })),
    ).toMatch(/occurredAt must be a valid Date/);
    expect(
      await attempt((m) =>
        transition(m, paymentStateTarget(Unregistered, { machine: paymentStates }), id, 'paid'),
      ),
    ).toMatch(/Unregistered is not an entity of this data source/);
    expect(
      await attempt((m) =>
        transition(m, paymentStateTarget(Payment, { machine: paymentStates }), id, 'paid'),
      ),
    ).toMatch(/state names the property "state", which is not a column of Payment .*"status"/);
    expect((await payment(id)).status).toBe('pending');
  });

  if (database === 'postgres') {
    it('tries again when the row moves into an allowed state between the update and the read', async () => {
      const id = await newPayment('created');
      // NOTE: stands in for another transaction committing "created → pending" right after this
      // one's update found nothing: a statement trigger makes that move once, after the update.
      await dataSource.query(`
        CREATE FUNCTION state_payments_promote() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF pg_trigger_depth() = 1 THEN
            UPDATE state_payments SET status = 'pending' WHERE id = '${id}' AND status = 'created';
          END IF;
          RETURN NULL;
        END $$`);
      await dataSource.query(
        'CREATE TRIGGER state_payments_promote AFTER UPDATE ON state_payments ' +
          'FOR EACH STATEMENT EXECUTE FUNCTION state_payments_promote()',
      );
      try {
        const result = await inTransaction((manager) =>
          transition(manager, payments, id, 'paid', { logger }),
        );
        expect(result).toEqual({ outcome: 'applied', changed: true, to: 'paid' });
        expect((await payment(id)).status).toBe('paid');
        expect(logger.lines).toEqual([]);
      } finally {
        await dataSource.query('DROP TRIGGER state_payments_promote ON state_payments');
        await dataSource.query('DROP FUNCTION state_payments_promote()');
      }
    });
  }
});
