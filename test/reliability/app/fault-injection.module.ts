import { DynamicModule, Inject, Injectable, Module, Provider, ValueProvider } from '@nestjs/common';
import { OnPaymentEvent, WEBHOOKS_MODULE_OPTIONS, WebhooksModule } from 'nestjs-payment-webhooks';
import type {
  PaymentEvent,
  WebhookContext,
  WebhookDispatchOptions,
  WebhooksModuleOptions,
  WebhookTransport,
} from 'nestjs-payment-webhooks';
import { failsAtRandom, slowDelayMs } from '../fault-plan';
import type { FaultPlan } from '../fault-plan';
import { EFFECTS_TABLE, ORDER_FAULTS_TABLE, OrderFault } from '../probes';

/** Injection token of the `FaultPlan`. */
export const FAULT_PLAN = Symbol('FAULT_PLAN');

/** Handler key of the probe in the ledger and in the effects table. */
export const PROBE_HANDLER_KEY = 'ReliabilityProbe.record';

/** An error the probe throws on purpose; its message says which fault it is. */
export class InjectedFault extends Error {
  override readonly name = 'InjectedFault';
}

/**
 * A handler for every event that writes one effect row through `ctx.manager`, then misbehaves
 * as the plan says: slow, failing at random, or always failing for the marked orders. It
 * throws after the insert, so the effect of a failed attempt rolls back with its transaction:
 * one row per (event, handler) at the end means the effect was applied exactly once.
 */
@Injectable()
export class FaultyProbeHandler {
  constructor(@Inject(FAULT_PLAN) private readonly plan: FaultPlan) {}

  // NOTE: every endpoint's events, the sample shop's merchants' (a tenant endpoint) among them.
  @OnPaymentEvent('*', { key: PROBE_HANDLER_KEY, endpoint: '*' })
  async record(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    const postgres = ctx.manager.connection.options.type === 'postgres';
    const p = (i: number) => (postgres ? `$${i}` : '?');
    await ctx.manager.query(
      `INSERT INTO ${EFFECTS_TABLE} (inbox_id, endpoint, event_id, handler, merchant_ref, attempt, pid) ` +
        `VALUES (${[1, 2, 3, 4, 5, 6, 7].map(p).join(', ')})`,
      [
        event.id,
        event.endpoint,
        event.eventId,
        PROBE_HANDLER_KEY,
        event.merchantRef,
        ctx.attempt,
        process.pid,
      ],
    );
    const key = `${event.endpoint}/${event.eventId}`;
    const faults = await this.faultsOf(event.merchantRef, ctx, p);
    const delay = slowDelayMs(this.plan, faults.has('slow'), ctx.attempt);
    if (delay > 0) {
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    if (!this.plan.markedFixed && faults.has('marked')) {
      throw new InjectedFault(
        `order ${event.merchantRef} is marked: its events fail until the fix`,
      );
    }
    if (failsAtRandom(this.plan, key, ctx.attempt)) {
      throw new InjectedFault(`random failure of ${key} on attempt ${ctx.attempt}`);
    }
  }

  /** The faults the runner chose for the event's order. */
  private async faultsOf(
    orderId: string | null,
    ctx: WebhookContext,
    p: (i: number) => string,
  ): Promise<Set<OrderFault>> {
    if (orderId === null) {
      return new Set();
    }
    const rows = (await ctx.manager.query(
      `SELECT fault FROM ${ORDER_FAULTS_TABLE} WHERE order_id = ${p(1)}`,
      [orderId],
    )) as { fault: OrderFault }[];
    return new Set(rows.map((row) => row.fault));
  }
}

/**
 * The shop's module with the webhooks' dispatch timing replaced: the same endpoints and every
 * other option, only retries, leases and polling compressed like the simulated providers' clocks.
 * @throws Error when the shop module does not import `WebhooksModule.forRoot()`.
 */
export function withDispatch(shop: DynamicModule, dispatch: WebhookDispatchOptions): DynamicModule {
  let replaced = false;
  const imports = (shop.imports ?? []).map((imported) => {
    if (!isDynamic(imported) || imported.module !== WebhooksModule) {
      return imported;
    }
    const providers = (imported.providers ?? []).map((provider): Provider => {
      if (!isValueProvider(provider) || provider.provide !== WEBHOOKS_MODULE_OPTIONS) {
        return provider;
      }
      replaced = true;
      const options = provider.useValue as WebhooksModuleOptions;
      return {
        ...provider,
        useValue: { ...options, dispatch: { ...options.dispatch, ...dispatch } },
      };
    });
    return { ...imported, providers };
  });
  if (!replaced) {
    throw new Error('The shop module does not import WebhooksModule.forRoot({ … }) directly');
  }
  return { ...shop, imports };
}

function isDynamic(value: unknown): value is DynamicModule {
  return typeof value === 'object' && value !== null && 'module' in value;
}

function isValueProvider(provider: Provider): provider is ValueProvider {
  return typeof provider === 'object' && provider !== null && 'useValue' in provider;
}

/**
 * The shop plus the probe handler, with compressed dispatch timing and, for a BullMQ scenario,
 * the transport the runner chose for this process.
 */
@Module({})
export class FaultInjectionModule {
  static forRoot(
    shop: DynamicModule,
    plan: FaultPlan,
    transport?: WebhookTransport,
  ): DynamicModule {
    const dispatch = transport ? { ...plan.dispatch, transport } : plan.dispatch;
    return {
      module: FaultInjectionModule,
      imports: [withDispatch(shop, dispatch)],
      providers: [{ provide: FAULT_PLAN, useValue: plan }, FaultyProbeHandler],
    };
  }
}
