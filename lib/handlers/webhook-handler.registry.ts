import { WebhookConfigurationError } from '../core/webhook-errors';
import { PaymentEvent, WebhookContext } from './payment-event.interface';
import {
  AMBIGUOUS_FUNCTION_HANDLER,
  AMBIGUOUS_HANDLER,
  UNKNOWN_FUNCTION_HANDLER_ENDPOINT,
  UNKNOWN_HANDLER_ENDPOINT,
  EVERY_ENDPOINT_NOT_ALONE,
  UNSCOPED_HANDLER_WITH_TENANTS,
} from './handlers.messages';

/** A handler's `endpoint` for every endpoint, said so. */
const EVERY_ENDPOINT = '*';
import { UNKNOWN_HANDLER_PATTERN } from './handlers.messages';
import { PaymentEventPattern, patternProblem } from './payment-event-pattern';

/** A handler the dispatcher runs: a discovered method or a registered function. */
export interface RegisteredWebhookHandler {
  /** Stable ledger key. */
  readonly key: string;
  readonly patterns: readonly PaymentEventPattern[];
  /** Endpoint names it is limited to, `['*']` for all said so, or undefined for all. */
  readonly endpoints?: readonly string[];
  readonly invoke: (event: PaymentEvent, ctx: WebhookContext) => Promise<void>;
}

/** A handler given as a function, for apps that register handlers without decorators. */
export interface WebhookHandlerDefinition {
  /**
   * The event types it runs for: normalized, `'<kind>:<native>'`, or `'*'` alone for every
   * event; anything else (`'payment.*'`, a misspelt type) is refused at startup.
   */
  readonly on: PaymentEventPattern | readonly PaymentEventPattern[];
  /** Stable key recorded in the handler ledger. Change it and the handler counts as new. */
  readonly name: string;
  /**
   * Only events that arrived on these endpoints; `'*'` for every endpoint, tenant endpoints'
   * events and the app's own alike.
   * @default every endpoint, where the app has no tenant endpoint beside endpoints of its own
   */
  readonly endpoint?: string | readonly string[];
  /** Applies the event, writing through `ctx.manager` so its effect commits with the ledger row. */
  readonly handle: (event: PaymentEvent, ctx: WebhookContext) => Promise<void> | void;
}

/** The minimum of an event needed to pick its handlers. */
export interface HandlerMatchInput {
  readonly endpoint: string;
  readonly provider: string;
  readonly type: string;
  readonly nativeType: string;
}

/** Every handler, and which of them an event goes to. */
export class WebhookHandlerRegistry {
  private readonly handlers = new Map<string, RegisteredWebhookHandler>();
  private readonly endpointNames?: ReadonlySet<string>;
  private readonly kinds?: ReadonlySet<string>;
  private readonly tenantEndpoints: readonly string[];
  /** The configured endpoints that are not tenant endpoints: the app's own. */
  private readonly ownEndpoints: readonly string[];

  /**
   * @param endpointNames the configured endpoints; a handler limited to another one is refused.
   *   Without them, any endpoint name is taken.
   * @param kinds the kinds events can come from (the configured endpoints' and the package's
   *   providers'); a native pattern of another kind is refused. Without them, any kind is taken.
   * @param tenantEndpoints those of `endpointNames` that take deliveries per tenant: beside
   *   endpoints of the app's own, a handler must name the endpoints it is for.
   */
  constructor(
    endpointNames?: Iterable<string>,
    kinds?: Iterable<string>,
    tenantEndpoints: Iterable<string> = [],
  ) {
    this.endpointNames = endpointNames === undefined ? undefined : new Set(endpointNames);
    this.kinds = kinds === undefined ? undefined : new Set(kinds);
    this.tenantEndpoints = [...tenantEndpoints];
    this.ownEndpoints = [...(this.endpointNames ?? [])].filter(
      (name) => !this.tenantEndpoints.includes(name),
    );
  }

