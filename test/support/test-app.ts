import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Injectable,
  INestApplication,
  LoggerService,
  Module,
  ModuleMetadata,
  NestApplicationOptions,
  Provider,
  Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { TypeOrmModule, TypeOrmModuleOptions, getDataSourceToken } from '@nestjs/typeorm';
import { Column, DataSource, Entity, EntitySchema, PrimaryGeneratedColumn } from 'typeorm';
import type { BetterSqlite3DataSourceOptions } from 'typeorm/driver/better-sqlite3/BetterSqlite3DataSourceOptions';
import {
  OnPaymentEvent,
  PaymentEvent,
  WebhookContext,
  WebhooksModule,
  WebhooksModuleExtras,
  WebhooksModuleOptions,
  webhooksMigrations,
  NonRetryableError,
} from 'nestjs-payment-webhooks';
import { IdempotencyModule, idempotencyMigrations } from 'nestjs-payment-webhooks/idempotency';
import { createTestDatabase, TestDatabase } from './postgres';

export type Platform = 'express' | 'fastify';
export type Database = 'sqlite' | 'postgres';

/** One row per handler effect, written through ctx.manager: counting rows counts effects. */
@Entity({ name: 'test_effects' })
export class TestEffect {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar' })
  eventId!: string;

  @Column({ type: 'varchar' })
  handler!: string;

  @Column({ type: 'varchar', nullable: true })
  merchantRef!: string | null;
}

/** How the test handler behaves for an event id (by provider event id). */
export interface HandlerScript {
  /** Fail this many attempts before succeeding. */
  failTimes?: number;
  /** Always fail. */
  alwaysFail?: boolean;
  /** Throw NonRetryableError. */
  nonRetryable?: boolean;
  /** Wait this long inside the transaction. */
  delayMs?: number;
  /** Wait inside the transaction until this settles (after `delayMs`): a hold the test ends. */
  until?: Promise<unknown>;
}

/** Shared between a test and the handlers it boots. */
export class HandlerControl {
  readonly scripts = new Map<string, HandlerScript>();
  readonly calls: { eventId: string; attempt: number; handler: string }[] = [];
}

/**
 * What the test handlers do, on every platform: record the call, insert an effect row through
 * `ctx.manager`, then wait or fail as the event's script says.
 */
export async function applyTestEffect(
  control: HandlerControl,
  handler: string,
  event: PaymentEvent,
  ctx: WebhookContext,
): Promise<void> {
  control.calls.push({ eventId: event.eventId, attempt: ctx.attempt, handler });
  await ctx.manager.insert(TestEffect, {
    eventId: event.eventId,
    handler,
    merchantRef: event.merchantRef,
  });
  const script = control.scripts.get(event.eventId) ?? {};
  if (script.delayMs) {
    await new Promise((resolve) => setTimeout(resolve, script.delayMs));
  }
  await script.until;
  if (script.nonRetryable) {
    throw new NonRetryableError(`order for ${event.eventId} can never be applied`);
  }
  if (script.alwaysFail || (script.failTimes ?? 0) >= ctx.attempt) {
    throw new Error(`handler failure on attempt ${ctx.attempt}`);
  }
}

@Injectable()
export class TestPaymentHandlers {
  constructor(private readonly control: HandlerControl) {}

  @OnPaymentEvent(['payment.succeeded', 'payment.canceled', 'payment.failed'])
  async onPayment(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await applyTestEffect(this.control, 'payments', event, ctx);
  }

  @OnPaymentEvent('refund.succeeded')
  async onRefund(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await applyTestEffect(this.control, 'refunds', event, ctx);
  }
}

/**
 * The longest `storeTimeoutMs` the package takes. A suite that is not about the store's timeout
 * gets it, so that a busy machine (a CPU hog, the other Jest worker's load) slows its answers
 * down but never turns them into 503s; a suite about the timeout sets its own.
 */
export const TEST_STORE_TIMEOUT_MS = 30_000;

/** `webhooks` with `storeTimeoutMs` at {@link TEST_STORE_TIMEOUT_MS} unless it sets its own. */
export function withTestStoreTimeout<T extends { storeTimeoutMs?: number }>(webhooks: T): T {
  return { storeTimeoutMs: TEST_STORE_TIMEOUT_MS, ...webhooks };
}

export interface TestAppOptions {
  platform: Platform;
  database: Database;
  async?: boolean;
  webhooks: WebhooksModuleOptions;
  handlers?: Type<unknown>[];
  control?: HandlerControl;
  rawBody?: boolean;
  /** Connections in the PostgreSQL pool (10 unless set). */
  poolSize?: number;
  /** Module extras (path, controller decorators). */
  extras?: Pick<WebhooksModuleExtras, 'path' | 'controllerDecorators' | 'admin'>;
  /** More providers for the test module (e.g. an APP_GUARD). */
  providers?: Provider[];
  /** More controllers for the test module. */
  controllers?: Type<unknown>[];
  /** Reuse an existing database (e.g. to simulate a second instance or a restart). */
  databaseUrl?: string;
  sqliteFile?: string;
  /** TypeORM `synchronize` for the app's data source (off unless set). */
  synchronize?: boolean;
  /** Run the package's migrations at startup (on unless false). */
  migrations?: boolean;
  /** Import `IdempotencyModule` and run its migrations too (off unless set). */
  idempotency?: boolean;
  /** More entities for the app's data source (their tables are the test's to create). */
  entities?: (Type<unknown> | EntitySchema)[];
  /** The app's own better-sqlite3 options (e.g. `prepareDatabase`, `timeout`), on SQLite. */
  sqlite?: Pick<BetterSqlite3DataSourceOptions, 'prepareDatabase' | 'timeout'>;
  /** The app's logger (Nest's `logger` option); silent unless TEST_LOGS is set. */
  logger?: LoggerService;
  /** What the app's main.ts would do between creating the app and listening. */
  configure?: (app: INestApplication) => void;
  /** More modules the app imports (an agent's, as `nest new` adds one). */
  imports?: ModuleMetadata['imports'];
  /** Nest's `instrument` option, as the app's main.ts passes it to `NestFactory.create()`. */
  instrument?: NestApplicationOptions['instrument'];
}

