import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { stripeEndpoint, WebhookAdmin } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { createWebhookAdminController, WebhookEventEntity } from '../support/internals';
import { SignedStripeEvent, signedStripeEvent, stripeEventId } from '../support/stripe-event';
import { countEffects, Database, eventually, startTestApp, TestApp } from '../support/test-app';

const SECRET = 'whsec_admin_secret';
function delivery(type?: string): SignedStripeEvent {
  const id = stripeEventId();
  return signedStripeEvent(SECRET, { id, type, orderId: `o-${id}`, amount: 700, currency: 'eur' });
}

describe.each<Database>(['sqlite', 'postgres'])('WebhookAdmin on %s', (database) => {
  let app: TestApp;
  let admin: WebhookAdmin;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          pollIntervalMs: 50,
          retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
        },
      },
    });
    admin = app.app.get(WebhookAdmin);
  });

  afterAll(() => app.close());

  async function send(event = delivery()) {
    const response = await post(`${app.url}/webhooks/stripe`, event.body, event.headers);
    expect(response.status).toBe(200);
    return event;
  }

  async function statusOf(eventId: string): Promise<string | undefined> {
    const row = await app.dataSource.getRepository(WebhookEventEntity).findOneBy({ eventId });
    return row?.status;
  }

  async function inboxIdOf(eventId: string): Promise<string> {
    const row = await app.dataSource.getRepository(WebhookEventEntity).findOneByOrFail({ eventId });
    return row.id;
  }

  it('replays dead events once the cause is fixed, and each runs its handler exactly once', async () => {
    const broken = [delivery(), delivery()];
    broken.forEach((event) => app.control.scripts.set(event.id, { alwaysFail: true }));
    for (const event of broken) {
      await send(event);
    }
    await eventually(async () =>
      (await Promise.all(broken.map((event) => statusOf(event.id)))).every((s) => s === 'dead'),
    );
    expect(await countEffects(app, broken[0].id)).toBe(0);

    broken.forEach((event) => app.control.scripts.delete(event.id));
    const progress: number[] = [];
    const report = await admin.replay({
      status: 'dead',
      since: new Date(Date.now() - 60_000),
      onProgress: (n) => progress.push(n),
    });
    expect(report.replayed).toBe(2);
    expect(progress).toEqual([2]);
    await eventually(async () =>
      (await Promise.all(broken.map((event) => statusOf(event.id)))).every(
        (s) => s === 'processed',
      ),
    );
    for (const event of broken) {
      expect(await countEffects(app, event.id)).toBe(1);
    }

    const again = await admin.replay({ status: 'dead' });
    expect(again.replayed).toBe(0);
  });

  it('redelivers a processed event without running a handler that already succeeded', async () => {
    const event = await send();
    await eventually(async () => (await statusOf(event.id)) === 'processed');
    const id = await inboxIdOf(event.id);

    expect(await admin.redeliver(id)).toBe(true);
    await eventually(async () => (await statusOf(event.id)) === 'processed');
    expect(await countEffects(app, event.id)).toBe(1);
    expect(await admin.redeliver('00000000-0000-0000-0000-000000000000')).toBe(false);
  });

  it('lists with filters and shows an event with its handler runs', async () => {
    const event = await send();
    await eventually(async () => (await statusOf(event.id)) === 'processed');

    const listed = await admin.list({ endpoint: 'stripe', merchantRef: `o-${event.id}` });
    expect(listed.map((row) => row.eventId)).toEqual([event.id]);
    expect(await admin.list({ status: 'dead', merchantRef: `o-${event.id}` })).toEqual([]);
    expect((await admin.list({ eventId: event.id })).map((row) => row.eventId)).toEqual([event.id]);
    expect(await admin.list({ eventId: `${event.id}_other` })).toEqual([]);
    await expect(admin.list({ limit: 0 })).rejects.toThrow(/limit must be an integer/);

    const details = await admin.show(listed[0].id);
    expect(details?.event.status).toBe('processed');
    expect(details?.handlerRuns.map((run) => run.handlerKey)).toEqual([
      'TestPaymentHandlers.onPayment',
    ]);
    expect(await admin.show('00000000-0000-0000-0000-000000000000')).toBeNull();
  });

  it('settles by hand and purges settled events only', async () => {
    const event = await send();
    await eventually(async () => (await statusOf(event.id)) === 'processed');
    const id = await inboxIdOf(event.id);
    expect(await admin.settle(id, 'dead', 'checked with the bank')).toBe(true);
    expect(await statusOf(event.id)).toBe('dead');

    const stats = await admin.stats();
    const dead = stats.counts.find((row) => row.endpoint === 'stripe' && row.status === 'dead');
    expect(dead?.count).toBeGreaterThanOrEqual(1);

    const future = new Date(Date.now() + 60_000);
    await expect(admin.purge({ olderThan: future, status: ['pending' as never] })).rejects.toThrow(
      /settled events only/,
    );
    const before = await app.dataSource
      .getRepository(WebhookEventEntity)
      .countBy({ status: 'dead' });
    const purged = await admin.purge({ olderThan: future });
    expect(purged).toBeGreaterThanOrEqual(3);
    expect(
      await app.dataSource.getRepository(WebhookEventEntity).countBy({ status: 'processed' }),
    ).toBe(0);
    expect(await app.dataSource.getRepository(WebhookEventEntity).countBy({ status: 'dead' })).toBe(
      before,
    );
    expect(await admin.purge({ olderThan: future, status: ['dead'] })).toBe(before);
  });
});

