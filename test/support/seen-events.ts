import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { OnPaymentEvent, PaymentEvent, WebhookContext } from 'nestjs-payment-webhooks';
import { fitToColumn } from 'nestjs-payment-webhooks/payments';
import { TestApp, TestEffect } from './test-app';

/** The fields of a `PaymentEvent` a handler saw, as it saw them. */
export interface SeenEvent {
  readonly id: string;
  readonly eventId: string;
  readonly type: string;
  readonly nativeType: string;
  readonly paymentRef: string | null;
  readonly merchantRef: string | null;
  readonly currency: string | null;
  readonly status: string | null;
  readonly payload: unknown;
}

/** The key a seen event's effect row is counted under: any id fits the test table this way. */
export const effectKey = (eventId: string) =>
  createHash('sha256').update(eventId, 'utf8').digest('hex');

/**
 * A handler for every event that remembers what it saw and writes one effect row per run
 * through `ctx.manager`, so the rows count effects. It reports `outcomeFor(event)` as its
 * outcome when that gives one.
 */
@Injectable()
export class SeeingHandlers {
  static seen: SeenEvent[] = [];
  static outcomeFor: (event: PaymentEvent) => string | undefined = () => undefined;
  /** Called after each event seen, by `whenSeen()`. */
  static readonly watchers = new Set<() => void>();

  @OnPaymentEvent('*')
  async onAny(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await ctx.manager.insert(TestEffect, {
      eventId: effectKey(event.eventId),
      handler: 'seeing',
      merchantRef: null,
    });
    const outcome = SeeingHandlers.outcomeFor(event);
    if (outcome !== undefined) {
      ctx.recordOutcome(outcome);
    }
    SeeingHandlers.seen.push({
      id: event.id,
      eventId: event.eventId,
      type: event.type,
      nativeType: event.nativeType,
      paymentRef: event.paymentRef,
      merchantRef: event.merchantRef,
      currency: event.currency,
      status: event.status,
      payload: event.payload,
    });
    SeeingHandlers.watchers.forEach((watch) => watch());
  }
}

/** The length of the inbox column of each text field a handler gets. */
const COLUMN_LENGTHS = {
  eventId: 255,
  type: 255,
  nativeType: 255,
  paymentRef: 255,
  merchantRef: 255,
  currency: 8,
  status: 64,
} as const;

/**
 * The fields of an event as a handler gets them: as the inbox stores them, each fitted to its
 * column (`fitToColumn()`).
 */
export function asStored<T extends Partial<Record<keyof typeof COLUMN_LENGTHS, unknown>>>(
  event: T,
): T {
  const stored: Record<string, unknown> = { ...event };
  for (const [field, length] of Object.entries(COLUMN_LENGTHS)) {
    const value = stored[field];
    if (typeof value === 'string') {
      stored[field] = fitToColumn(value, length);
    }
  }
  return stored as T;
}

/** What the handler saw for the event of `eventId` (the id as the delivery carried it), once it ran. */
export function seenFor(eventId: string): SeenEvent[] {
  const stored = fitToColumn(eventId, COLUMN_LENGTHS.eventId);
  return SeeingHandlers.seen.filter((event) => event.eventId === stored);
}

/**
 * What the handler saw for the event of `eventId`, as soon as it has seen it: no polling
 * interval between its run and the test going on.
 * @throws Error when it has not seen it within `timeoutMs`.
 */
export function whenSeen(eventId: string, timeoutMs = 10_000): Promise<SeenEvent[]> {
  return new Promise((resolve, reject) => {
    const watch = () => {
      const seen = seenFor(eventId);
      if (seen.length === 0) return;
      SeeingHandlers.watchers.delete(watch);
      clearTimeout(timer);
      resolve(seen);
    };
    const timer = setTimeout(() => {
      SeeingHandlers.watchers.delete(watch);
      reject(new Error(`the handler did not see ${eventId} within ${timeoutMs} ms`));
    }, timeoutMs);
    SeeingHandlers.watchers.add(watch);
    watch();
  });
}

/** How many effects the handler applied for `eventId` (the id as the delivery carried it). */
export function effectsFor(app: TestApp, eventId: string): Promise<number> {
  const stored = fitToColumn(eventId, COLUMN_LENGTHS.eventId);
  return app.dataSource.getRepository(TestEffect).countBy({ eventId: effectKey(stored) });
}
