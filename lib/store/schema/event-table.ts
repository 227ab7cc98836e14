import { DataSource, EntityMetadata } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { WebhookEventEntity } from './entities/webhook-event.entity';
import { fittedTo } from './fitted-value';
import { INSERT_COLUMNS } from './inbox-columns';

/**
 * What the store reads once from the event entity's metadata, and how it turns raw rows into
 * entities and entity values into parameters.
 */
export class EventTable {
  readonly entity: EntityMetadata;
  /** Every column, as a claim returns them. */
  readonly columns: string;
  /** The column each insert value is fitted to, in `INSERT_COLUMNS` order. */
  readonly inserted: readonly (ColumnMetadata | undefined)[];

  constructor(private readonly dataSource: DataSource) {
    this.entity = dataSource.getMetadata(WebhookEventEntity);
    this.columns = this.entity.columns.map((column) => column.databaseName).join(', ');
    // NOTE: the body and the headers are made storable as they are written out (base64 for a
    // body PostgreSQL's text cannot hold, JSON for the headers); checking them again would
    // only cost a scan of the body.
    this.inserted = INSERT_COLUMNS.map((name) =>
      name === 'raw_body' || name === 'headers'
        ? undefined
        : this.entity.findColumnWithDatabaseName(name),
    );
  }

  /** An event entity from a raw row, converted the way TypeORM reads the column. */
  hydrate(row: Record<string, unknown>): WebhookEventEntity {
    const entity = new WebhookEventEntity();
    const target = entity as unknown as Record<string, unknown>;
    for (const column of this.entity.columns) {
      target[column.propertyName] = this.dataSource.driver.prepareHydratedValue(
        row[column.databaseName],
        column,
      );
    }
    return entity;
  }

  /**
   * `changes` as `column = placeholder` assignments, each value stored the way TypeORM writes
   * the column and fitted to it; `bind` returns a value's placeholder.
   */
  assignments(changes: Partial<WebhookEventEntity>, bind: (value: unknown) => string): string[] {
    return Object.entries(changes).map(([property, value]) => {
      const column = this.entity.findColumnWithPropertyName(property)!;
      const stored: unknown = this.dataSource.driver.preparePersistentValue(value, column);
      return `${column.databaseName} = ${bind(fittedTo(column, stored))}`;
    });
  }
}
