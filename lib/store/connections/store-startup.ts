import { WebhookConfigurationError } from '../../core/webhook-errors';
import { ASYNC_COMMIT, MISSING_ENTITIES, MISSING_TABLES } from '../schema/schema.messages';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { guardNewConnections } from './connection-errors';
import { checkTables } from '../schema/schema-check';
import { makeDurable, SqliteConnections, sqliteFileOf } from './sqlite-connections';
import { StoreConnection } from './store-connection';
import { WEBHOOK_TABLES } from '../schema/webhooks-schema';

/**
 * Checks the data source can hold the inbox durably and opens the package's own SQLite
 * connections; fails startup with the fix otherwise (closing what it opened).
 * @param sqliteIntakePath see `TypeOrmWebhookStoreOptions.sqliteIntakePath`.
 */
export async function openStore(
  connection: StoreConnection,
  sqliteIntakePath?: string,
): Promise<void> {
  const app = connection.appDataSource;
  if (!app.hasMetadata(WebhookEventEntity)) {
    throw new WebhookConfigurationError(MISSING_ENTITIES);
  }
  if (connection.dialect.kind === 'sqlite') {
    await connection.lock.run(() => makeDurable(app));
    const file = sqliteFileOf(app);
    if (file) {
      connection.sqlite = await SqliteConnections.open(
        app,
        file,
        connection.lock,
        sqliteIntakePath,
      );
    }
  } else {
    guardNewConnections(app);
    await refuseAsyncCommit(connection);
  }
  try {
    const { dataSource } = connection;
    const found = await connection.lock.run(() =>
      checkTables(dataSource, dataSource.manager, WEBHOOK_TABLES),
    );
    if (!found) {
      throw new WebhookConfigurationError(MISSING_TABLES);
    }
    await connection.lock.run(async () => connection.sqlite?.moveStaged());
  } catch (error) {
    await connection.sqlite?.close();
    throw error;
  }
}

/** An acknowledged event must survive a crash: PostgreSQL must not commit asynchronously. */
async function refuseAsyncCommit(connection: StoreConnection): Promise<void> {
  const [row] = (await connection.dataSource.query('SHOW synchronous_commit')) as {
    synchronous_commit: string;
  }[];
  if (row?.synchronous_commit === 'off') {
    throw new WebhookConfigurationError(ASYNC_COMMIT);
  }
}
