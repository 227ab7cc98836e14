import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  stripeEndpoint,
  WebhooksModule,
  webhooksMigrations,
  WebhookTelemetry,
  yookassaEndpoint,
} from 'nestjs-payment-webhooks';
import { DeliveryRecord } from 'nestjs-payment-webhooks/observability';
import { post } from '../support/http';
import { RecordingLogger } from '../support/recording-logger';
import { WebhookEventEntity } from '../support/internals';
import { signedStripeEvent } from '../support/stripe-event';
import { Platform, startTestApp, TestApp } from '../support/test-app';

/**
 * An endpoint's source allowlist is checked before the body is read: a sender outside it gets
 * 403 whatever it sends (too large, broken, or still on its way), nothing is parsed or stored,
 * and the refusal is journaled. Real HTTP over a raw socket, on Express and Fastify.
 */

const SECRET = 'whsec_source_allowlist';
const LARGE = 1_500_000;

/** What came back on the socket: the status, or why there was none. */
interface RawAnswer {
  status: number | null;
  text: string;
  error?: string;
}

/**
 * Sends a POST over a fresh socket: the head, then `body`, and, when `declared` is larger than
 * the body, holds the socket open as a sender still uploading would, until the answer comes.
 */
function sendRaw(
  port: number,
  path: string,
  body: Buffer,
  declared = body.length,
  contentType = 'application/json',
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let settled = false;
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(received).toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: match ? Number(match[1]) : null, text, ...(match ? {} : { error }) });
    };
    const timer = setTimeout(() => finish('no answer within 5 s'), 5_000);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const text = Buffer.concat(received).toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text);
      if (head >= 0 && length && text.length >= head + 4 + Number(length[1])) finish();
    });
    socket.on('end', () => finish('closed'));
    socket.on('close', () => finish('closed'));
    // NOTE: the server answers and closes while the body is still being written.
    socket.on('error', (error) => (received.length > 0 ? finish() : finish(error.message)));
    socket.on('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\n` +
          `Content-Length: ${declared}\r\n\r\n`,
      );
      socket.write(body);
    });
  });
}

describe.each<Platform>(['express', 'fastify'])('source allowlist on %s', (platform) => {
  let app: TestApp;
  let port: number;
  const refusals: DeliveryRecord[] = [];

  beforeAll(async () => {
    app = await startTestApp({
      platform,
      database: 'sqlite',
      webhooks: {
        endpoints: [
          stripeEndpoint({ name: 'office', secret: SECRET, allowedIps: ['10.0.0.0/8'] }),
          stripeEndpoint({
            name: 'local',
            secret: SECRET,
            allowedIps: ['127.0.0.1', '::1', '::ffff:127.0.0.1'],
            maxBodyBytes: 2_000_000,
          }),
        ],
        dispatch: { enabled: false },
      },
    });
    port = Number(new URL(app.url).port);
    app.app.get(WebhookTelemetry).subscribe({
      delivery: (record) => {
        if (record.decision === 'rejected_ip') refusals.push(record);
      },
    });
  });

  afterAll(() => app.close());

  const storedOn = (endpoint: string) =>
    app.dataSource.getRepository(WebhookEventEntity).countBy({ endpoint });

  it.each([
    ['a 1.5 MB body', Buffer.from(JSON.stringify({ pad: 'x'.repeat(LARGE) }))],
    ['broken JSON', Buffer.from('{"id": "evt_1", "type": ')],
    ['an empty body', Buffer.alloc(0)],
  ])('answers 403 to %s from a refused source', async (_label, body) => {
    const before = refusals.length;
    const answer = await sendRaw(port, '/webhooks/office', body);
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('Source address not allowed');
    expect(refusals.length).toBe(before + 1);
    expect(refusals.at(-1)).toMatchObject({ endpoint: 'office', status: 403 });
    expect(await storedOn('office')).toBe(0);
  });

  it('answers 403 while a refused sender is still uploading: the body is never waited for', async () => {
    const head = Buffer.from(`{"pad":"${'x'.repeat(64 * 1024)}`);
    const answer = await sendRaw(port, '/webhooks/office', head, LARGE);
    expect(answer.status).toBe(403);
    const form = await sendRaw(
      port,
      '/webhooks/office/',
      Buffer.from('a=1&b='),
      LARGE,
      'application/x-www-form-urlencoded',
    );
    expect(form.status).toBe(403);
    expect(await storedOn('office')).toBe(0);
  });

  it('still reads, verifies and stores what an allowed source sends', async () => {
    const event = signedStripeEvent(SECRET, {
      id: `evt_allowed_${platform}`,
      type: 'customer.created',
      object: {},
    });
    expect((await post(`${app.url}/webhooks/local`, event.body, event.headers)).status).toBe(200);
    expect((await post(`${app.url}/webhooks/local`, '{"id": ', event.headers)).status).toBe(400);
    expect(await storedOn('local')).toBe(1);
  });
});

