import { stripeEndpoint } from 'nestjs-payment-webhooks';
import { closedPort } from '../support/cli';
import { post } from '../support/http';
import { liveEvent } from '../support/inbox-state';
import { stripePaymentEvent, StripeTestEvent } from '../support/stripe-event';
import { Database, eventually, startTestApp, TestApp, TestEffect } from '../support/test-app';
import { WorkerProcess } from '../support/worker-process';

const SECRET = 'whsec_inline_crash';

/**
 * A receiver settling events on the answer path (`inline-receiver.main.ts`) killed with SIGKILL
 * inside a delivery's transaction, then started again, and the provider's retry of that
 * delivery: never an acknowledged event lost, never an effect twice.
 */
describe.each<Database>(['postgres', 'sqlite'])(
  'settling on the answer path under SIGKILL (%s)',
  (database) => {
    let t: TestApp;
    const children: WorkerProcess[] = [];

    beforeAll(async () => {
      // NOTE: the spec's app only makes the inbox and reads it; the receivers are the processes.
      t = await startTestApp({
        platform: 'express',
        database,
        handlers: [],
        webhooks: {
          endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
          dispatch: { enabled: false },
        },
      });
    });

    afterEach(async () => {
      for (const child of children.splice(0)) {
        await child.kill();
      }
    });

    afterAll(() => t?.close());

    async function receiver(freeze: string): Promise<{ child: WorkerProcess; url: string }> {
      const port = await closedPort();
      const child = await WorkerProcess.start('inline-receiver.main.ts', {
        PORT: String(port),
        ...(database === 'postgres'
          ? { DATABASE_URL: t.databaseUrl! }
          : { SQLITE_FILE: t.sqliteFile! }),
        STRIPE_SECRET: SECRET,
        FREEZE: freeze,
      });
      children.push(child);
      return { child, url: `http://127.0.0.1:${port}/webhooks/stripe` };
    }

    const deliver = (url: string, event: StripeTestEvent) => post(url, event.body, event.headers());

    async function effects(eventId: string): Promise<number[]> {
      const rows = await t.dataSource.getRepository(TestEffect).findBy({ eventId });
      return ['first', 'second'].map(
        (handler) => rows.filter((row) => row.handler === handler).length,
      );
    }

    /** The provider's retry, to a receiver started anew: answered 2xx, each handler once. */
    async function retried(event: StripeTestEvent): Promise<void> {
      const { url } = await receiver('none');
      expect((await deliver(url, event)).status).toBe(200);
      await eventually(
        async () => (await liveEvent(t.dataSource, event.id))?.status === 'processed',
        20_000,
      );
      expect(await effects(event.id)).toEqual([1, 1]);
    }

    it.each(['in-handler', 'before-commit'])(
      'killed %s: nothing stored nor answered, and the retry handles the event once',
      async (freeze) => {
        const event = stripePaymentEvent(SECRET);
        const { child, url } = await receiver(freeze);
        const answer = deliver(url, event).then(
          (result) => result.status,
          () => 'no answer',
        );
        expect(await child.printed('froze')).toEqual([freeze]);
        await child.kill();

        expect(await answer).toBe('no answer');
        expect(await liveEvent(t.dataSource, event.id)).toBeUndefined();
        expect(await effects(event.id)).toEqual([0, 0]);
        await retried(event);
      },
    );

    it('killed after the commit, before the answer: the event handled, and the retry a duplicate', async () => {
      const event = stripePaymentEvent(SECRET);
      const { child, url } = await receiver('after-commit');
      const answer = deliver(url, event).then(
        (result) => result.status,
        () => 'no answer',
      );
      expect(await child.printed('froze')).toEqual(['after-commit']);
      await child.kill();

      expect(await answer).toBe('no answer');
      expect(await liveEvent(t.dataSource, event.id)).toMatchObject({
        status: 'processed',
        deliveryCount: 1,
      });
      expect(await effects(event.id)).toEqual([1, 1]);
      await retried(event);
      expect((await liveEvent(t.dataSource, event.id))?.deliveryCount).toBe(2);
    });
  },
);
