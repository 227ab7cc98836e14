import { OptionRename, renamedOption } from '../core/deprecated-options';
import { isTenantEndpoint } from '../tenants/tenant-endpoint';
import { WebhookConfigurationError } from '../core/webhook-errors';
import {
  WebhookDispatchOptions,
  WebhookReconciliationSchedule,
  WebhooksModuleOptions,
} from './webhooks-module-options.interface';
import { WebhookEndpoint } from '../providers/webhook-provider.interface';
import { DEFAULT_STORE_TIMEOUT_MS } from '../store/connections/answer-deadline';
import type { HandlerBatchSettings } from '../store/ledger/handler-batches';
import {
  ResolvedObservabilityOptions,
  resolveObservabilityOptions,
} from './observability-options.resolver';
import { ResolvedRetentionOptions, resolveRetentionOptions } from './retention-options';
import { snapshotPairsOf } from './snapshot-pairs';
import {
  DUPLICATE_ENDPOINT,
  INVALID_OPTION,
  NOT_AN_ENDPOINT,
  MODULE_OPTIONS,
  NO_ENDPOINTS,
} from './options.messages';
import type { InlineSettings, ResolvedDispatchOptions } from '../dispatch/dispatch-settings';
import type { WebhookTransport } from '../dispatch/webhook-transport';

/** Options with every default filled in, checked once at startup. */
/** A reconciliation schedule after the startup checks, as `reconcile()` takes it. */
export interface ResolvedReconciliationSchedule {
  readonly endpoint: string;
  readonly intervalMs: number;
  /** Milliseconds. */
  readonly olderThan?: number;
  readonly limit?: number;
}

export interface ResolvedWebhooksOptions {
  readonly endpoints: ReadonlyMap<string, WebhookEndpoint>;
  /**
   * The endpoints paired by a `snapshotEndpoint`, each with the name of its pair's snapshot
   * endpoint: their copies of one event are one event.
   */
  readonly snapshotPairs: ReadonlyMap<string, string>;
  readonly trustProxy: boolean;
  readonly storeTimeoutMs: number;
  readonly reconciliation: readonly ResolvedReconciliationSchedule[];
  readonly retention: ResolvedRetentionOptions;
  readonly dispatch: ResolvedDispatchOptions & {
    /** Null: the in-process claim loop. */
    readonly transport: WebhookTransport | null;
  };
  readonly observability: ResolvedObservabilityOptions;
  readonly storage: {
    readonly sqliteIntakePath?: string;
    readonly preparedStatements: boolean;
    readonly vacuumWorkEvery: number;
  };
}

function positiveInteger(option: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved <= 0) {
    throw new WebhookConfigurationError(INVALID_OPTION(option, 'a positive integer', value));
  }
  return resolved;
}

/**
 * An option that is `true`, `false` or its own options: null when off (or left out), the
 * options given (`{}` for `true`) when on.
 * @throws WebhookConfigurationError naming `option` and `fields` for anything else
 */
function switchedOptions<T extends object>(
  option: string,
  value: boolean | T | undefined,
  fields: string,
): Partial<T> | null {
  if (value === undefined || value === false) {
    return null;
  }
  if (value !== true && (typeof value !== 'object' || value === null)) {
    throw new WebhookConfigurationError(
      INVALID_OPTION(option, `true, false or { ${fields} }`, value),
    );
  }
  return value === true ? {} : value;
}

function resolveBatch(batch: WebhookDispatchOptions['batch']): HandlerBatchSettings | null {
  const given = switchedOptions('dispatch.batch', batch, 'size, waitMs, handlerBoundMs');
  if (!given) {
    return null;
  }
  const waitMs = given.waitMs ?? 2;
  if (!Number.isSafeInteger(waitMs) || waitMs < 0) {
    throw new WebhookConfigurationError(
      INVALID_OPTION('dispatch.batch.waitMs', 'a whole number of ms, 0 or more', given.waitMs),
    );
  }
  return {
    size: positiveInteger('dispatch.batch.size', given.size, 8),
    waitMs,
    handlerBoundMs: positiveInteger('dispatch.batch.handlerBoundMs', given.handlerBoundMs, 250),
  };
}

function resolveInline(inline: WebhookDispatchOptions['inline']): InlineSettings | null {
  const given = switchedOptions('dispatch.inline', inline, 'boundMs, slowHandlerMs');
  if (!given) {
    return null;
  }
  return {
    boundMs: positiveInteger('dispatch.inline.boundMs', given.boundMs, 250),
    slowHandlerMs: positiveInteger('dispatch.inline.slowHandlerMs', given.slowHandlerMs, 10),
  };
}

