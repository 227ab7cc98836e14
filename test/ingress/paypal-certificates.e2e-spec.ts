import { createServer, get, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { WebhookTelemetry, paypalEndpoint } from 'nestjs-payment-webhooks';
import { DeliveryRecord } from 'nestjs-payment-webhooks/observability';
import {
  WebhookTestClient,
  paypalFixtures,
  signPayPalDelivery,
} from 'nestjs-payment-webhooks/testing';
import {
  PAYPAL_SIGNING_SUBJECT,
  TestCertificate,
  TestCertificates,
} from '../../lib/spec-support/paypal-certificates';
import { TestApp, startTestApp } from '../support/test-app';

/**
 * PayPal signing certificates served over HTTPS the way PayPal serves them (the signing
 * certificate followed by its intermediate), fetched by the app while it answers real HTTP
 * deliveries: only a certificate in PayPal's name that chains to a trusted root verifies.
 */
const WEBHOOK_ID = 'WH_E2E_CERTS';
const certUrl = (id: string) => `https://api.sandbox.paypal.com/v1/notifications/certs/${id}`;

let certificates: TestCertificates;
let root: TestCertificate;
let leaf: TestCertificate;
let forged: TestCertificate;
let forgedInPayPalsName: TestCertificate;
let server: Server;
let serverUrl: string;
const served: string[] = [];
let app: TestApp;
let client: WebhookTestClient;
const journal: DeliveryRecord[] = [];

/** Downloads over HTTPS from the local server, trusting only the test root for its TLS. */
function fromLocalServer(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const local = `${serverUrl}${new URL(url).pathname}`;
    get(local, { ca: root.certPem }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        response.statusCode === 200
          ? resolve(Buffer.concat(chunks).toString('utf8'))
          : reject(new Error(`the certificate server answered HTTP ${response.statusCode}`)),
      );
    }).on('error', reject);
  });
}

beforeAll(async () => {
  certificates = new TestCertificates();
  // NOTE: EC keys where nothing signs a delivery (a 2048-bit RSA key takes up to a second).
  root = certificates.selfSigned({
    subject: '/O=E2E Test Root/CN=E2E Test Root CA',
    role: 'ca',
    key: 'ec',
  });
  const intermediate = certificates.issue(root, {
    subject: '/CN=E2E Test Intermediate',
    role: 'ca',
    key: 'ec',
  });
  leaf = certificates.issue(intermediate, { subject: PAYPAL_SIGNING_SUBJECT });
  forged = certificates.selfSigned({ subject: '/CN=attacker.example' });
  forgedInPayPalsName = certificates.selfSigned({ subject: PAYPAL_SIGNING_SUBJECT });
  const tls = certificates.issue(root, { subject: '/CN=127.0.0.1', role: 'server', key: 'ec' });
  const answers: Record<string, string> = {
    'CERT-genuine': leaf.certPem + intermediate.certPem,
    'CERT-attacker': forged.certPem,
    'CERT-forged': forgedInPayPalsName.certPem,
  };
  server = createServer({ key: tls.keyPem, cert: tls.certPem }, (request, response) => {
    const id = (request.url ?? '').split('/').pop() ?? '';
    served.push(id);
    const answer = answers[id];
    response.writeHead(answer === undefined ? 404 : 200, {
      'content-type': 'application/x-pem-file',
    });
    response.end(answer ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  app = await startTestApp({
    platform: 'express',
    database: 'sqlite',
    webhooks: {
      endpoints: [
        paypalEndpoint({
          name: 'paypal',
          webhookId: WEBHOOK_ID,
          certificateResolver: fromLocalServer,
          trustedRoots: root.certPem,
        }),
        paypalEndpoint({
          name: 'paypal-default-trust',
          webhookId: WEBHOOK_ID,
          certificateResolver: fromLocalServer,
        }),
      ],
      dispatch: { enabled: false },
    },
  });
  app.app.get(WebhookTelemetry).subscribe({ delivery: (record) => journal.push(record) });
  client = new WebhookTestClient(app.url);
});

afterAll(async () => {
  await app?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  certificates?.remove();
});

beforeEach(() => {
  served.length = 0;
  journal.length = 0;
});

async function storedEvents(endpoint: string, eventId: string): Promise<number> {
  const rows: { n: number }[] = await app.dataSource.query(
    'SELECT COUNT(*) AS n FROM webhook_events WHERE endpoint = ? AND event_id = ?',
    [endpoint, eventId],
  );
  return Number(rows[0].n);
}

async function send(endpoint: string, privateKey: string, certId: string) {
  const event = paypalFixtures.captureCompleted();
  const delivery = signPayPalDelivery({
    payload: event,
    webhookId: WEBHOOK_ID,
    privateKey,
    certUrl: certUrl(certId),
  });
  const response = await client.send(endpoint, delivery);
  return { response, eventId: event.id, stored: await storedEvents(endpoint, event.id) };
}

describe('PayPal signing certificates fetched over HTTPS', () => {
  it('stores a delivery signed by a certificate that chains to the trusted root', async () => {
    const { response, stored } = await send('paypal', leaf.keyPem, 'CERT-genuine');
    expect({ status: response.status, stored }).toEqual({ status: 200, stored: 1 });
    expect(served).toEqual(['CERT-genuine']);
    expect(journal).toMatchObject([{ endpoint: 'paypal', decision: 'accepted', status: 200 }]);
  });

  it.each([
    [
      'a self-signed certificate for another name',
      () => forged,
      'CERT-attacker',
      /its subject is "CN=attacker.example"/,
    ],
    [
      'a self-signed certificate in PayPal’s name',
      () => forgedInPayPalsName,
      'CERT-forged',
      /does not chain to a trusted root/,
    ],
  ])(
    'refuses %s with 400, stores nothing and journals why',
    async (_label, signer, certId, reason) => {
      const { response, stored } = await send('paypal', signer().keyPem, certId);
      expect({ status: response.status, stored }).toEqual({ status: 400, stored: 0 });
      expect(served).toEqual([certId]);
      expect(journal).toMatchObject([
        { endpoint: 'paypal', decision: 'rejected_signature', status: 400 },
      ]);
      expect(journal[0].reason).toMatch(reason);
      expect(JSON.parse(response.body).message).toBe(journal[0].reason);
    },
  );

  it('refuses a certificate URL off PayPal’s certificate path without fetching it', async () => {
    const event = paypalFixtures.captureCompleted();
    const delivery = signPayPalDelivery({
      payload: event,
      webhookId: WEBHOOK_ID,
      privateKey: leaf.keyPem,
      certUrl: 'https://api.sandbox.paypal.com/v1/oauth2/CERT-genuine',
    });
    const response = await client.send('paypal', delivery);
    expect(response.status).toBe(400);
    expect(await storedEvents('paypal', event.id)).toBe(0);
    expect(served).toEqual([]);
    expect(journal[0].reason).toMatch(/its path is not PayPal's certificate path/);
  });

  it('does not trust the test root unless the endpoint is given it', async () => {
    const { response, stored } = await send('paypal-default-trust', leaf.keyPem, 'CERT-genuine');
    expect({ status: response.status, stored }).toEqual({ status: 400, stored: 0 });
    expect(journal[0].reason).toMatch(/among Node's bundled root certificates/);
  });
});
