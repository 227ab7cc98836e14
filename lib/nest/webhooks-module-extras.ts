import type { CanActivate, Type } from '@nestjs/common';
import { WebhookConfigurationError } from '../core/webhook-errors';
import type { WebhooksModuleOptions } from '../options/webhooks-module-options.interface';
import { SHAPING_OPTION_IN_FACTORY } from './webhooks.messages';

/** Where the admin routes are mounted, and who may use them. */
export interface WebhookAdminRoutesOptions {
  /**
   * Guards every admin route must pass, e.g. your authentication guard plus a role check.
   * Required: the routes replay and settle payment events.
   */
  guards: (Type<CanActivate> | CanActivate)[];
  /**
   * Route prefix of the admin routes.
   * @default 'webhooks-admin'
   * @advanced
   */
  path?: string;
}

/** Options that shape the module itself, given to `forRoot()` / `forRootAsync()` directly. */
export interface WebhooksModuleExtras {
  /**
   * Register the module globally.
   * @default false
   */
  isGlobal?: boolean;
  /**
   * Route prefix: deliveries arrive at `POST /{path}/{endpoint name}`.
   * @default 'webhooks'
   */
  path?: string;
  /**
   * Name of the TypeORM data source holding the inbox.
   * @default the default data source
   * @advanced
   */
  dataSource?: string;
  /**
   * Decorators applied to the webhook controller, e.g. a `@Public()` marker for a global
   * auth guard or `@SkipThrottle()`.
   * @default []
   * @advanced
   */
  controllerDecorators?: ClassDecorator[];
  /**
   * Mounts the admin routes over `WebhookAdmin` (list, show, redeliver, settle, replay, stats),
   * behind the guards you give. Off when left out.
   * @example admin: { guards: [JwtAuthGuard, AdminRoleGuard], path: 'ops/webhooks' }
   */
  admin?: WebhookAdminRoutesOptions;
}

/** The builder extras: they shape the module definition, so only `forRoot*()` itself sees them. */
const MODULE_SHAPING_OPTIONS = [
  'path',
  'controllerDecorators',
  'admin',
  'isGlobal',
  'dataSource',
] as const satisfies readonly (keyof WebhooksModuleExtras)[];

/**
 * The options of a `forRootAsync()` factory, refused when they carry a builder extra.
 * @throws WebhookConfigurationError naming the extras and where they go
 */
export function refuseShapingOptions(options: WebhooksModuleOptions): WebhooksModuleOptions {
  // NOTE: `forRoot()` strips the extras before the options get here; a key still present came
  // from a `forRootAsync()` factory, after the routes and controllers were already built.
  const misplaced = MODULE_SHAPING_OPTIONS.filter(
    (name) => typeof options === 'object' && options !== null && name in options,
  );
  if (misplaced.length > 0) {
    throw new WebhookConfigurationError(SHAPING_OPTION_IN_FACTORY(misplaced));
  }
  return options;
}
