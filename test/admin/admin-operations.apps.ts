import { AddressInfo } from 'node:net';
import { Server } from 'node:http';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import express from 'express';
import { DataSource } from 'typeorm';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookContext,
  WebhookEndpoint,
} from 'nestjs-payment-webhooks';
import type { WebhookHandlerDefinition } from 'nestjs-payment-webhooks/express';
import { startRouterApp, testHandlerDefinitions } from '../support/router-app';
import {
  applyTestEffect,
  Database,
  HandlerControl,
  Platform,
  startTestApp,
  TestPaymentHandlers,
} from '../support/test-app';

/**
 * The apps the admin operations spec runs on: the Nest module's admin controller and the Express
 * admin router, each behind a check of `x-admin-token`, with `req.user` set from `x-user` (a
 * URI-encoded JSON object) as an app's authentication would set it.
 */

export const SECRET = 'whsec_admin_operations';
export const TOKEN = 'let-me-in';

const stripe = [stripeEndpoint({ name: 'stripe', secret: SECRET })];
const dispatch = { pollIntervalMs: 20, retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 } };

/** An app serving the webhooks and the admin routes, whichever entrance mounts them. */
export interface AdminOpsApp {
  /** Where Stripe delivers. */
  webhooks: string;
  /** Where the admin routes are mounted. */
  admin: string;
  dataSource: DataSource;
  control: HandlerControl;
  /**
   * The ledger keys of the test handlers of payments and of refunds, and of the handler added
   * later (its effects are `analytics`), registered with `laterHandler` only.
   */
  handlers: { payments: string; refunds: string; analytics: string };
  databaseUrl?: string;
  sqliteFile?: string;
  /** Shuts the app down and keeps its database, for another app to go on with it. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

/** What an admin operations app is built with besides its platform and database. */
export interface AdminOpsOptions {
  /**
   * Its endpoints.
   * @default one Stripe endpoint named `stripe`, signed with `SECRET`
   */
  endpoints?: WebhookEndpoint[];
  /** The database of an app stopped before, to go on with. */
  databaseOf?: Pick<AdminOpsApp, 'databaseUrl' | 'sqliteFile'>;
  /** Registers the handler an app adds later too: of payments, its effects are `analytics`. */
  laterHandler?: boolean;
}

/** The handler an app adds later, on the Nest module: payments, recorded as `analytics`. */
@Injectable()
class AnalyticsSink {
  constructor(private readonly control: HandlerControl) {}

  @OnPaymentEvent('payment.succeeded')
  async onPayment(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await applyTestEffect(this.control, 'analytics', event, ctx);
  }
}

/** The request's user, as the app's authentication found it. */
function userOf(header: string | string[] | undefined): unknown {
  return typeof header === 'string' ? JSON.parse(decodeURIComponent(header)) : undefined;
}

@Injectable()
class AdminUserGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context
      .switchToHttp()
      .getRequest<{ headers: Record<string, string | undefined>; user?: unknown }>();
    request.user = userOf(request.headers['x-user']);
    return request.headers['x-admin-token'] === TOKEN;
  }
}

/** The Nest module with `admin: { guards, path: 'ops/webhooks' }`. */
export async function nestOpsApp(
  platform: Platform,
  database: Database,
  { endpoints = stripe, databaseOf, laterHandler }: AdminOpsOptions = {},
): Promise<AdminOpsApp> {
  const app = await startTestApp({
    handlers: laterHandler ? [TestPaymentHandlers, AnalyticsSink] : [TestPaymentHandlers],
    platform,
    database,
    databaseUrl: databaseOf?.databaseUrl,
    sqliteFile: databaseOf?.sqliteFile,
    extras: { admin: { guards: [AdminUserGuard], path: 'ops/webhooks' } },
    webhooks: { endpoints, dispatch },
  });
  return {
    webhooks: `${app.url}/webhooks/stripe`,
    admin: `${app.url}/ops/webhooks`,
    dataSource: app.dataSource,
    control: app.control,
    handlers: {
      payments: 'TestPaymentHandlers.onPayment',
      refunds: 'TestPaymentHandlers.onRefund',
      analytics: 'AnalyticsSink.onPayment',
    },
    databaseUrl: app.databaseUrl,
    sqliteFile: app.sqliteFile,
    stop: () => app.stop(),
    close: () => app.close(),
  };
}

/**
 * A plain Express app mounting `router.adminRouter({ authorize })` at `/ops/webhooks`, after
 * `express.json()` when `parseJson`, else reading the bodies itself.
 */
export async function routerOpsApp(
  database: Database,
  parseJson: boolean,
  { endpoints = stripe, databaseOf, laterHandler }: AdminOpsOptions = {},
): Promise<AdminOpsApp> {
  const control = new HandlerControl();
  const analytics: WebhookHandlerDefinition = {
    on: 'payment.succeeded',
    name: 'analytics',
    handle: (event, ctx) => applyTestEffect(control, 'analytics', event, ctx),
  };
  const t = await startRouterApp({
    control,
    handlers: [...testHandlerDefinitions(control), ...(laterHandler ? [analytics] : [])],
    database,
    databaseUrl: databaseOf?.databaseUrl,
    sqliteFile: databaseOf?.sqliteFile,
    webhooks: { endpoints, dispatch },
  });
  const app = express();
  if (parseJson) {
    app.use(express.json());
  }
  app.use((request: express.Request, _response: express.Response, next: express.NextFunction) => {
    (request as { user?: unknown }).user = userOf(request.headers['x-user']);
    next();
  });
  app.use(
    '/ops/webhooks',
    t.router.adminRouter({ authorize: (request) => request.headers['x-admin-token'] === TOKEN }),
  );
  const server = await new Promise<Server>((resolve) => {
    const listening: Server = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    webhooks: `${t.url}/webhooks/stripe`,
    admin: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ops/webhooks`,
    dataSource: t.dataSource,
    control: t.control,
    handlers: { payments: 'payments', refunds: 'refunds', analytics: 'analytics' },
    databaseUrl: t.databaseUrl,
    sqliteFile: t.sqliteFile,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.stop();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    },
  };
}