/**
 * What `resolveWebhooksOptions()` marks its result with, so that it is not resolved again. A
 * property, not the object's identity: a copy (`{ ...options }`) or a wrapper that hands the
 * options on (an instrumenting `Proxy`, as `@nestjs/observe` puts around every provider) carries
 * it; `Symbol.for`, so that two copies of the package installed side by side know each other's.
 */
const RESOLVED = Symbol.for('nestjs-payment-webhooks.resolved-options');

/** The options as given when they are resolved already, else resolved now. */
export function resolvedOptionsOf(
  options: WebhooksModuleOptions | ResolvedWebhooksOptions,
): ResolvedWebhooksOptions {
  return typeof options === 'object' &&
    options !== null &&
    (options as { [RESOLVED]?: unknown })[RESOLVED] === true
    ? (options as ResolvedWebhooksOptions)
    : resolveWebhooksOptions(options as WebhooksModuleOptions);
}

/** Merges defaults into the user's options and fails with a message naming the fix. */
export function resolveWebhooksOptions(options: WebhooksModuleOptions): ResolvedWebhooksOptions {
  const list: unknown = options?.endpoints;
  if (!Array.isArray(list) || list.length === 0) {
    throw new WebhookConfigurationError(NO_ENDPOINTS);
  }
  const endpoints = new Map<string, WebhookEndpoint>();
  list.forEach((endpoint: WebhookEndpoint | undefined, index) => {
    if (
      !endpoint ||
      typeof endpoint.name !== 'string' ||
      typeof endpoint.provider?.verify !== 'function'
    ) {
      throw new WebhookConfigurationError(NOT_AN_ENDPOINT(index));
    }
    if (endpoints.has(endpoint.name)) {
      throw new WebhookConfigurationError(DUPLICATE_ENDPOINT(endpoint.name));
    }
    endpoints.set(endpoint.name, endpoint);
  });
  const dispatch = options.dispatch ?? {};
  const retry = dispatch.retry ?? {};
  const resolved: ResolvedWebhooksOptions = {
    endpoints,
    snapshotPairs: snapshotPairsOf(endpoints),
    trustProxy: options.trustProxy ?? false,
    storeTimeoutMs: resolveStoreTimeout(options.storeTimeoutMs),
    reconciliation: resolveReconciliation(options.reconciliation, endpoints),
    retention: resolveRetentionOptions(
      options.retention,
      [...endpoints.values()].map((endpoint) => ({
        kind: endpoint.provider.kind,
        endpoint: endpoint.name,
      })),
    ),
    dispatch: {
      enabled: dispatch.enabled ?? true,
      concurrency: positiveInteger('dispatch.concurrency', dispatch.concurrency, 4),
      pollIntervalMs: positiveInteger('dispatch.pollIntervalMs', dispatch.pollIntervalMs, 1000),
      leaseMs: positiveInteger('dispatch.leaseMs', dispatch.leaseMs, 30_000),
      shutdownTimeoutMs: positiveInteger(
        'dispatch.shutdownTimeoutMs',
        dispatch.shutdownTimeoutMs,
        10_000,
      ),
      maxAttempts: positiveInteger('dispatch.retry.maxAttempts', retry.maxAttempts, 25),
      baseDelayMs: positiveInteger('dispatch.retry.baseDelayMs', retry.baseDelayMs, 5000),
      maxDelayMs: positiveInteger('dispatch.retry.maxDelayMs', retry.maxDelayMs, 10_800_000),
      transport: resolveTransport(dispatch.transport),
      batch: resolveBatch(dispatch.batch),
      inline: resolveInline(dispatch.inline),
      pauseAfterFailures:
        dispatch.pauseAfterFailures === undefined || dispatch.pauseAfterFailures === 0
          ? 0
          : positiveInteger('dispatch.pauseAfterFailures', dispatch.pauseAfterFailures, 0),
    },
    observability: resolveObservabilityOptions(options.observability, endpoints),
    storage: resolveStorage(options.storage),
  };
  if (resolved.dispatch.maxDelayMs < resolved.dispatch.baseDelayMs) {
    throw new WebhookConfigurationError(
      INVALID_OPTION(
        'dispatch.retry.maxDelayMs',
        'at least dispatch.retry.baseDelayMs',
        retry.maxDelayMs,
      ),
    );
  }
  return Object.assign(resolved, { [RESOLVED]: true });
}

function resolveTransport(transport: WebhookTransport | undefined): WebhookTransport | null {
  if (transport === undefined) {
    return null;
  }
  if (
    typeof transport !== 'object' ||
    transport === null ||
    typeof transport.kind !== 'string' ||
    typeof transport.open !== 'function'
  ) {
    throw new WebhookConfigurationError(
      INVALID_OPTION(
        'dispatch.transport',
        'a transport made by a factory such as bullmqTransport() from nestjs-payment-webhooks/bullmq',
        transport,
      ),
    );
  }
  return transport;
}

