/** Rows written by the probe handler, one per successful (event, handler) attempt. */
export const EFFECTS_TABLE = 'reliability_effects';

/**
 * Faults chosen per order by the runner: `marked` (every event fails in the probe handler until
 * the fix) and `slow` (the first attempt of each event takes `slowMs`).
 */
export const ORDER_FAULTS_TABLE = 'reliability_order_faults';

/** A fault an order can carry. */
export type OrderFault = 'marked' | 'slow';

/** Every change of an order's state or fulfilments, written by a trigger in the same transaction. */
export const TRANSITIONS_TABLE = 'reliability_order_transitions';

/** Which database the probes go into. */
export type ProbeDialect = 'postgres' | 'sqlite';

/**
 * Statements that install the probes on the shop's database, after its migrations ran: the
 * effects table, the order-faults table and a trigger recording every order transition.
 * Safe to run twice.
 */
export function probeStatements(dialect: ProbeDialect): string[] {
  if (dialect === 'postgres') {
    return [
      `CREATE TABLE IF NOT EXISTS ${EFFECTS_TABLE} (
        id bigserial PRIMARY KEY, inbox_id varchar(36) NOT NULL, endpoint varchar NOT NULL,
        event_id varchar NOT NULL, handler varchar NOT NULL, merchant_ref varchar,
        attempt integer NOT NULL, pid integer NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS ${ORDER_FAULTS_TABLE} (
        order_id varchar(64) NOT NULL, fault varchar(16) NOT NULL, PRIMARY KEY (order_id, fault))`,
      `CREATE TABLE IF NOT EXISTS ${TRANSITIONS_TABLE} (
        id bigserial PRIMARY KEY, order_id varchar(36) NOT NULL, from_state varchar NOT NULL,
        to_state varchar NOT NULL, fulfilments_before integer NOT NULL,
        fulfilments_after integer NOT NULL)`,
      `CREATE OR REPLACE FUNCTION reliability_order_transition() RETURNS trigger AS $$
       BEGIN
         INSERT INTO ${TRANSITIONS_TABLE}
           (order_id, from_state, to_state, fulfilments_before, fulfilments_after)
           VALUES (OLD.id, OLD.state, NEW.state, OLD.fulfilments, NEW.fulfilments);
         RETURN NEW;
       END $$ LANGUAGE plpgsql`,
      `CREATE OR REPLACE TRIGGER reliability_order_transition AFTER UPDATE ON orders FOR EACH ROW
       WHEN (NEW.state IS DISTINCT FROM OLD.state OR NEW.fulfilments IS DISTINCT FROM OLD.fulfilments)
       EXECUTE FUNCTION reliability_order_transition()`,
    ];
  }
  return [
    `CREATE TABLE IF NOT EXISTS ${EFFECTS_TABLE} (
      id integer PRIMARY KEY AUTOINCREMENT, inbox_id varchar(36) NOT NULL, endpoint varchar NOT NULL,
      event_id varchar NOT NULL, handler varchar NOT NULL, merchant_ref varchar,
      attempt integer NOT NULL, pid integer NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS ${ORDER_FAULTS_TABLE} (
      order_id varchar(64) NOT NULL, fault varchar(16) NOT NULL, PRIMARY KEY (order_id, fault))`,
    `CREATE TABLE IF NOT EXISTS ${TRANSITIONS_TABLE} (
      id integer PRIMARY KEY AUTOINCREMENT, order_id varchar(36) NOT NULL,
      from_state varchar NOT NULL, to_state varchar NOT NULL,
      fulfilments_before integer NOT NULL, fulfilments_after integer NOT NULL)`,
    `CREATE TRIGGER IF NOT EXISTS reliability_order_transition AFTER UPDATE ON orders FOR EACH ROW
     WHEN NEW.state IS NOT OLD.state OR NEW.fulfilments IS NOT OLD.fulfilments
     BEGIN
       INSERT INTO ${TRANSITIONS_TABLE}
         (order_id, from_state, to_state, fulfilments_before, fulfilments_after)
         VALUES (OLD.id, OLD.state, NEW.state, OLD.fulfilments, NEW.fulfilments);
     END`,
  ];
}
