import { IncomingMessage } from 'node:http';
import { INestApplication, ValidationPipe } from '@nestjs/common';
import { AbstractHttpAdapter } from '@nestjs/core';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';

/** The HTTP platforms the shop runs on: Express (the default) or Fastify. */
export type HttpPlatform = 'express' | 'fastify';

/** The largest webhook body the shop accepts; the same figure as the endpoints' default limit. */
const BODY_LIMIT = '1mb';
const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The platform named by `HTTP_PLATFORM`: `fastify`, or `express` when unset.
 * @throws Error when it names another platform.
 */
export function httpPlatformFromEnv(value = process.env.HTTP_PLATFORM): HttpPlatform {
  if (value === undefined || value === '' || value === 'express') {
    return 'express';
  }
  if (value === 'fastify') {
    return 'fastify';
  }
  throw new Error(`HTTP_PLATFORM must be "express" or "fastify", not "${value}"`);
}

/**
 * The Nest HTTP adapter for `platform`. Fastify is loaded only when asked for, so an Express
 * deployment does not need it installed; its body limit matches Express's.
 */
export async function createHttpAdapter(platform: HttpPlatform): Promise<AbstractHttpAdapter> {
  if (platform === 'fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    return new FastifyAdapter({ bodyLimit: BODY_LIMIT_BYTES });
  }
  return new ExpressAdapter();
}

/** Where the webhook module's route takes deliveries (its default `path`). */
const WEBHOOK_ROUTES = '/webhooks/';

/**
 * A body parser's `type` test: `mediaType` bodies of every route but the webhook module's. The
 * webhook route needs no parsed body: with nothing read off the request, the module reads the
 * exact bytes itself, within each endpoint's own size limit, and parses them once after the
 * signature check instead of after Express's parser has parsed them too.
 */
function parsedOutsideWebhooks(mediaType: RegExp): (request: IncomingMessage) => boolean {
  return (request) =>
    !(request.url ?? '').startsWith(WEBHOOK_ROUTES) &&
    mediaType.test(request.headers['content-type'] ?? '');
}

/** What `main.ts` sets up on the app before it listens, shared with the shop's tests. */
export function configureApp(app: INestApplication): void {
  if (app.getHttpAdapter().getType() === 'express') {
    // NOTE: Express's JSON parser stops at 100 KB by default; the shop's own routes take the
    // same limit as the webhook endpoints. Fastify's limit is set on its adapter
    // (createHttpAdapter).
    const express = app as NestExpressApplication;
    express.useBodyParser('json', {
      limit: BODY_LIMIT,
      type: parsedOutsideWebhooks(/^\s*application\/json\s*(;|$)/i),
    });
    express.useBodyParser('urlencoded', {
      limit: BODY_LIMIT,
      extended: true,
      type: parsedOutsideWebhooks(/^\s*application\/x-www-form-urlencoded\s*(;|$)/i),
    });
  }
  app.useGlobalPipes(
    new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }),
  );
}
