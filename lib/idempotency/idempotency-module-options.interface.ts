/**
 * Options of `IdempotencyModule.forRoot()`. None yet besides the extras below: the options of a
 * route and of a call live on `@Idempotent()` and `IdempotentCall.run()`.
 */
export type IdempotencyModuleOptions = Record<never, never>;

/** What shapes the module itself, given to `forRoot()` and `forRootAsync()` alike. */
export interface IdempotencyModuleExtras {
  /**
   * Register the module globally, so `IdempotentCall` and `IdempotencyStore` can be injected in
   * every module and the webhook retention purges expired keys. `@Idempotent()` routes find the
   * store in any module either way.
   * @default true
   */
  isGlobal?: boolean;
  /**
   * Name of the TypeORM data source holding the idempotency tables.
   * @default the default data source
   */
  dataSource?: string;
}
