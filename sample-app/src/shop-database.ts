/** Where the shop keeps its data. */
export interface ShopDatabase {
  /** PostgreSQL connection URL; when absent, SQLite at `sqlitePath`. */
  databaseUrl?: string;
  /** SQLite file. */
  sqlitePath: string;
}

/** How the sample shop is configured; each shop's `main.ts` reads it from the environment. */
export function shopDatabaseFromEnv(): ShopDatabase {
  return {
    databaseUrl: process.env.DATABASE_URL || undefined,
    sqlitePath: process.env.SQLITE_PATH || 'shop.sqlite',
  };
}
