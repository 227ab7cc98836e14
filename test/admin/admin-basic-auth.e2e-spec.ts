import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { AdminBasicAuthGuard, stripeEndpoint } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { signedStripeEvent } from '../support/stripe-event';
import { Platform, startTestApp, TestApp } from '../support/test-app';

const CHROMIUM = '/usr/bin/chromium';
const SECRET = 'whsec_admin_basic_auth';
const USERNAME = 'oncall';
const PASSWORD = 'correct horse battery';

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

/**
 * `AdminBasicAuthGuard`: the admin routes and the inbox page behind a user name and password a
 * browser asks for and then sends by itself.
 */
describe.each<Platform>(['express', 'fastify'])('AdminBasicAuthGuard on %s', (platform) => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await startTestApp({
      platform,
      database: 'sqlite',
      webhooks: { endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] },
      extras: {
        admin: {
          guards: [new AdminBasicAuthGuard({ username: USERNAME, password: PASSWORD })],
          path: 'ops/webhooks',
        },
      },
    });
    admin = `${t.url}/ops/webhooks`;
  });
  afterAll(() => t?.close());

  it('asks a browser for the password: 401 with a Basic challenge, without or with wrong credentials', async () => {
    const answers = await Promise.all(
      [undefined, basic(`${USERNAME}:wrong password!`), basic(`admin:${PASSWORD}`), 'Bearer x'].map(
        (authorization) =>
          fetch(`${admin}/inbox`, { headers: authorization ? { authorization } : {} }),
      ),
    );

    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 401]);
    expect(answers.map((answer) => answer.headers.get('www-authenticate'))).toEqual(
      Array(4).fill('Basic realm="Payment webhooks", charset="UTF-8"'),
    );
  });

  it('lets the right user name and password through, to the page and the routes', async () => {
    const authorization = basic(`${USERNAME}:${PASSWORD}`);

    const page = await fetch(`${admin}/inbox`, { headers: { authorization } });
    const events = await fetch(`${admin}/events`, { headers: { authorization } });

    expect([page.status, events.status]).toEqual([200, 200]);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    // A browser runs a module script only when it is served as JavaScript.
    const script = await fetch(`${admin}/inbox/dom.js`, { headers: { authorization } });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const unknown = await fetch(`${admin}/inbox/nothing.js`, { headers: { authorization } });
    expect(unknown.status).toBe(404);
  });

  it('serves the inbox page to a browser given the password, its own requests included', async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: install it with \`apt-get install -y chromium\``);
    }
    const event = signedStripeEvent(SECRET);
    expect((await post(`${t.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
    try {
      const context = await browser.newContext({
        httpCredentials: { username: USERNAME, password: PASSWORD },
      });
      const page = await context.newPage();
      const listed = page.waitForResponse((answer) =>
        answer.url().includes('/ops/webhooks/events'),
      );

      const opened = await page.goto(`${admin}/inbox`);

      expect(opened?.status()).toBe(200);
      expect((await listed).status()).toBe(200);
      await page.getByText(event.id).first().waitFor({ timeout: 20_000 });
    } finally {
      await browser.close();
    }
  }, 60_000);

  it.each([
    [{ username: USERNAME, password: 'short' }, /a `password` of at least 12 characters/],
    [{ username: '', password: PASSWORD }, /needs a `username`/],
    [{ username: 'a:b', password: PASSWORD }, /without ":"/],
  ])('refuses %j when it is made, naming what is wrong', (options, message) => {
    expect(() => new AdminBasicAuthGuard(options)).toThrow(message);
  });
});