describe('the journal entry of a refused source names the rule that refused it', () => {
  // NOTE: one logger for both apps: Nest's Logger is one per process, the last app's.
  const logger = new RecordingLogger();

  /** Starts an app on Express that keeps its journal. */
  async function journaledApp(trustProxy: boolean) {
    const app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      logger,
      webhooks: {
        trustProxy,
        endpoints: [
          stripeEndpoint({ name: 'office', secret: SECRET, allowedIps: ['10.0.0.0/8'] }),
          yookassaEndpoint({ name: 'yookassa', verifyWithProvider: false }),
        ],
        dispatch: { enabled: false },
      },
      // NOTE: as an app behind its own proxy sets it; the module reads `ip` only with trustProxy.
      configure: (nest) => nest.getHttpAdapter().getInstance().set('trust proxy', 'loopback'),
    });
    const journal: DeliveryRecord[] = [];
    app.app.get(WebhookTelemetry).subscribe({ delivery: (record) => journal.push(record) });
    return { app, journal };
  }

  let direct: Awaited<ReturnType<typeof journaledApp>>;
  let proxied: Awaited<ReturnType<typeof journaledApp>>;

  beforeAll(async () => {
    direct = await journaledApp(false);
    proxied = await journaledApp(true);
  });

  afterAll(async () => {
    await direct?.app.close();
    await proxied?.app.close();
  });

  /** The journal's logged line of the last refusal. */
  const loggedLine = () => logger.of('WebhookIngress', 'warn').at(-1)?.text;

  it('names the address, the endpoint and the allowedIps it is outside of; the answer stays terse', async () => {
    const answer = await post(`${direct.app.url}/webhooks/office`, '{}');
    expect(answer.status).toBe(403);
    expect(answer.body).toContain('Source address not allowed');
    expect(answer.body).not.toContain('10.0.0.0/8');

    const record = direct.journal.at(-1)!;
    expect(record).toMatchObject({
      endpoint: 'office',
      decision: 'rejected_ip',
      status: 403,
      sourceRule: { allowed: 'allowedIps [10.0.0.0/8]', trustProxy: false },
    });
    expect(record.sourceRule?.forwardedFor).toBeUndefined();
    const reason =
      `source ${record.sourceIp} is not in allowedIps [10.0.0.0/8] of endpoint "office"; ` +
      "the address is the socket's peer (trustProxy off)";
    expect(record.reason).toBe(reason);
    expect(loggedLine()).toContain(JSON.stringify(reason).slice(1, -1));
  });

  it("names YooKassa's published ranges when the endpoint sets no allowedIps", async () => {
    expect((await post(`${direct.app.url}/webhooks/yookassa`, '{}')).status).toBe(403);
    const record = direct.journal.at(-1)!;
    expect(record.sourceRule).toEqual({
      allowed: "YooKassa's published ranges (YOOKASSA_IP_RANGES)",
      trustProxy: false,
    });
    expect(record.reason).toContain(
      `source ${record.sourceIp} is not in YooKassa's published ranges (YOOKASSA_IP_RANGES) of endpoint "yookassa"`,
    );
    expect(loggedLine()).toContain('YOOKASSA_IP_RANGES');
  });

  it('says a request came through a proxy while trustProxy is off, with the fix', async () => {
    const answer = await post(`${direct.app.url}/webhooks/yookassa`, '{}', {
      'x-forwarded-for': '185.71.76.5',
    });
    expect(answer.status).toBe(403);
    const record = direct.journal.at(-1)!;
    expect(record.sourceRule).toEqual({
      allowed: "YooKassa's published ranges (YOOKASSA_IP_RANGES)",
      trustProxy: false,
      forwardedFor: '185.71.76.5',
    });
    expect(record.reason).toContain("the address is the socket's peer (trustProxy off)");
    expect(record.reason).toContain('came through a proxy (X-Forwarded-For: 185.71.76.5)');
    expect(record.reason).toContain("turn on the module's trustProxy");
    expect(loggedLine()).toContain('X-Forwarded-For: 185.71.76.5');
  });

  it('says the address was read through the proxy when trustProxy is on', async () => {
    const answer = await post(`${proxied.app.url}/webhooks/office`, '{}', {
      'x-forwarded-for': '203.0.113.7',
    });
    expect(answer.status).toBe(403);
    const record = proxied.journal.at(-1)!;
    expect(record).toMatchObject({
      sourceIp: '203.0.113.7',
      sourceRule: { allowed: 'allowedIps [10.0.0.0/8]', trustProxy: true },
    });
    expect(record.reason).toBe(
      'source 203.0.113.7 is not in allowedIps [10.0.0.0/8] of endpoint "office"; the address ' +
        "is the client's as the platform read it through its proxy handling (trustProxy on)",
    );
    expect(loggedLine()).toContain('source 203.0.113.7 is not in allowedIps');
  });
});

describe('source allowlist in an app made by a testing module, under a global prefix', () => {
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: join(mkdtempSync(join(tmpdir(), 'pw-allowlist-')), 'inbox.sqlite'),
          autoLoadEntities: true,
          migrations: webhooksMigrations,
          migrationsRun: true,
        }),
        WebhooksModule.forRoot({
          path: 'hooks/in',
          endpoints: [
            stripeEndpoint({ name: 'office', secret: SECRET, allowedIps: ['10.0.0.0/8'] }),
          ],
          dispatch: { enabled: false },
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ rawBody: true, logger: false });
    app.setGlobalPrefix('api');
    await app.listen(0, '127.0.0.1');
    port = Number(new URL((await app.getUrl()).replace('[::1]', '127.0.0.1')).port);
  });

  afterAll(() => app.close());

  it('answers 403 to a large or broken body before reading it', async () => {
    const large = Buffer.from(JSON.stringify({ pad: 'x'.repeat(LARGE) }));
    expect((await sendRaw(port, '/api/hooks/in/office', large)).status).toBe(403);
    expect((await sendRaw(port, '/api/hooks/in/office', Buffer.from('{'))).status).toBe(403);
    expect((await sendRaw(port, '/api/Hooks/In/office?x=1', Buffer.from('{'))).status).toBe(403);
  });
});
