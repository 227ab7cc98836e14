// email-outbox.ts: a paid order's receipt, queued in the handler's transaction, sent once
import { Injectable } from '@nestjs/common';
import { OnPaymentEvent } from 'nestjs-payment-webhooks';
import type { PaymentEvent, WebhookContext } from 'nestjs-payment-webhooks';
import { Column, DataSource, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** An e-mail to send: one per event and kind (create the table in a migration of your own). */
@Entity({ name: 'email_outbox' })
@Unique(['eventId', 'kind'])
export class EmailOutbox {
  @PrimaryGeneratedColumn()
  id!: number;

  /** The event's inbox id (`event.id`). */
  @Column({ type: 'varchar', length: 36 })
  eventId!: string;

  @Column({ type: 'varchar', length: 32 })
  kind!: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  orderId!: string | null;

  @Column({ type: 'boolean', default: false })
  sent!: boolean;
}

@Injectable()
export class OrderReceipts {
  @OnPaymentEvent('payment.succeeded')
  async queueReceipt(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    // Through ctx.manager: the row commits with the handler's "done" mark, or not at all.
    await ctx.manager.insert(EmailOutbox, {
      eventId: event.id,
      kind: 'receipt',
      orderId: event.merchantRef,
    });
  }
}

/** Where your mail service's API is: `{ provide: MailApi, useValue: … }`. */
export class MailApi {
  constructor(readonly baseUrl: string) {}
}

/** Sends what the handlers queued: call `sendQueued()` from a timer, on one instance. */
@Injectable()
export class EmailOutboxSender {
  constructor(
    private readonly dataSource: DataSource,
    private readonly mail: MailApi,
  ) {}

  /** Sends each queued e-mail, then marks it sent; resolves to how many it sent. */
  async sendQueued(): Promise<number> {
    const outbox = this.dataSource.getRepository(EmailOutbox);
    const queued = await outbox.find({ where: { sent: false }, order: { id: 'ASC' }, take: 100 });
    for (const email of queued) {
      const response = await fetch(`${this.mail.baseUrl}/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ template: email.kind, order: email.orderId }),
      });
      if (!response.ok) {
        throw new Error(`POST /send answered ${response.status}`); // sent on a later call
      }
      await outbox.update({ id: email.id }, { sent: true });
    }
    return queued.length;
  }
}