  /**
   * Adds a handler; throws when its key is taken, it names an endpoint that is not configured,
   * or one of its patterns can match no event (see `PaymentEventPattern`).
   */
  add(handler: RegisteredWebhookHandler): void {
    if (this.handlers.has(handler.key)) {
      throw new WebhookConfigurationError(AMBIGUOUS_HANDLER(handler.key));
    }
    for (const pattern of handler.patterns) {
      const problem = patternProblem(pattern, this.kinds);
      if (problem !== undefined) {
        throw new WebhookConfigurationError(
          UNKNOWN_HANDLER_PATTERN(handler.key, String(pattern), problem),
        );
      }
    }
    if (handler.endpoints?.includes(EVERY_ENDPOINT)) {
      if (handler.endpoints.length > 1) {
        throw new WebhookConfigurationError(EVERY_ENDPOINT_NOT_ALONE(handler.key));
      }
      // NOTE: said so: every endpoint's events, the tenants' among them.
      this.handlers.set(handler.key, { ...handler, endpoints: undefined });
      return;
    }
    for (const name of handler.endpoints ?? []) {
      if (this.endpointNames && !this.endpointNames.has(name)) {
        throw new WebhookConfigurationError(UNKNOWN_HANDLER_ENDPOINT(handler.key, name));
      }
    }
    // NOTE: a handler for every endpoint is refused only where that mixes tenants' events with
    // the app's own; in an app of tenant endpoints alone every event is a tenant's.
    if (!handler.endpoints && this.tenantEndpoints.length > 0 && this.ownEndpoints.length > 0) {
      throw new WebhookConfigurationError(
        UNSCOPED_HANDLER_WITH_TENANTS(handler.key, this.ownEndpoints, this.tenantEndpoints),
      );
    }
    this.handlers.set(handler.key, handler);
  }

  /**
   * Adds a handler given as a function (`{ on, name, handle }`); throws, naming the fix, when
   * its name is taken or it names an endpoint that is not configured.
   */
  register(definition: WebhookHandlerDefinition): void {
    const { on, name, endpoint, handle } = definition;
    const endpoints =
      endpoint === undefined
        ? undefined
        : typeof endpoint === 'string'
          ? [endpoint]
          : [...endpoint];
    if (this.handlers.has(name)) {
      throw new WebhookConfigurationError(AMBIGUOUS_FUNCTION_HANDLER(name));
    }
    const unknown = endpoints?.find(
      (n) => n !== EVERY_ENDPOINT && this.endpointNames && !this.endpointNames.has(n),
    );
    if (unknown !== undefined) {
      throw new WebhookConfigurationError(
        UNKNOWN_FUNCTION_HANDLER_ENDPOINT(name, unknown, [...(this.endpointNames ?? [])]),
      );
    }
    this.add({
      key: name,
      patterns: typeof on === 'string' ? [on] : [...on],
      endpoints,
      invoke: async (event, ctx) => {
        await handle(event, ctx);
      },
    });
  }

  has(key: string): boolean {
    return this.handlers.has(key);
  }

  /** The keys of every handler, in registration order: `ClassName.method`, or a function's name. */
  keys(): string[] {
    return [...this.handlers.keys()];
  }

  /**
   * Handlers that can receive an event from this endpoint: not limited to other endpoints, and
   * subscribed to everything, to a normalized type, or to a native type of the endpoint's kind.
   */
  listenersOf(endpoint: {
    readonly name: string;
    readonly kind: string;
  }): RegisteredWebhookHandler[] {
    const native = `${endpoint.kind}:`;
    return [...this.handlers.values()].filter(
      (handler) =>
        (!handler.endpoints || handler.endpoints.includes(endpoint.name)) &&
        handler.patterns.some(
          (pattern) => pattern === '*' || !pattern.includes(':') || pattern.startsWith(native),
        ),
    );
  }

  /** Handlers subscribed to the event, in registration order. */
  match(event: HandlerMatchInput): RegisteredWebhookHandler[] {
    const native = `${event.provider}:${event.nativeType}`;
    return [...this.handlers.values()].filter(
      (handler) =>
        (!handler.endpoints || handler.endpoints.includes(event.endpoint)) &&
        handler.patterns.some(
          (pattern) => pattern === '*' || pattern === event.type || pattern === native,
        ),
    );
  }
}
