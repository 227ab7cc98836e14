import { assertEventNotOlderThan } from '../core/timestamp-window';
import { WebhookHandlerRegistry } from '../handlers/webhook-handler.registry';
import { notificationsOf } from '../providers/notifications';
import {
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
} from '../providers/webhook-provider.interface';
import { InboxSignal } from '../store/work/inbox-signal';
import type { InlineDispatch } from '../dispatch/inline-dispatch';
import { InboxWriter } from '../store/ports/inbox-writer.port';
import { NewTransmission, NewWebhookEvent, RecordResult } from '../store/ports/inbox-writer.port';
import { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';
import { acceptedAnswer, IngressAnswer, refusedAnswer } from './ingress-answer';
import { WebhookRefusal } from './webhook-refusal';
import { verificationRefusal } from './verification-refusal';
import { newEventOf } from './new-event';
import { sanitizeHeaders } from './sanitize-headers';
import { otherBodyMessage, transmissionOf } from './signed-transmissions';
import { dedupHorizonDays } from '../options/retention-options';
import { EVENT_OLDER_THAN_DEDUP } from '../options/retention.messages';
import { DeliveryDecision, DeliveryRecord, WebhookTelemetry } from '../telemetry/webhook-telemetry';
import { SafeLogger } from '../telemetry/safe-logger';
import { DeliverySpans } from '../telemetry/delivery-spans';
import { requestIdOf, writeJournal } from './delivery-journal';
import {
  NO_TENANT_IN_URL,
  NOT_A_TENANT_NAME,
  TENANT_AT_PLAIN_ENDPOINT,
  SOURCE_NOT_ALLOWED,
  UNKNOWN_TENANT,
} from './ingress.messages';
import { sourceRuleOf } from './source-rule';
import { isTenantEndpoint } from '../tenants/tenant-endpoint';
import { isTenantName, TenantUnavailableError } from '../tenants/tenant-directory';
import type { BodyBounds } from './body-stream';
import type { VerifiedDelivery, WebhookDelivery, WebhookDeliveryHead } from './webhook-delivery';

/**
 * Verify, normalize, store, answer: the request path. The answer goes out as soon as the event
 * is committed; with `dispatch.inline`, a fresh event's handlers run in that same transaction
 * first, through dispatch's {@link InlineDispatch}.
 */
export class WebhookIngress {
  private readonly logger = new SafeLogger('WebhookIngress');

  constructor(
    private readonly options: ResolvedWebhooksOptions,
    private readonly store: InboxWriter,
    private readonly registry: WebhookHandlerRegistry,
    private readonly signal: InboxSignal,
    private readonly telemetry: WebhookTelemetry,
    private readonly inline?: InlineDispatch,
    private readonly spans = new DeliverySpans(),
  ) {}

  /**
   * Handles one delivery from raw bytes to the answer: verify, store, answer. Refusals (4xx,
   * and 503 when the store fails) come back as answers too; only a bug throws.
   */
  async ingest(delivery: WebhookDelivery): Promise<IngressAnswer> {
    try {
      return acceptedAnswer(await this.receive(delivery));
    } catch (error) {
      if (error instanceof WebhookRefusal) {
        return refusedAnswer(error);
      }
      throw error;
    }
  }

  /** Handles one delivery; returns the provider's success answer or throws a {@link WebhookRefusal}. */
  async receive(delivery: WebhookDelivery): Promise<WebhookAcknowledgement> {
    return this.commit(await this.verify(delivery));
  }

  /**
   * The checks before anything is stored: endpoint, method, source, size, signature, envelope.
   * Journals and throws the {@link WebhookRefusal} of a refused delivery; resolves to what `commit()`
   * takes, so the bytes stored are the bytes verified.
   */
  async verify(delivery: WebhookDelivery, admitted?: WebhookEndpoint): Promise<VerifiedDelivery> {
    return this.spans.start(delivery)
      ? this.spans.run(delivery, () => this.check(delivery, admitted))
      : this.check(delivery, admitted);
  }

  /** What `verify()` does, under the delivery's span when it has one. */
  private async check(
    delivery: WebhookDelivery,
    admitted: WebhookEndpoint | undefined,
  ): Promise<VerifiedDelivery> {
    const endpoint = admitted ?? (await this.open(delivery));
    if (delivery.rawBody.length > endpoint.maxBodyBytes) {
      this.journal(delivery, 'too_large', 413);
      throw WebhookRefusal.tooLarge(endpoint.maxBodyBytes);
    }
    const request = {
      rawBody: delivery.rawBody,
      headers: delivery.headers,
      receivedAt: delivery.receivedAt,
    };
    let notifications: readonly NormalizedNotification[];
    try {
      await endpoint.provider.verify(request);
      notifications = notificationsOf(endpoint.provider.normalize(request));
      notifications.forEach((notification) => this.assertFresh(notification, delivery.receivedAt));
    } catch (error) {
      const refused = verificationRefusal(error, endpoint.provider.signatureRefusalStatus);
      if (refused === undefined) {
        throw error;
      }
      const { decision, refusal } = refused;
      this.journal(delivery, decision, refusal.status, { reason: refusal.message });
      throw refusal;
    }
    if (notifications.length === 0) {
      this.journal(delivery, 'invalid', 400, { reason: 'the delivery carries no notification' });
      throw WebhookRefusal.payload('The delivery carries no notification');
    }
    const span = this.spans.of(delivery);
    span?.verified();
    const headers = sanitizeHeaders(
      delivery.headers,
      endpoint.provider.storedHeaders,
      span?.storedContext(),
    );
    const events = notifications
      .filter((notification) => notification.skip === undefined)
      .map((notification) => {
        const wanted = this.registry.match({
          endpoint: endpoint.name,
          provider: endpoint.provider.kind,
          type: notification.type,
          nativeType: notification.nativeType,
        });
        return newEventOf(
          endpoint,
          delivery,
          notification,
          headers,
          wanted.length > 0,
          this.options.snapshotPairs.get(endpoint.name),
        );
      });
    const skipped = notifications.flatMap(({ eventId, type, skip }) =>
      skip === undefined ? [] : [{ eventId, type, reason: skip }],
    );
    const transmission = transmissionOf(endpoint, delivery);
    const acknowledgement = endpoint.provider.acknowledgementBody && {
      ...endpoint.acknowledgement,
      body: endpoint.provider.acknowledgementBody(notifications),
    };
    return { delivery, endpoint, events, skipped, transmission, acknowledgement };
  }

  /**
   * Commits a verified delivery's events and returns the provider's success answer; 503 when
   * the store fails or does not answer within `storeTimeoutMs`.
   */
  async commit(verified: VerifiedDelivery): Promise<WebhookAcknowledgement> {
    return this.spans.of(verified.delivery)
      ? this.spans.run(verified.delivery, () => this.commitEvents(verified))
      : this.commitEvents(verified);
  }

  /** What `commit()` does, under the delivery's span when it has one. */
  private async commitEvents(verified: VerifiedDelivery): Promise<WebhookAcknowledgement> {
    const { delivery, endpoint, events } = verified;
    if (events.length === 0) {
      return this.skip(verified);
    }
    if (verified.transmission) {
      await this.checkTransmission(verified, verified.transmission);
    }
    const span = this.spans.of(delivery);
    let results: readonly RecordResult[];
    let handled: readonly string[] | undefined;
    try {
      ({ results, handled } = span
        ? await span.within(() => this.record(endpoint, events))
        : await this.record(endpoint, events));
    } catch (error) {
      this.journal(delivery, 'store_failed', 503, {
        eventIds: events.map((event) => event.eventId),
        reason: error instanceof Error ? error.message : String(error),
      });
      throw WebhookRefusal.storeUnavailable();
    }
    span?.stored();
    let fresh = 0;
    let queued = false;
    results.forEach((result, i) => {
      const event = events[i];
      // NOTE: another copy of the event (Stripe's snapshot event and its notification) has a
      // body of its own: no re-delivery with another body.
      if (result.duplicate && !result.sameBody && !result.copy) {
        this.logger.warn(
          `Re-delivery of ${endpoint.name}/${event.eventId} has a different body than the stored one; ` +
            'the stored event is kept and the delivery acknowledged',
        );
      }
      if (!result.duplicate && event.status === 'pending') {
        fresh += 1;
        queued ||= result.status === 'pending';
      }
    });
    const decision: DeliveryDecision =
      fresh > 0
        ? 'accepted'
        : results.every((result) => result.duplicate)
          ? 'duplicate'
          : 'ignored';
    this.journal(delivery, decision, endpoint.acknowledgement.status, {
      provider: endpoint.provider.kind,
      eventIds: events.map((event) => event.eventId),
      types: events.map((event) => event.type),
      paymentRefs: events.flatMap((event) => (event.paymentRef === null ? [] : [event.paymentRef])),
      ...(handled?.length ? { handled } : {}),
    });
    if (queued) {
      this.signal.notify();
    }
    return verified.acknowledgement ?? endpoint.acknowledgement;
  }

  /**
   * Stores the events of a delivery; a single fresh one settles on the answer path when it can
   * (see {@link InlineDispatch}), and `handled` names the handlers that ran before the answer.
   */
  private async record(
    endpoint: WebhookEndpoint,
    events: readonly NewWebhookEvent[],
  ): Promise<{ results: readonly RecordResult[]; handled?: readonly string[] }> {
    if (events.length > 1) {
      return { results: await this.store.recordAll(events) };
    }
    const settled = await this.inline?.record(endpoint, events[0]);
    return settled
      ? { results: [settled], handled: settled.handled }
      : { results: [await this.store.record(events[0])] };
  }

  /** Answers a delivery whose every notification the endpoint does not take, storing nothing. */
  private skip({
    delivery,
    endpoint,
    skipped = [],
    acknowledgement,
  }: VerifiedDelivery): WebhookAcknowledgement {
    this.journal(delivery, 'skipped', endpoint.acknowledgement.status, {
      provider: endpoint.provider.kind,
      eventIds: skipped.map((notification) => notification.eventId),
      types: skipped.map((notification) => notification.type),
      reason: [...new Set(skipped.map((notification) => notification.reason))].join('; '),
    });
    return acknowledgement ?? endpoint.acknowledgement;
  }

  /**
   * Remembers the body a signed transmission came with; refuses (400) another body under a
   * transmission id already seen, 503 when the store cannot tell.
   */
  private async checkTransmission(
    { delivery, endpoint, events }: VerifiedDelivery,
    transmission: NewTransmission,
  ): Promise<void> {
    const eventIds = events.map((event) => event.eventId);
    let sameBody: boolean;
    try {
      ({ sameBody } = await this.store.recordTransmission(transmission));
    } catch (error) {
      this.journal(delivery, 'store_failed', 503, {
        eventIds,
        reason: error instanceof Error ? error.message : String(error),
      });
      throw WebhookRefusal.storeUnavailable();
    }
    if (!sameBody) {
      const reason = otherBodyMessage(endpoint, transmission.transmissionId);
      this.journal(delivery, 'rejected_signature', 400, { eventIds, reason });
      throw WebhookRefusal.signature(reason);
    }
  }

  /**
   * Refuses an event whose signed time is older than dedup keys are kept. A genuine retry is
   * never that old: the dedup window outlives every configured provider's retry horizon.
   * @throws WebhookVerificationError
   */
  private assertFresh(notification: NormalizedNotification, receivedAt: Date): void {
    if (!notification.occurredAtSigned || notification.occurredAt === undefined) {
      return;
    }
    const horizonDays = dedupHorizonDays(this.options.retention);
    assertEventNotOlderThan(notification.occurredAt, receivedAt, horizonDays * 86_400, (age) =>
      EVENT_OLDER_THAN_DEDUP(age, horizonDays),
    );
  }

  /**
   * What can be refused from the head alone, for an adapter to answer before it reads a byte
   * of the body: 404 for an unknown endpoint, 405 for a method its provider does not deliver
   * with (the refusal carries `allow`), 403 for a source outside its allowlist, 413 for a
   * declared `Content-Length` over its `maxBodyBytes`. Journals the refusal it returns;
   * undefined when the body is to be read.
   */
  refuseHead(head: WebhookDeliveryHead): WebhookRefusal | undefined {
    const endpoint = this.options.endpoints.get(head.endpoint);
    if (!endpoint) {
      this.journal(head, 'unknown_endpoint', 404);
      return WebhookRefusal.unknownEndpoint(head.endpoint);
    }
    if (head.tenant !== undefined && !isTenantEndpoint(endpoint)) {
      this.journal(head, 'unknown_tenant', 404, { reason: TENANT_AT_PLAIN_ENDPOINT });
      return WebhookRefusal.unknownTenant(endpoint.name, TENANT_AT_PLAIN_ENDPOINT);
    }
    if (isTenantEndpoint(endpoint) && !isTenantName(head.tenant ?? '')) {
      const detail = head.tenant === undefined ? NO_TENANT_IN_URL : NOT_A_TENANT_NAME;
      this.journal(head, 'unknown_tenant', 404, { reason: detail });
      return WebhookRefusal.unknownTenant(endpoint.name, detail);
    }
    return this.refuseAt(head, endpoint);
  }

  /**
   * Everything the head of a delivery tells, and for a tenant endpoint the tenant resolved and
   * the checks made again with its own endpoint (the provider's default source ranges).
   * Journals and returns the refusal to answer, or the endpoint to read the body for and hand
   * to `verify()` with it.
   */
  async admit(head: WebhookDeliveryHead): Promise<WebhookEndpoint | WebhookRefusal> {
    try {
      return await this.open(head);
    } catch (error) {
      if (error instanceof WebhookRefusal) {
        return error;
      }
      throw error;
    }
  }

  /**
   * The endpoint a delivery is verified and stored with: the configured one, or for a tenant
   * endpoint the tenant's own (404 when there is no such tenant, 503 when the resolver fails).
   * @throws WebhookRefusal
   */
  private async open(head: WebhookDeliveryHead): Promise<WebhookEndpoint> {
    const refusal = this.refuseHead(head);
    if (refusal) {
      throw refusal;
    }
    const endpoint = this.options.endpoints.get(head.endpoint)!;
    if (!isTenantEndpoint(endpoint)) {
      return endpoint;
    }
    const { method = 'POST', headers, sourceIp } = head;
    let own: WebhookEndpoint | null;
    try {
      own = await endpoint.tenants.endpointOf(head.tenant!, { method, headers, sourceIp });
    } catch (error) {
      if (!(error instanceof TenantUnavailableError)) {
        throw error;
      }
      this.journal(head, 'tenant_unavailable', 503, { reason: error.message });
      throw WebhookRefusal.tenantUnavailable();
    }
    if (own === null) {
      this.journal(head, 'unknown_tenant', 404, { reason: UNKNOWN_TENANT });
      throw WebhookRefusal.unknownTenant(endpoint.name, UNKNOWN_TENANT);
    }
    const ownRefusal = this.refuseAt(head, own);
    if (ownRefusal) {
      throw ownRefusal;
    }
    return own;
  }

  /** The method, source and declared size of a delivery to a known `endpoint`. */
  private refuseAt(head: WebhookDeliveryHead, endpoint: WebhookEndpoint) {
    const methods: readonly string[] = endpoint.provider.methods ?? ['POST'];
    const method = head.method ?? 'POST';
    if (!methods.includes(method)) {
      this.journal(head, 'method_not_allowed', 405);
      return WebhookRefusal.methodNotAllowed(endpoint.name, method, methods);
    }
    const refusal = this.refuseSource(head, endpoint);
    if (refusal) {
      return refusal;
    }
    const declared = declaredLengthOf(head.headers['content-length']);
    if (declared !== undefined && declared > endpoint.maxBodyBytes) {
      this.journal(head, 'too_large', 413, { reason: `Content-Length ${declared}` });
      return WebhookRefusal.tooLarge(endpoint.maxBodyBytes);
    }
    return undefined;
  }

  /**
   * Journals a refusal met while reading the body (413 past `maxBodyBytes`, 408 past
   * `bodyTimeoutMs`) and returns it; other refusals (the raw bytes unavailable) as they are.
   */
  bodyRefused(head: WebhookDeliveryHead, refusal: WebhookRefusal): WebhookRefusal {
    if (refusal.kind === 'too_large' || refusal.kind === 'body_timeout') {
      this.journal(head, refusal.kind, refusal.status);
    }
    return refusal;
  }

  /** How much of a body `endpoint` takes, and for how long; a configured endpoint's name. */
  bodyBounds(endpoint: string): BodyBounds {
    const { maxBodyBytes, bodyTimeoutMs } = this.options.endpoints.get(endpoint)!;
    return { limit: maxBodyBytes, timeoutMs: bodyTimeoutMs };
  }

  /** Whether `endpoint` is a configured tenant endpoint, taking deliveries at `…/{endpoint}/{tenant}`. */
  takesTenants(endpoint: string): boolean {
    return isTenantEndpoint(this.options.endpoints.get(endpoint));
  }

  /** Whether a sender's address is the platform's `ip` (behind a trusted proxy) or the socket's peer. */
  get trustProxy(): boolean {
    return this.options.trustProxy;
  }

  /**
   * The source allowlist alone, for an adapter that checks it before reading the body: journals
   * a refusal and returns the 403 to answer, or undefined when the endpoint takes deliveries
   * from `head.sourceIp` (or is unknown, or does not take the method: `receive()` answers those).
   */
  refuseSource(
    head: WebhookDeliveryHead,
    endpoint = this.options.endpoints.get(head.endpoint),
  ): WebhookRefusal | undefined {
    const methods: readonly string[] = endpoint?.provider.methods ?? ['POST'];
    if (
      !endpoint?.allowedSources ||
      !methods.includes(head.method ?? 'POST') ||
      endpoint.allowedSources.allows(head.sourceIp)
    ) {
      return undefined;
    }
    const sourceRule = sourceRuleOf(head, endpoint.allowedSources, this.options.trustProxy);
    this.journal(head, 'rejected_ip', 403, {
      reason: SOURCE_NOT_ALLOWED(endpoint.name, head.sourceIp, sourceRule),
      sourceRule,
    });
    return WebhookRefusal.sourceForbidden();
  }

  private journal(
    delivery: WebhookDeliveryHead,
    decision: DeliveryDecision,
    status: number,
    extra: Partial<
      Pick<
        DeliveryRecord,
        'provider' | 'eventIds' | 'types' | 'paymentRefs' | 'handled' | 'reason' | 'sourceRule'
      >
    > = {},
  ): void {
    const record: DeliveryRecord = {
      requestId: requestIdOf(delivery.headers),
      endpoint: delivery.endpoint,
      // NOTE: only a possible tenant name is journaled: a path of any length is not.
      ...(delivery.tenant !== undefined && isTenantName(delivery.tenant)
        ? { tenant: delivery.tenant }
        : {}),
      provider: extra.provider ?? this.options.endpoints.get(delivery.endpoint)?.provider.kind,
      decision,
      status,
      latencyMs: Date.now() - delivery.receivedAt.getTime(),
      sourceIp: delivery.sourceIp,
      receivedAt: delivery.receivedAt,
      ...extra,
    };
    // NOTE: a delivery with its body has been through verify(), which started its span.
    const traceId = this.spans.finish(delivery, record, 'rawBody' in delivery);
    writeJournal(this.logger, this.options.observability.journal, record, traceId);
    this.telemetry.delivery(record);
  }
}

/** A `Content-Length` as a number of bytes, when it is one. */
function declaredLengthOf(value: string | undefined): number | undefined {
  return value !== undefined && /^\s*\d+\s*$/.test(value) ? Number(value) : undefined;
}
