import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { stripeEndpoint, WebhooksModuleOptions } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { SQLITE_BUSY_TIMEOUT_MS } from '../support/internals';
import { signedStripeEvent } from '../support/stripe-event';
import { eventually, startTestApp, TestApp, TestAppOptions } from '../support/test-app';

const SECRET = 'whsec_sqlite_durability';

const webhooks: WebhooksModuleOptions = {
  endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
  dispatch: { pollIntervalMs: 50 },
};

/** The durability settings of a connection, as SQLite reports them. */
interface Durability {
  journalMode: string;
  synchronous: number;
  busyTimeoutMs: number;
}

async function durabilityOf(app: TestApp): Promise<Durability> {
  const [{ journal_mode }] = (await app.dataSource.query('PRAGMA journal_mode')) as {
    journal_mode: string;
  }[];
  const [{ synchronous }] = (await app.dataSource.query('PRAGMA synchronous')) as {
    synchronous: number;
  }[];
  const [{ timeout }] = (await app.dataSource.query('PRAGMA busy_timeout')) as {
    timeout: number;
  }[];
  return { journalMode: journal_mode, synchronous, busyTimeoutMs: timeout };
}

/** Delivers one signed Stripe event and waits until the inbox has processed it. */
async function deliverOne(app: TestApp): Promise<void> {
  const event = signedStripeEvent(SECRET, { amount: 700, currency: 'eur' });
  const answer = await post(`${app.url}/webhooks/stripe`, event.body, event.headers);
  expect(answer.status).toBe(200);
  await eventually(async () => {
    const rows = (await app.dataSource.query(
      'SELECT status FROM webhook_events WHERE event_id = ?',
      [event.id],
    )) as { status: string }[];
    return rows[0]?.status === 'processed';
  });
}

describe('the SQLite inbox', () => {
  let app: TestApp | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function start(sqlite?: TestAppOptions['sqlite']): Promise<TestApp> {
    app = await startTestApp({ platform: 'express', database: 'sqlite', webhooks, sqlite });
    return app;
  }

  it('writes through a connection in WAL mode with synchronous=FULL and a busy timeout', async () => {
    const started = await start();
    const settings = await durabilityOf(started);
    expect(settings).toMatchObject({ journalMode: 'wal', synchronous: 2 });
    expect(settings.busyTimeoutMs).toBe(SQLITE_BUSY_TIMEOUT_MS);

    await deliverOne(started);
    expect(existsSync(`${started.sqliteFile}-wal`)).toBe(true);
    // NOTE: WAL is a property of the file: any other connection to it sees it too.
    const other = new Database(started.sqliteFile!, { readonly: true });
    try {
      expect(other.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      other.close();
    }
  });

  it('keeps WAL, synchronous=FULL and a busy timeout when the app opened the file with weaker ones', async () => {
    const seen: Durability[] = [];
    const started = await start({
      timeout: 0,
      prepareDatabase: (db: Database.Database) => {
        db.pragma('journal_mode = DELETE');
        db.pragma('synchronous = NORMAL');
        seen.push({
          journalMode: db.pragma('journal_mode', { simple: true }) as string,
          synchronous: db.pragma('synchronous', { simple: true }) as number,
          busyTimeoutMs: db.pragma('busy_timeout', { simple: true }) as number,
        });
      },
    });
    // The app's own settings were in force before the package started; the package's own
    // connections to the file run the app's prepareDatabase too, and start as weak.
    expect(seen[0]).toEqual({ journalMode: 'delete', synchronous: 1, busyTimeoutMs: 0 });
    expect(seen.every((opened) => opened.synchronous === 1)).toBe(true);

    const settings = await durabilityOf(started);
    expect(settings).toMatchObject({ journalMode: 'wal', synchronous: 2 });
    expect(settings.busyTimeoutMs).toBe(SQLITE_BUSY_TIMEOUT_MS);
    await deliverOne(started);
    expect(await durabilityOf(started)).toEqual(settings);
  });
});