@Injectable()
class AdminTokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
    return request.headers['x-admin-token'] === 'let-me-in';
  }
}

describe('WebhookAdmin HTTP routes', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      extras: { admin: { guards: [AdminTokenGuard], path: 'ops/webhooks' } },
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: { pollIntervalMs: 50 },
      },
    });
  });

  afterAll(() => app.close());

  const call = (method: string, path: string, body?: unknown, token = 'let-me-in') =>
    fetch(`${app.url}/ops/webhooks/${path}`, {
      method,
      headers: { 'x-admin-token': token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('refuses every route without the guard’s consent', async () => {
    expect((await call('GET', 'events', undefined, 'wrong')).status).toBe(403);
    expect((await call('POST', 'replay', undefined, 'wrong')).status).toBe(403);
  });

  it('lists, shows, redelivers and settles through HTTP', async () => {
    const event = delivery();
    expect((await post(`${app.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);
    await eventually(async () => {
      const rows = (await (await call('GET', 'events?endpoint=stripe')).json()) as {
        eventId: string;
        status: string;
      }[];
      return rows.some((row) => row.eventId === event.id && row.status === 'processed');
    });
    const [row] = (await (await call('GET', `events?merchantRef=o-${event.id}`)).json()) as {
      id: string;
    }[];
    const byEventId = (await (await call('GET', `events?eventId=${event.id}`)).json()) as {
      id: string;
    }[];
    expect(byEventId.map((found) => found.id)).toEqual([row.id]);
    const shown = (await (await call('GET', `events/${row.id}`)).json()) as {
      handlerRuns: unknown[];
    };
    expect(shown.handlerRuns).toHaveLength(1);
    expect((await call('POST', `events/${row.id}/redeliver`)).status).toBe(200);
    await eventually(async () => {
      const details = (await (await call('GET', `events/${row.id}`)).json()) as {
        event: { status: string };
      };
      return details.event.status === 'processed';
    });
    expect(await countEffects(app, event.id)).toBe(1);
    expect((await call('POST', `events/${row.id}/settle`, { status: 'gone' })).status).toBe(400);
    expect(
      (await call('POST', `events/${row.id}/settle`, { status: 'ignored', reason: 'test' })).status,
    ).toBe(200);
    expect((await call('GET', 'events?status=bogus')).status).toBe(400);
    expect((await call('GET', 'events/not-a-uuid')).status).toBe(400);
    const stats = (await (await call('GET', 'stats')).json()) as { counts: unknown[] };
    expect(stats.counts.length).toBeGreaterThan(0);
  });

  it('cannot be mounted without a guard', () => {
    expect(() => createWebhookAdminController({ guards: [] })).toThrow(
      /only behind your own guard/,
    );
  });
});
