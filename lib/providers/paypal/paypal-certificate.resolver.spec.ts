import { AddressInfo } from 'node:net';
import { createServer, Server } from 'node:http';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { paypalFixtures } from './paypal.fixtures';
import { PAYPAL_TEST_CA_PEM, PAYPAL_TEST_CERTIFICATE_PEM } from './paypal-test-certificate';
import { signPayPalDelivery } from './paypal.signer';
import { createPayPalCertificateResolver } from './paypal-certificate.resolver';
import { PayPalWebhookProvider } from './paypal.provider';

async function rejection(
  promise: Promise<unknown>,
): Promise<{ name: string; reason: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as Error & { reason: string };
    return { name: e.name, reason: e.reason, message: e.message };
  }
  throw new Error('expected a rejection');
}

function syncRejection(fn: () => unknown): { name: string; message: string } {
  try {
    fn();
  } catch (error) {
    return { name: (error as Error).name, message: (error as Error).message };
  }
  throw new Error('expected a rejection');
}

describe('createPayPalCertificateResolver', () => {
  let server: Server;
  let base: string;
  const hits = new Map<string, number>();
  /** Answers the server holds back until the test releases them. */
  const held: (() => void)[] = [];
  const release = () => held.splice(0).forEach((answer) => answer());
  const requestsSeen = async (count: number) => {
    const total = () => [...hits.values()].reduce((sum, n) => sum + n, 0);
    for (let waited = 0; total() < count && waited < 5000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return total();
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path.startsWith('/held/')) {
        held.push(() => {
          response.writeHead(200, { 'content-type': 'application/x-pem-file' });
          response.end(PAYPAL_TEST_CERTIFICATE_PEM);
        });
      } else if (path.startsWith('/certs/')) {
        response.writeHead(200, { 'content-type': 'application/x-pem-file' });
        response.end(PAYPAL_TEST_CERTIFICATE_PEM);
      } else if (path === '/redirect') {
        response.writeHead(302, { location: '/certs/a' });
        response.end();
      } else if (path === '/slow') {
        setTimeout(() => response.end(PAYPAL_TEST_CERTIFICATE_PEM), 2000).unref();
      } else if (path === '/html') {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html>maintenance</html>');
      } else if (path === '/large') {
        response.writeHead(200);
        response.end('x'.repeat(2048));
      } else {
        response.writeHead(404);
        response.end('not found');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => hits.clear());
  afterEach(release);

  it('downloads once per URL, sharing a download between concurrent deliveries', async () => {
    const resolve = createPayPalCertificateResolver();
    const url = `${base}/certs/a`;
    const answers = await Promise.all([resolve(url), resolve(url), resolve(url)]);
    expect(answers).toEqual([
      PAYPAL_TEST_CERTIFICATE_PEM,
      PAYPAL_TEST_CERTIFICATE_PEM,
      PAYPAL_TEST_CERTIFICATE_PEM,
    ]);
    await resolve(url);
    expect(hits.get('/certs/a')).toBe(1);
  });

  it('runs at most maxConcurrentDownloads downloads, refusing another URL meanwhile', async () => {
    const resolve = createPayPalCertificateResolver({ maxConcurrentDownloads: 2 });
    const first = resolve(`${base}/held/a`);
    const second = resolve(`${base}/held/b`);
    const shared = resolve(`${base}/held/a`);
    await expect(resolve(`${base}/held/c`)).rejects.toThrow(
      '2 certificate downloads are already running; try again later',
    );
    expect(await requestsSeen(2)).toBe(2);
    release();
    await expect(Promise.all([first, second, shared])).resolves.toHaveLength(3);
    // A finished download frees its place, and the refused URL was not remembered as failed.
    const third = resolve(`${base}/held/c`);
    await requestsSeen(3);
    release();
    await expect(third).resolves.toBe(PAYPAL_TEST_CERTIFICATE_PEM);
    expect(Object.fromEntries(hits)).toEqual({ '/held/a': 1, '/held/b': 1, '/held/c': 1 });
  });

  it('runs 4 downloads at once by default, and a failed download frees its place', async () => {
    const resolve = createPayPalCertificateResolver();
    const running = ['a', 'b', 'c'].map((name) => resolve(`${base}/held/${name}`));
    await expect(resolve(`${base}/missing`)).rejects.toThrow(/HTTP 404/);
    running.push(resolve(`${base}/held/d`));
    await expect(resolve(`${base}/held/e`)).rejects.toThrow(/4 certificate downloads/);
    await requestsSeen(5);
    release();
    await expect(Promise.all(running)).resolves.toHaveLength(4);
  });

  it('keeps at most maxEntries certificates, dropping the least recently used', async () => {
    const resolve = createPayPalCertificateResolver({ maxEntries: 2 });
    for (const name of ['a', 'b', 'a', 'c', 'a', 'b']) {
      await resolve(`${base}/certs/${name}`);
    }
    // a stays (recently used), b is dropped when c arrives and fetched again.
    expect(Object.fromEntries(hits)).toEqual({ '/certs/a': 1, '/certs/b': 2, '/certs/c': 1 });
  });

  it('fails on an HTTP error and does not cache the failure', async () => {
    const resolve = createPayPalCertificateResolver();
    await expect(resolve(`${base}/missing`)).rejects.toThrow(/HTTP 404/);
    await expect(resolve(`${base}/missing`)).rejects.toThrow(/HTTP 404/);
    expect(hits.get('/missing')).toBe(2);
  });

  it('refuses an answer that is not a PEM certificate, and does not cache it', async () => {
    const resolve = createPayPalCertificateResolver();
    await expect(resolve(`${base}/html`)).rejects.toThrow('the answer is not a PEM certificate');
    await expect(resolve(`${base}/html`)).rejects.toThrow();
    expect(hits.get('/html')).toBe(2);
  });

  it('refuses to follow a redirect', async () => {
    const resolve = createPayPalCertificateResolver();
    await expect(resolve(`${base}/redirect`)).rejects.toThrow();
    expect(hits.get('/certs/a')).toBeUndefined();
  });

  it('gives up after timeoutMs', async () => {
    const resolve = createPayPalCertificateResolver({ timeoutMs: 100 });
    await expect(resolve(`${base}/slow`)).rejects.toThrow('no answer within 100 ms');
  });

  it('refuses an answer larger than maxBytes', async () => {
    const resolve = createPayPalCertificateResolver({ maxBytes: 1024 });
    await expect(resolve(`${base}/large`)).rejects.toThrow(/larger than 1024 bytes/);
  });

  it('makes the provider refuse the delivery with a verification error when it fails', async () => {
    const local = createPayPalCertificateResolver();
    // NOTE: the delivery's URL passes the check; the resolver is pointed at a path the server lacks.
    const paypal = new PayPalWebhookProvider({
      webhookId: 'WH_TEST',
      certificateResolver: () => local(`${base}/missing`),
      trustedRoots: PAYPAL_TEST_CA_PEM,
    });
    const signed = signPayPalDelivery({
      payload: paypalFixtures.captureCompleted(),
      webhookId: 'WH_TEST',
    });
    const error = await rejection(
      paypal.verify({
        rawBody: Buffer.from(signed.body),
        headers: signed.headers,
        receivedAt: new Date(),
      }),
    );
    expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    expect(error.message).toMatch(/HTTP 404/);
  });

  it.each([
    ['timeoutMs', { timeoutMs: 0 }],
    ['maxEntries', { maxEntries: 1.5 }],
    ['maxBytes', { maxBytes: -1 }],
    ['maxConcurrentDownloads', { maxConcurrentDownloads: 0 }],
  ])('refuses a bad %s at startup', (option, options) => {
    const error = syncRejection(() => createPayPalCertificateResolver(options));
    expect(error.name).toBe(WebhookConfigurationError.name);
    expect(error.message).toContain(option);
  });
});