/**
 * Bounds of `storeTimeoutMs`: less would refuse ordinary commits on a busy disk, more outlasts
 * every provider's wait (Braintree's 30 s is the longest).
 */
const STORE_TIMEOUT_RANGE = [100, 30_000] as const;

function resolveStoreTimeout(value: number | undefined): number {
  const resolved = value ?? DEFAULT_STORE_TIMEOUT_MS;
  const [min, max] = STORE_TIMEOUT_RANGE;
  if (!Number.isSafeInteger(resolved) || resolved < min || resolved > max) {
    throw new WebhookConfigurationError(
      INVALID_OPTION(
        'storeTimeoutMs',
        `a whole number of milliseconds from ${min} to ${max}`,
        value,
      ),
    );
  }
  return resolved;
}

function resolveStorage(storage: WebhooksModuleOptions['storage']): {
  sqliteIntakePath?: string;
  preparedStatements: boolean;
  vacuumWorkEvery: number;
} {
  const path: unknown = storage?.sqliteIntakePath;
  if (path !== undefined && (typeof path !== 'string' || path.trim() === '')) {
    throw new WebhookConfigurationError(
      INVALID_OPTION('storage.sqliteIntakePath', 'the path of a file', path),
    );
  }
  const prepared: unknown = storage?.preparedStatements;
  if (prepared !== undefined && typeof prepared !== 'boolean') {
    throw new WebhookConfigurationError(
      INVALID_OPTION('storage.preparedStatements', 'true or false', prepared),
    );
  }
  const every = storage?.vacuumWorkEvery ?? 10_000;
  if (!Number.isSafeInteger(every) || every < 0) {
    throw new WebhookConfigurationError(
      INVALID_OPTION('storage.vacuumWorkEvery', 'a whole number, 0 or more', every),
    );
  }
  return {
    ...(path === undefined ? {} : { sqliteIntakePath: path }),
    preparedStatements: prepared ?? true,
    vacuumWorkEvery: every,
  };
}

function resolveReconciliation(
  schedules: WebhookReconciliationSchedule[] | undefined,
  endpoints: ReadonlyMap<string, WebhookEndpoint>,
): ResolvedReconciliationSchedule[] {
  if (schedules === undefined) {
    return [];
  }
  if (!Array.isArray(schedules)) {
    throw new WebhookConfigurationError(
      INVALID_OPTION('reconciliation', 'a list of { endpoint, intervalMs }', schedules),
    );
  }
  return schedules.map((schedule, index) => {
    const endpoint = endpoints.get(schedule?.endpoint);
    if (!endpoint) {
      throw new WebhookConfigurationError(
        `reconciliation[${index}].endpoint ${JSON.stringify(schedule?.endpoint)} is not one of the configured endpoints (${[
          ...endpoints.keys(),
        ].join(', ')}).`,
      );
    }
    if (!endpoint.statusClient) {
      throw new WebhookConfigurationError(
        `reconciliation[${index}]: endpoint "${endpoint.name}" (${endpoint.provider.kind}) has no status client; ` +
          (isTenantEndpoint(endpoint)
            ? "a tenant endpoint's credentials are each tenant's, and it is not reconciled: remove the schedule."
            : "give it the provider's API credentials, or remove the schedule."),
      );
    }
    const intervalMs = positiveInteger(
      `reconciliation[${index}].intervalMs`,
      schedule.intervalMs,
      0,
    );
    if (intervalMs < 1000) {
      throw new WebhookConfigurationError(
        INVALID_OPTION(`reconciliation[${index}].intervalMs`, 'at least 1000', schedule.intervalMs),
      );
    }
    return {
      endpoint: endpoint.name,
      intervalMs,
      olderThan: olderThanMs(schedule, index),
      limit:
        schedule.limit === undefined
          ? undefined
          : positiveInteger(`reconciliation[${index}].limit`, schedule.limit, 0),
    };
  });
}

const OLDER_THAN: OptionRename = {
  from: 'reconciliation[].olderThan',
  to: 'reconciliation[].olderThanMs',
  where: MODULE_OPTIONS,
  unit: 'milliseconds',
  code: 'NPW_DEP_RECONCILIATION_OLDER_THAN',
};

function olderThanMs(schedule: WebhookReconciliationSchedule, index: number): number | undefined {
  const value = renamedOption(
    schedule.olderThanMs,
    schedule.olderThan,
    OLDER_THAN,
    `WebhooksModule option reconciliation[${index}]`,
  );
  return value === undefined
    ? undefined
    : positiveInteger(`reconciliation[${index}].olderThanMs`, value, 0);
}
