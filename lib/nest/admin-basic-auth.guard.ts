import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, UnauthorizedException } from '@nestjs/common';
import { WebhookConfigurationError } from '../core/webhook-errors';

/** What `AdminBasicAuthGuard` lets in. */
export interface AdminBasicAuthOptions {
  readonly username: string;
  /** At least 12 characters: the routes replay and settle payment events. */
  readonly password: string;
  /**
   * What the browser's sign-in prompt names.
   * @default 'Payment webhooks'
   */
  readonly realm?: string;
}

const MIN_PASSWORD_LENGTH = 12;

/**
 * A guard for the admin routes and the inbox page that a browser can pass by itself: without
 * the right user name and password (HTTP Basic) it answers `401` with `WWW-Authenticate`, so
 * the browser asks for them, then sends them with the page and each of its requests. Serve it
 * over HTTPS only: the password travels with every request. For a team that signs in elsewhere
 * already, a guard on that session does the same with no second password.
 *
 * @example admin: { guards: [new AdminBasicAuthGuard({ username: 'oncall', password: process.env.WEBHOOKS_ADMIN_PASSWORD! })], path: 'ops/webhooks' }
 */
export class AdminBasicAuthGuard implements CanActivate {
  private readonly expected: Buffer;
  private readonly challenge: string;

  constructor(options: AdminBasicAuthOptions) {
    const { username, password, realm = 'Payment webhooks' } = options ?? {};
    if (typeof username !== 'string' || username === '' || username.includes(':')) {
      throw new WebhookConfigurationError(
        'AdminBasicAuthGuard needs a `username`: a non-empty string without ":".',
      );
    }
    if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH) {
      throw new WebhookConfigurationError(
        `AdminBasicAuthGuard needs a \`password\` of at least ${MIN_PASSWORD_LENGTH} characters ` +
          '(the admin routes replay and settle payment events); read it from your secrets.',
      );
    }
    this.expected = digest(`${username}:${password}`);
    this.challenge = `Basic realm=${JSON.stringify(realm)}, charset="UTF-8"`;
  }

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const { headers } = http.getRequest<{
      headers: Record<string, string | string[] | undefined>;
    }>();
    if (this.accepts(headers.authorization)) {
      return true;
    }
    // NOTE: Express's response and Fastify's reply both set a header with header().
    http
      .getResponse<{ header(name: string, value: string): unknown }>()
      .header('WWW-Authenticate', this.challenge);
    throw new UnauthorizedException();
  }

  private accepts(authorization: string | string[] | undefined): boolean {
    const match = typeof authorization === 'string' ? /^Basic\s+(\S+)$/i.exec(authorization) : null;
    if (!match) {
      return false;
    }
    // NOTE: digests of equal length, compared in constant time: the answer's time says nothing
    // of how much of the password was right.
    return timingSafeEqual(digest(Buffer.from(match[1], 'base64').toString('utf8')), this.expected);
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
