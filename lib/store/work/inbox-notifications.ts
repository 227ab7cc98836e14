import { randomBytes } from 'node:crypto';
import { QueryRunner } from 'typeorm';
import { poolSizeOf } from '../connections/ingress-connections';
import { StoreConnection } from '../connections/store-connection';

/** PostgreSQL channel on which instances announce newly stored events to each other. */
const INBOX_CHANNEL = 'webhook_events_inbox';

/** How long announcements from one process are coalesced, in ms. */
const ANNOUNCE_COALESCE_MS = 10;

/** How long a broken listening connection waits before it listens again, in ms. */
const RELISTEN_MS = 1000;

/** The part of a `pg` client the listener uses: its notification and error events. */
interface NotificationClient {
  on(
    event: 'notification',
    listener: (message: { channel: string; payload?: string }) => void,
  ): void;
  on(event: 'error', listener: (error: Error) => void): void;
  removeListener(event: string, listener: (...args: never[]) => void): void;
}

/** A connection held for LISTEN, with the listeners put on its client. */
interface Listening {
  readonly runner: QueryRunner;
  readonly client: NotificationClient;
  readonly onNotification: (message: { channel: string; payload?: string }) => void;
  readonly onError: (error: Error) => void;
}

/**
 * PostgreSQL LISTEN/NOTIFY between instances sharing the inbox: a store announces pending
 * events it stored, and a dispatcher listening elsewhere wakes up for them.
 */
export class InboxNotifications {
  private announcing = false;
  /** Signs this store's notifications, so its own listener can tell them from other instances'. */
  private readonly announcer = randomBytes(8).toString('hex');

  constructor(private readonly connection: StoreConnection) {}

  /**
   * Tells other instances a pending event was stored. NOTIFY is sent after the insert committed
   * and at most once per short window, so a burst of deliveries costs one notification. Its
   * payload names this store, whose own listener skips it.
   */
  announce(): void {
    if (this.connection.dialect.kind !== 'postgres' || this.announcing) {
      return;
    }
    this.announcing = true;
    setTimeout(() => {
      this.announcing = false;
      this.connection.dataSource
        .query('SELECT pg_notify($1, $2)', [INBOX_CHANNEL, this.announcer])
        .catch(() => undefined);
    }, ANNOUNCE_COALESCE_MS).unref();
  }

  /**
   * Calls `listener` when another process stores a pending event (PostgreSQL; a no-op
   * elsewhere). Resolves to a function that stops listening.
   */
  async watch(listener: () => void): Promise<() => Promise<void>> {
    const { dataSource, dialect } = this.connection;
    if (dialect.kind !== 'postgres') {
      return async () => undefined;
    }
    if (poolSizeOf(dataSource) < 2) {
      throw new Error(
        'the PostgreSQL pool has one connection, which listening would hold for good; set the ' +
          "data source's poolSize to 4 or more (2 is enough to listen)",
      );
    }
    let active = true;
    let current: Listening | undefined;
    let retry: NodeJS.Timeout | undefined;
    const relisten = () => {
      retry = setTimeout(() => void connect(), RELISTEN_MS);
      retry.unref();
    };
    const connect = async (): Promise<void> => {
      if (!active) {
        return;
      }
      try {
        const listening = await this.listen(listener, () => {
          // NOTE: the connection broke (server restart, network): listen again on a new one;
          // polling covers the gap, and a wake-up on reconnect catches what was missed.
          current = undefined;
          if (active) {
            relisten();
          }
        });
        if (!active) {
          // NOTE: it stopped while this connection was being opened: the pool gets it back, or
          // closing the pool would wait for it for good.
          await this.unlisten(listening);
          return;
        }
        current = listening;
        listener();
      } catch {
        current = undefined;
        if (active) {
          relisten();
        }
      }
    };
    await connect();
    return async () => {
      active = false;
      clearTimeout(retry);
      const stopping = current;
      current = undefined;
      if (stopping) {
        await this.unlisten(stopping);
      }
    };
  }

  /** Stops listening on a connection and gives it back to the pool. */
  private async unlisten(listening: Listening): Promise<void> {
    await listening.runner.query(`UNLISTEN ${INBOX_CHANNEL}`).catch(() => undefined);
    this.forget(listening);
    await listening.runner.release().catch(() => undefined);
  }

  /** Takes a connection for itself and listens on it; `broken` runs when it fails. */
  private async listen(listener: () => void, broken: () => void): Promise<Listening> {
    const runner = this.connection.dataSource.createQueryRunner('master');
    try {
      const client = (await runner.connect()) as NotificationClient;
      const listening: Listening = {
        runner,
        client,
        onNotification: (message) => {
          // NOTE: this process learns of its own inserts from the ingress at once; waking on
          // their echo would only cost a claim that finds nothing.
          if (message.channel === INBOX_CHANNEL && message.payload !== this.announcer) {
            listener();
          }
        },
        onError: () => {
          // NOTE: TypeORM's own error listener gives the broken connection back to the pool.
          this.forget(listening);
          void runner.release().catch(() => undefined);
          broken();
        },
      };
      await runner.query(`LISTEN ${INBOX_CHANNEL}`);
      // NOTE: a notification that arrives before these are attached is covered by the wake-up
      // that follows every LISTEN.
      client.on('notification', listening.onNotification);
      client.on('error', listening.onError);
      return listening;
    } catch (error) {
      await runner.release().catch(() => undefined);
      throw error;
    }
  }

  private forget({ client, onNotification, onError }: Listening): void {
    client.removeListener('notification', onNotification);
    client.removeListener('error', onError);
  }
}