export interface TestApp {
  app: INestApplication;
  url: string;
  dataSource: DataSource;
  control: HandlerControl;
  databaseUrl?: string;
  sqliteFile?: string;
  /** Closes the app and keeps its database, for another instance to go on with it. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export async function startTestApp(options: TestAppOptions): Promise<TestApp> {
  const control = options.control ?? new HandlerControl();
  let database: TestDatabase | undefined;
  let typeorm: TypeOrmModuleOptions;
  let sqliteFile: string | undefined;
  let databaseUrl: string | undefined;
  const migrations =
    options.migrations === false
      ? []
      : [...webhooksMigrations, ...(options.idempotency ? idempotencyMigrations : [])];
  if (options.database === 'postgres') {
    if (!options.databaseUrl) {
      database = await createTestDatabase();
    }
    databaseUrl = options.databaseUrl ?? database!.url;
    typeorm = {
      type: 'postgres',
      url: databaseUrl,
      autoLoadEntities: true,
      migrations,
      migrationsRun: true,
      synchronize: options.synchronize ?? false,
      entities: [TestEffect, ...(options.entities ?? [])],
      poolSize: options.poolSize ?? 10,
    };
  } else {
    sqliteFile =
      options.sqliteFile ?? join(mkdtempSync(join(tmpdir(), 'pw-sqlite-')), 'inbox.sqlite');
    typeorm = {
      type: 'better-sqlite3',
      database: sqliteFile,
      autoLoadEntities: true,
      migrations,
      migrationsRun: true,
      synchronize: options.synchronize ?? false,
      entities: [TestEffect, ...(options.entities ?? [])],
      ...options.sqlite,
    };
  }
  // NOTE: the test's own table is created here; the package's tables only through its migrations.
  const effectsTable =
    options.database === 'postgres'
      ? 'CREATE TABLE IF NOT EXISTS test_effects (id serial PRIMARY KEY, "eventId" varchar NOT NULL, handler varchar NOT NULL, "merchantRef" varchar)'
      : 'CREATE TABLE IF NOT EXISTS test_effects (id integer PRIMARY KEY AUTOINCREMENT, "eventId" varchar NOT NULL, handler varchar NOT NULL, "merchantRef" varchar)';

  const webhooks = withTestStoreTimeout(options.webhooks);
  const webhooksImport = options.async
    ? WebhooksModule.forRootAsync({ ...options.extras, useFactory: async () => webhooks })
    : WebhooksModule.forRoot({ ...options.extras, ...webhooks });

  @Module({
    imports: [
      TypeOrmModule.forRoot(typeorm),
      webhooksImport,
      ...(options.idempotency ? [IdempotencyModule.forRoot()] : []),
      ...(options.imports ?? []),
    ],
    controllers: options.controllers ?? [],
    providers: [
      { provide: HandlerControl, useValue: control },
      ...(options.handlers ?? [TestPaymentHandlers]),
      ...(options.providers ?? []),
    ],
  })
  class TestAppModule {}

  const adapter = options.platform === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const app = await NestFactory.create(TestAppModule, adapter, {
    rawBody: options.rawBody ?? true,
    logger: options.logger ?? (process.env.TEST_LOGS ? undefined : false),
    abortOnError: false,
    ...(options.instrument ? { instrument: options.instrument } : {}),
  });
  options.configure?.(app);
  const dataSource = app.get<DataSource>(getDataSourceToken());
  await dataSource.query(effectsTable);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  let closing: Promise<void> | undefined;
  const stop = () => (closing ??= app.close());
  return {
    app,
    url,
    dataSource,
    control,
    databaseUrl,
    sqliteFile,
    stop,
    async close() {
      await stop();
      await database?.drop();
    },
  };
}

/** Options that boot another instance (or a restart) on the database of `app`. */
export function sameDatabaseAs(
  app: Pick<TestApp, 'databaseUrl' | 'sqliteFile'>,
): Pick<TestAppOptions, 'databaseUrl' | 'sqliteFile'> {
  return { databaseUrl: app.databaseUrl, sqliteFile: app.sqliteFile };
}

/** How many times the test handlers applied an effect for a provider event id. */
export function countEffects(app: Pick<TestApp, 'dataSource'>, eventId: string): Promise<number> {
  return app.dataSource.getRepository(TestEffect).countBy({ eventId });
}

/**
 * The statements the app's data source sends while `work` runs, in the order TypeORM logs them
 * (several statements sent in one round trip are one entry).
 */
export async function statementsSent(app: TestApp, work: () => Promise<void>): Promise<string[]> {
  const logger = app.dataSource.logger;
  const logQuery = logger.logQuery.bind(logger);
  const sent: string[] = [];
  logger.logQuery = (query, ...rest) => {
    sent.push(query);
    return logQuery(query, ...rest);
  };
  try {
    await work();
  } finally {
    logger.logQuery = logQuery;
  }
  return sent;
}

export { eventually } from '../../lib/spec-support/eventually';
