/** Error texts of building the engine. Each one names the fix. */

export const NO_STORE =
  'The webhook engine needs the TypeORM data source holding the inbox, or a store of your own: ' +
  'pass `dataSource` (initialized, with webhooksMigrations run) or `store`.';
