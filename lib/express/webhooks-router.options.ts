import type { DataSource } from 'typeorm';
import type { WebhookHandlerDefinition } from '../handlers/webhook-handler.registry';
import type { WebhooksModuleOptions } from '../options/webhooks-module-options.interface';
import type { PendingPaymentsSource } from '../reconciliation/pending-payments.source';
import type { WebhookStore } from '../store/ports/webhook-store.port';
import type { WebhooksRouterLogger } from './router-logger';

/**
 * Options of `createWebhooksRouter()`: the options `WebhooksModule.forRoot()` takes (endpoints,
 * dispatch, retention, observability, storeTimeoutMs, trustProxy, storage…), plus what a Nest
 * app would have provided through its container.
 */
export interface WebhooksRouterOptions extends WebhooksModuleOptions {
  /**
   * The app's TypeORM data source holding the inbox, initialized, with `webhooksMigrations`
   * run. The router never closes it: the app does, after `router.stop()`. Required unless
   * `store` is given.
   */
  dataSource?: DataSource;
  /**
   * An inbox of your own instead of the TypeORM store on `dataSource`: everything the router
   * stores, claims, settles and lists goes through it. The router initializes it before use
   * and closes it in `router.stop()`.
   * @default the TypeORM store on `dataSource`
   * @advanced
   */
  store?: WebhookStore;
  /**
   * The handlers, as functions: `{ on: 'payment.succeeded', name: 'fulfil', handle }`. Each
   * runs once per event in effect: its ledger row and its writes through `ctx.manager` commit
   * together.
   * @default []
   */
  handlers?: readonly WebhookHandlerDefinition[];
  /**
   * Where the package's lines go: `console`, a pino or a winston logger (anything with `warn`,
   * `error`, and `log` or `info`). Also what handlers get as `ctx.logger`. One choice per
   * process, as with Nest's logger: the router created last sets it.
   * @default one line per message on stdout (stderr for warnings and errors)
   */
  logger?: WebhooksRouterLogger;
  /** The app's unfinished payments, for `reconciliation`. */
  pendingPayments?: PendingPaymentsSource;
  /**
   * Whether the background work starts when the router is created: the worker (or transport),
   * metrics, alerts and the reconciliation and retention schedules. With `false` the router is
   * built and answers deliveries, but nothing in the background starts until you call
   * `router.start()`: for registering more handlers with `router.register()` first. Not the
   * way to run an instance that only stores and answers: that is `dispatch: { enabled: false }`.
   * @default true
   * @advanced
   */
  autoStart?: boolean;
  /**
   * Whether the background work starts with the router, under its name before 1.0.
   * @deprecated use `autoStart` (the same boolean); read until 2.0. `router.start()` stays.
   */
  start?: boolean;
}
