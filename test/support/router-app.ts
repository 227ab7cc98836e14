import { AddressInfo } from 'node:net';
import { Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { DataSource, DataSourceOptions } from 'typeorm';
import {
  createWebhooksRouter,
  RequestHandler,
  WebhookHandlerDefinition,
  WebhooksRouter,
  WebhooksRouterOptions,
  webhookEntities,
  webhooksMigrations,
} from 'nestjs-payment-webhooks/express';
import type { SettledTarget } from 'nestjs-payment-webhooks/testing';
import { createTestDatabase, TestDatabase } from './postgres';
import {
  applyTestEffect,
  Database,
  HandlerControl,
  Platform,
  startTestApp,
  TestAppOptions,
  TestEffect,
  withTestStoreTimeout,
} from './test-app';

/** Where the matrix specs run: Nest on Express, Nest on Fastify, or the plain Express router. */
export type MatrixPlatform = Platform | 'router';

/** What a matrix spec reads of a running app, whichever platform serves it. */
export interface MatrixApp {
  url: string;
  /** What `settled()` takes to read the app's inbox: the Nest application, or the router. */
  settledTarget: SettledTarget;
  dataSource: DataSource;
  control: HandlerControl;
  databaseUrl?: string;
  sqliteFile?: string;
  /** Shuts the app down (as a deploy or a crash would) and keeps its database. */
  stop(): Promise<void>;
  /** Stops the app if it runs, and drops its database. */
  close(): Promise<void>;
}

/** A plain Express app around the router, as the README builds one. */
export interface RouterTestApp extends MatrixApp {
  router: WebhooksRouter;
  server: Server;
}

export interface RouterAppOptions {
  database: Database;
  webhooks: Omit<WebhooksRouterOptions, 'dataSource' | 'handlers'>;
  control?: HandlerControl;
  /** The handlers; the test handlers of `test-app.ts`, as functions, unless set. */
  handlers?: WebhookHandlerDefinition[];
  databaseUrl?: string;
  sqliteFile?: string;
  /** What the app mounts before the router (e.g. `express.json()`, to show the mistake). */
  before?: RequestHandler[];
}

/** The test handlers (`TestPaymentHandlers`) as the function handlers an Express app gives. */
export function testHandlerDefinitions(control: HandlerControl): WebhookHandlerDefinition[] {
  return [
    {
      on: ['payment.succeeded', 'payment.canceled', 'payment.failed'],
      name: 'payments',
      handle: (event, ctx) => applyTestEffect(control, 'payments', event, ctx),
    },
    {
      on: 'refund.succeeded',
      name: 'refunds',
      handle: (event, ctx) => applyTestEffect(control, 'refunds', event, ctx),
    },
  ];
}

/** A logger that drops everything, unless TEST_LOGS is set. */
const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Boots a plain Express app: the app's own TypeORM data source (migrations run), the router
 * mounted at `/webhooks` before `express.json()`, on `listen(0)`.
 */
export async function startRouterApp(options: RouterAppOptions): Promise<RouterTestApp> {
  const control = options.control ?? new HandlerControl();
  let database: TestDatabase | undefined;
  let sqliteFile: string | undefined;
  let databaseUrl: string | undefined;
  let config: DataSourceOptions;
  if (options.database === 'postgres') {
    database = options.databaseUrl ? undefined : await createTestDatabase();
    databaseUrl = options.databaseUrl ?? database!.url;
    config = { type: 'postgres', url: databaseUrl, entities: [TestEffect, ...webhookEntities] };
  } else {
    sqliteFile =
      options.sqliteFile ?? join(mkdtempSync(join(tmpdir(), 'pw-router-')), 'inbox.sqlite');
    config = {
      type: 'better-sqlite3',
      database: sqliteFile,
      entities: [TestEffect, ...webhookEntities],
    };
  }
  const dataSource = new DataSource({ ...config, migrations: webhooksMigrations });
  await dataSource.initialize();
  await dataSource.runMigrations();
  await dataSource.query(
    options.database === 'postgres'
      ? 'CREATE TABLE IF NOT EXISTS test_effects (id serial PRIMARY KEY, "eventId" varchar NOT NULL, handler varchar NOT NULL, "merchantRef" varchar)'
      : 'CREATE TABLE IF NOT EXISTS test_effects (id integer PRIMARY KEY AUTOINCREMENT, "eventId" varchar NOT NULL, handler varchar NOT NULL, "merchantRef" varchar)',
  );
  const router = await createWebhooksRouter({
    logger: process.env.TEST_LOGS ? console : silent,
    ...withTestStoreTimeout(options.webhooks),
    dataSource,
    handlers: options.handlers ?? testHandlerDefinitions(control),
  });
  const app = express();
  for (const handler of options.before ?? []) {
    app.use(handler);
  }
  app.use('/webhooks', router);
  app.use(express.json());
  const server = await new Promise<Server>((resolve) => {
    const listening: Server = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await router.stop();
      await dataSource.destroy();
    })();
    return stopped;
  };
  return {
    url,
    settledTarget: router,
    dataSource,
    control,
    databaseUrl,
    sqliteFile,
    router,
    server,
    stop,
    async close() {
      await stop();
      await database?.drop();
    },
  };
}

/** The statuses of the inbox rows of a provider event id (one row, or none). */
export function inboxStatuses(
  t: Pick<MatrixApp, 'dataSource' | 'databaseUrl'>,
  eventId: string,
): Promise<{ status: string }[]> {
  return t.dataSource.query(
    `SELECT status FROM webhook_events WHERE event_id = ${t.databaseUrl ? '$1' : '?'}`,
    [eventId],
  );
}

/**
 * Boots the app of a matrix case: a Nest app through `startTestApp`, or the plain Express
 * router with the same handlers (as functions) on the same kind of database.
 */
export async function startMatrixApp(
  options: Omit<TestAppOptions, 'platform'> & { platform: MatrixPlatform },
): Promise<MatrixApp> {
  const { platform } = options;
  if (platform === 'router') {
    const { database, webhooks, control, databaseUrl, sqliteFile } = options;
    return startRouterApp({ database, webhooks, control, databaseUrl, sqliteFile });
  }
  const t = await startTestApp({ ...options, platform });
  return { ...t, settledTarget: t.app, stop: () => t.app.close() };
}
